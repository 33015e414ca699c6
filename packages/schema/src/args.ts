// Argument parsing shared by the root and nested fields; the rules themselves live in @asrank/domain.
import {
  ArgumentError,
  parseDateArgument,
  parseDateInterval,
  parsePageArgs,
  quoteValue,
  selectDates,
  type DateInterval,
} from '@asrank/domain';
import type { AsrankContext } from './context';

const MAX_ASN = 4294967295;

/** An ASN argument: decimal digits only, at most 2^32-1 (the 32-bit ASN space). */
export function parseAsnArgument(value: string, argument: string): number {
  const trimmed = value.trim();
  if (!/^\d{1,10}$/.test(trimmed) || Number(trimmed) > MAX_ASN) {
    throw new ArgumentError(
      argument,
      `${argument} must be an ASN written as decimal digits (0 to ${MAX_ASN}); got ${quoteValue(value)}`,
    );
  }
  return Number(trimmed);
}

export function parseAsnList(
  values: readonly string[] | null | undefined,
  argument: string,
): number[] | null {
  if (values == null) return null;
  return [...new Set(values.map((value) => parseAsnArgument(value, argument)))];
}

export interface PageArgs {
  first?: number | null;
  offset?: number | null;
}

export function pageOf(args: PageArgs): { first: number; offset: number } {
  return parsePageArgs({ first: args.first, offset: args.offset });
}

/**
 * The `dateStart`/`dateEnd` interval of a list query, parsed once per request: null when neither is given (the
 * latest month only; empty strings count as absent, as in the domain), so a non-null interval makes a historic query.
 */
export function intervalOf(args: {
  dateStart?: string | null;
  dateEnd?: string | null;
}): DateInterval | null {
  return parseDateInterval(args.dateStart, args.dateEnd);
}

/** Months of an interval query: the latest loaded month without interval, else every loaded month inside it. */
export async function monthsIn(context: AsrankContext, interval: DateInterval | null): Promise<string[]> {
  return selectDates(await context.availableDates(), interval);
}

/**
 * monthOf without waiting: the month `date` names, or the latest when the context knows it at once
 * (latestDateNow); undefined when only monthOf can tell.
 */
export function monthNow(
  context: AsrankContext,
  date: string | null | undefined,
  argument = 'date',
): string | null | undefined {
  if (date != null && date !== '') return parseDateArgument(date, argument);
  return context.latestDateNow();
}

/**
 * A single-record query's record, loaded by `load` in its month: at once when the month is known (`month`, from
 * monthNow) or, on PostgreSQL, found by the lookup's own statement (latestMonthKey); else once monthOf has found it.
 * Null when no month is loaded.
 */
export function loadInMonth<T>(
  context: AsrankContext,
  date: string | null | undefined,
  month: string | undefined,
  load: (month: string) => Promise<T | null>,
): Promise<T | null> {
  const known = month ?? context.latestMonthKey();
  if (known !== undefined) return load(known);
  return monthOf(context, date).then((found) => (found ? load(found) : null));
}

/** The month of a single-record query: the given date, or the latest loaded month (null when none is loaded). */
export async function monthOf(
  context: AsrankContext,
  date: string | null | undefined,
  argument = 'date',
): Promise<string | null> {
  if (date != null && date !== '') return parseDateArgument(date, argument);
  return (await context.availableDates()).at(-1) ?? null;
}
