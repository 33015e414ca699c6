// Argument parsing shared by the root and nested fields; the rules themselves live in @asrank/domain.
import {
  ArgumentError,
  parseDateArgument,
  parseDateInterval,
  parsePageArgs,
  selectDates,
} from '@asrank/domain';
import type { AsrankContext } from './context';

const MAX_ASN = 4294967295;

/** An ASN argument: decimal digits only, at most 2^32-1 (the 32-bit ASN space). */
export function parseAsnArgument(value: string, argument: string): number {
  const trimmed = value.trim();
  if (!/^\d{1,10}$/.test(trimmed) || Number(trimmed) > MAX_ASN) {
    throw new ArgumentError(
      argument,
      `${argument} must be an ASN written as decimal digits (0 to ${MAX_ASN}), got "${value}"`,
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

/** Whether a query is historic: an interval is given (empty strings count as absent, as in the domain). */
export function isHistoric(args: { dateStart?: string | null; dateEnd?: string | null }): boolean {
  return parseDateInterval(args.dateStart, args.dateEnd) !== null;
}

/** Months of an interval query: the latest loaded month without interval, else every loaded month inside it. */
export async function monthsOf(
  context: AsrankContext,
  args: { dateStart?: string | null; dateEnd?: string | null },
): Promise<string[]> {
  const interval = parseDateInterval(args.dateStart, args.dateEnd);
  return selectDates(await context.availableDates(), interval);
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
