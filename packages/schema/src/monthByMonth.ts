// A list over several months in an order that starts with the month (the default historic orders: by month, then the
// month's own order; or `date` / `-date` first) is read month by month: the months before a page are skipped whole by
// their totals (kept per data version, listTotals.ts), and the page's months are read as a single month's list is,
// from its indexes and bookmarks. One statement over all the months sorted or walked every row before the page (12
// generated months of links by `-date` at offset 4,000,000: 1.9 s; of organizations at 400,000: 0.3-0.8 s; a cone
// walk resumed at cone 801,970: 4.7 s).
import type { SortKey } from '@asrank/domain';

/**
 * Lets tests compare the pages read month by month with one statement's over all the months, and an interval of one
 * month's pages with those read in the interval's order (monthOrderOf).
 */
export const monthByMonthTuning = { enabled: true, oneMonthAsMonth: true };

/**
 * The order a list over `months` is paged in, from the keys parsed for an interval or not (`historic`). An interval of
 * one month (dateStart = dateEnd, as a client asks for one month's list) lists records that all share the date, so its
 * order, the date first, is the month's own with the date left out; `date` alone leaves `byKey`, the order's unique
 * key, as in a walk month by month. The month's page forms (bookmarks, order indexes, arms, compiled statements) then
 * serve it as they serve the latest month: in the interval's order a month's 40 ASNs at offset 50,000 read 11-20 ms on
 * PostgreSQL against 3-4 (docs/performance.md, seventy-seventh round).
 */
export function monthOrderOf(
  historic: boolean,
  months: readonly string[],
  keys: readonly SortKey[],
  byKey: SortKey,
): { historic: boolean; keys: readonly SortKey[] } {
  if (!historic || months.length !== 1 || !monthByMonthTuning.oneMonthAsMonth) return { historic, keys };
  const monthKeys = keys.filter((key) => key.key !== 'date');
  return { historic: false, keys: monthKeys.length === 0 && keys.length > 0 ? [byKey] : monthKeys };
}

/**
 * True when a list over `months` in the order of `keys` reads month by month: several months, and an order that
 * starts with the month (`keys` empty: the default).
 */
export function readsMonthByMonth(months: readonly string[], keys: readonly SortKey[]): boolean {
  return months.length > 1 && monthByMonthTuning.enabled && (keys.length === 0 || keys[0]!.key === 'date');
}

/**
 * The walk of `keys` (readsMonthByMonth) over `months` (ascending): the months in the order's direction, and each
 * month's own keys: the keys after the month's; none given, the default order ([]); `date` alone, `byKey`.
 */
export function monthWalkOf(
  months: readonly string[],
  keys: readonly SortKey[],
  byKey: SortKey,
): { months: readonly string[]; monthKeys: SortKey[] } {
  return {
    months: keys[0]?.direction === 'desc' ? [...months].reverse() : months,
    monthKeys: keys.length === 0 ? [] : keys.length > 1 ? keys.slice(1) : [byKey],
  };
}

/**
 * Rows `offset` .. `offset + limit - 1` of `months` (in walk order) read month by month: `monthTotal` gives a month's
 * rows, `readMonth` a stretch of one month. A month may be any consecutive part of the order with a kept total (a
 * relationship's links in one month, asnLink.ts).
 */
export async function pageMonthByMonth<Row, Month = string>(
  months: readonly Month[],
  limit: number,
  offset: number,
  monthTotal: (month: Month) => Promise<number>,
  readMonth: (month: Month, limit: number, offset: number) => Promise<Row[]>,
): Promise<Row[]> {
  const rows: Row[] = [];
  let skip = offset;
  for (const month of months) {
    if (rows.length >= limit) break;
    const total = await monthTotal(month);
    if (skip >= total) {
      skip -= total;
      continue;
    }
    rows.push(...(await readMonth(month, limit - rows.length, skip)));
    skip = 0;
  }
  return rows;
}
