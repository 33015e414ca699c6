import { ArgumentError, quoteValue } from './errors';

const DASHED_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const COMPACT_DATE = /^(\d{4})(\d{2})(\d{2})$/;

function daysInMonth(year: number, month: number): number {
  // Day 0 of the next month is the last day of this one; UTC avoids time-zone surprises.
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Normalises a date argument to `YYYY-MM-DD`. Accepts `YYYY-MM-DD` and `YYYYMMDD` (both appear in the spec's samples)
 * and rejects anything else, including impossible calendar dates such as 2019-02-30.
 */
export function parseDateArgument(value: string, argument: string): string {
  const text = typeof value === 'string' ? value.trim() : '';
  const match = DASHED_DATE.exec(text) ?? COMPACT_DATE.exec(text);
  const accepted = 'a date written YYYY-MM-DD or YYYYMMDD (e.g. 2017-12-01 or 20171201)';
  if (!match) {
    throw new ArgumentError(argument, `${argument} must be ${accepted}; got ${quoteValue(value)}`);
  }
  const [, yearText = '', monthText = '', dayText = ''] = match;
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new ArgumentError(
      argument,
      `${argument} must be a real calendar date written YYYY-MM-DD or YYYYMMDD; ${quoteValue(value)} does not exist`,
    );
  }
  return `${yearText}-${monthText}-${dayText}`;
}

/** An inclusive interval of dates (`YYYY-MM-DD`); a null bound is open. */
export interface DateInterval {
  start: string | null;
  end: string | null;
}

function isAbsent(value: string | null | undefined): value is null | undefined | '' {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}

/**
 * Parses the `dateStart`/`dateEnd` pair of historic queries. Returns null when neither is given, which means
 * "latest month only" (spec, Historic data 3). An empty string counts as not given, so REST query strings such as
 * `?dateStart=` behave like an absent parameter. A start after the end is an error rather than a silent empty result.
 */
export function parseDateInterval(dateStart?: string | null, dateEnd?: string | null): DateInterval | null {
  if (isAbsent(dateStart) && isAbsent(dateEnd)) return null;
  const start = isAbsent(dateStart) ? null : parseDateArgument(dateStart, 'dateStart');
  const end = isAbsent(dateEnd) ? null : parseDateArgument(dateEnd, 'dateEnd');
  if (start !== null && end !== null && start > end) {
    throw new ArgumentError('dateStart', `dateStart (${start}) must not be after dateEnd (${end})`);
  }
  return { start, end };
}

/** Whether `date` (`YYYY-MM-DD`) lies in the inclusive interval. ISO dates compare correctly as strings. */
export function dateInInterval(date: string, interval: DateInterval): boolean {
  return (
    (interval.start === null || date >= interval.start) && (interval.end === null || date <= interval.end)
  );
}

/**
 * Chooses which of the available dataset dates a query reads: only the latest when no interval is given, otherwise
 * every date inside the inclusive interval. Result is sorted ascending and free of duplicates.
 */
export function selectDates(available: readonly string[], interval: DateInterval | null): string[] {
  const sorted = [...new Set(available)].sort();
  if (interval === null) {
    const latest = sorted[sorted.length - 1];
    return latest === undefined ? [] : [latest];
  }
  return sorted.filter((date) => dateInInterval(date, interval));
}

/**
 * Parses a list-of-dates argument (asnCone's and asnConesStream's `dates`). Returns the normalised, sorted, distinct
 * dates, or null when the list is absent or empty (meaning "latest month").
 */
export function parseDateList(
  values: readonly string[] | null | undefined,
  argument: string,
): string[] | null {
  if (values === null || values === undefined) return null;
  const dates = values.filter((value) => !isAbsent(value)).map((value) => parseDateArgument(value, argument));
  return dates.length === 0 ? null : [...new Set(dates)].sort();
}
