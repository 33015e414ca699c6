// A deep page of a list over several months (ASNs, organizations, links), in one sort column's order (its ties broken
// by the month, then the record key), from each month's bookmarks (pageBookmarks.ts). One statement over the months
// walks or sorts every record up to the page: `asns` over 12 generated months at offset 817,806 took 1.0-3.0 s, links
// at 4,848,684 5-15 s (docs/performance.md, fifty-fourth round), and arms (monthArms.ts) would each read as far. Each
// month's order is the months' order restricted to it, so a bookmark of one month is a point of the months' order too:
// - the page starts after a threshold, the bookmark of some month the furthest in the months' order whose count of
//   records not after it is known, from every month's bookmarks, to be at most the offset (no count is read for it);
// - that count is then read exactly: the threshold's month from its position, every other month from the bookmark
//   before the threshold (a bracket of fewer than `step` records counted through the order's index);
// - each month's records after the threshold, cut at the rest of the offset plus the page, and not after the page's
//   end (the earliest bookmark of any month with, from the bookmarks, at least the offset plus the page not after it),
//   are merged and cut.
// The rest of the offset is under months x step: each arm reads at most that and the page, and all of them together
// about the rest, the page and months x step once their end cuts them.
import { sql, type Compilable, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { toCount, type Database } from '@asrank/db';
import { mergedArms } from './monthArms';
import { mapOnStore } from './storeTurns';
import {
  bookmarksThrough,
  pageAfter,
  rangesAfter,
  seekOrder,
  type Bookmark,
  type SeekRange,
  type SeekTerm,
} from './pageBookmarks';

/** Lets tests compare a page started from the threshold's later bookmarks of its value with one started before them. */
export const monthsBookmarksTuning = { withinTies: true };

/**
 * Runs the statement of the brackets' counts (a column each, as numbers or numeric text): a named statement where its
 * generic plan reads each bracket from the order's index (AsrankContext.prepared), else one planned for its values.
 */
export type MonthsCounter = (query: Compilable<unknown>) => Promise<Record<string, number | string>[]>;

/** The brackets' statement run through `db`, unnamed: planned for its values at each call. */
export function plannedEachCall(db: Kysely<Database>): MonthsCounter {
  return async (query) => (await db.executeQuery(query.compile())).rows as Record<string, number | string>[];
}

/** One month's range of the list, its records in the order's sort column then key (`term` must be set). */
export interface MonthSeekRange {
  month: string;
  range: SeekRange & { term: SeekTerm };
  /**
   * Read the month's records as these parts apart (each a filter of the range, together all of it), where an index of
   * each part serves the order better than the range's own: every link by `-asn0` one relationship at a time (the
   * primary key holds both rows of each link, and walks the other ones: asnLink.ts pairRuns). Bookmarks are the
   * month's whole range's; brackets and arms are read a part at a time.
   */
  parts?: readonly ((records: SeekRange['range']) => SeekRange['range'])[];
}

/** A month's range as the parts it is read in (the range itself when it has none). */
function rangeParts({ range, parts }: MonthSeekRange): MonthSeekRange['range'][] {
  return parts ? parts.map((part) => ({ ...range, range: part(range.range) })) : [range];
}

/** A bookmark of one month, placed in the months' order. */
export interface MonthPoint {
  monthIndex: number;
  bookmark: Bookmark;
}

/**
 * Where a page of the months' order starts: after `threshold`, skipping `skip` records; and a point it does not go past
 * (null: none known before the order's end).
 */
export interface MonthsStart {
  threshold: MonthPoint;
  skip: number;
  end: MonthPoint | null;
}

/** A month's bookmarks read so far, and whether they are all it has. */
export type Known = { bookmarks: readonly Bookmark[]; complete: boolean };

/**
 * Two strings in UTF-8 byte order, as both dialects order text (SQLite's BINARY, PostgreSQL's "C"): code point order.
 * JavaScript's `<` compares UTF-16 units, which differs only where one side is a surrogate (a code point past U+FFFF)
 * and the other a unit from U+E000 on.
 */
export function compareByteOrder(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) {
    const unitA = a.charCodeAt(index);
    const unitB = b.charCodeAt(index);
    if (unitA === unitB) continue;
    const surrogateA = unitA >= 0xd800 && unitA <= 0xdfff;
    const surrogateB = unitB >= 0xd800 && unitB <= 0xdfff;
    if (surrogateA !== surrogateB) return surrogateA ? 1 : -1;
    return unitA - unitB;
  }
  return a.length - b.length;
}

/** Two sort values or keys (numbers, or text in byte order), as the database orders them. */
function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return compareByteOrder(a, b);
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

/** The order of two points of the months' order: the sort column in its direction, the month, the key. */
function comparePoints(term: SeekTerm, a: MonthPoint, b: MonthPoint): number {
  const byValue = compareValues(a.bookmark.value, b.bookmark.value);
  if (byValue !== 0) return term.direction === 'desc' ? -byValue : byValue;
  if (a.monthIndex !== b.monthIndex) return a.monthIndex - b.monthIndex;
  for (let index = 0; index < a.bookmark.key.length; index += 1) {
    const byKey = compareValues(a.bookmark.key[index], b.bookmark.key[index]);
    if (byKey !== 0) return byKey;
  }
  return 0;
}

/** How many of a month's bookmarks are not after `point` (they are in the months' order already). */
function bookmarksNotAfter(term: SeekTerm, monthIndex: number, known: Known, point: MonthPoint): number {
  return notAfterWithin(term, monthIndex, known, point, 0, known.bookmarks.length);
}

/** bookmarksNotAfter when that count is known to lie in [low, high]: a search of that stretch alone. */
function notAfterWithin(
  term: SeekTerm,
  monthIndex: number,
  known: Known,
  point: MonthPoint,
  low: number,
  high: number,
): number {
  while (low < high) {
    const middle = (low + high) >> 1;
    if (comparePoints(term, { monthIndex, bookmark: known.bookmarks[middle]! }, point) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A point of the months' order, with its place among its own month's bookmarks. */
export interface PlacedPoint extends MonthPoint {
  index: number;
}

/**
 * The point of rank `rank` (1: the first) among every month's bookmarks in the months' order, or null when there are
 * fewer. Each month's count of bookmarks among the first `rank` is searched in turn. Once a month's count is found, its
 * bookmark before the count (of rank at most `rank`) and its bookmark at the count (after it) enclose the answer and
 * every later probe, so each other month's count lies between its counts of those two bookmarks: the later searches
 * read a stretch of one or two bookmarks a month instead of every month's whole list. A search of every month's
 * bookmarks within a search of every other month's took ~0.5 ms of the service's thread for each of a 12-month deep
 * page's threshold and end (docs/performance.md, sixty-eighth round).
 */
function pointOfRank(term: SeekTerm, months: readonly Known[], rank: number): PlacedPoint | null {
  const total = months.reduce((sum, month) => sum + month.bookmarks.length, 0);
  if (!(rank >= 1 && rank <= total)) return null;
  // Each month's count of bookmarks among the first `rank` lies in [low, high].
  const low = months.map(() => 0);
  const high = months.map((month) => month.bookmarks.length);
  // Each other month's count not after `point`, which becomes its bound (searched within the bounds, it is never
  // looser than they are).
  const narrowTo = (point: MonthPoint, bound: number[]) => {
    months.forEach((month, monthIndex) => {
      if (monthIndex === point.monthIndex || low[monthIndex] === high[monthIndex]) return;
      bound[monthIndex] = notAfterWithin(term, monthIndex, month, point, low[monthIndex]!, high[monthIndex]!);
    });
  };
  months.forEach((month, monthIndex) => {
    let below = low[monthIndex]!;
    let above = high[monthIndex]!;
    while (below < above) {
      const middle = (below + above) >> 1;
      const point = { monthIndex, bookmark: month.bookmarks[middle]! };
      // The probe's rank: its own month's bookmarks up to it, and each other month's not after it.
      let probeRank = middle + 1;
      months.forEach((other, otherIndex) => {
        if (otherIndex !== monthIndex)
          probeRank += notAfterWithin(term, otherIndex, other, point, low[otherIndex]!, high[otherIndex]!);
      });
      if (probeRank <= rank) below = middle + 1;
      else above = middle;
    }
    if (below > 0) narrowTo({ monthIndex, bookmark: month.bookmarks[below - 1]! }, low);
    if (below < month.bookmarks.length) narrowTo({ monthIndex, bookmark: month.bookmarks[below]! }, high);
    low[monthIndex] = below;
    high[monthIndex] = below;
  });
  // The point of that rank is the last of the months' bookmarks before their counts.
  let last: PlacedPoint | null = null;
  months.forEach((month, monthIndex) => {
    const count = low[monthIndex]!;
    if (count === 0) return;
    const point = { monthIndex, bookmark: month.bookmarks[count - 1]!, index: count - 1 };
    if (!last || comparePoints(term, point, last) > 0) last = point;
  });
  return last;
}

/** A point's rank (1: the first) among every month's bookmarks in the months' order. */
function rankOf(term: SeekTerm, months: readonly Known[], point: PlacedPoint): number {
  let rank = point.index + 1;
  months.forEach((month, monthIndex) => {
    if (monthIndex !== point.monthIndex) rank += bookmarksNotAfter(term, monthIndex, month, point);
  });
  return rank;
}

/**
 * Where a page over the months starts and ends, from their bookmarks alone (`months`, in date order). The records of
 * all months not after a bookmark of rank r among them (bookmarks[i] is its month's record (i + 1) x step - 1) number
 * at least r x step, exactly so in its own month and at least so in each other, and at most r x step plus step - 1 for
 * each other month, unless one of them is known no further and goes on (then any number).
 * - `threshold`: the furthest bookmark whose most records not after it fit in `offset` (the page starts after it);
 * - `end`: the earliest bookmark with at least `offset + limit` records not after it (the page does not go past it).
 */
export function placeInMonths(
  term: SeekTerm,
  step: number,
  months: readonly Known[],
  offset: number,
  limit: number,
): { threshold: PlacedPoint | null; end: PlacedPoint | null } {
  // Past the first bookmark of a month known no further and going on, every other month's bookmark may have any number
  // of that month's records before it.
  let lastBounded = Number.POSITIVE_INFINITY;
  months.forEach((month, monthIndex) => {
    if (month.complete || months.length === 1) return;
    const count = month.bookmarks.length;
    lastBounded = Math.min(
      lastBounded,
      count === 0
        ? 0
        : rankOf(term, months, { monthIndex, bookmark: month.bookmarks[count - 1]!, index: count - 1 }),
    );
  });
  const fitting = Math.floor((offset - (months.length - 1) * (step - 1)) / step);
  const total = months.reduce((sum, month) => sum + month.bookmarks.length, 0);
  return {
    threshold: pointOfRank(term, months, Math.min(fitting, lastBounded, total)),
    end: pointOfRank(term, months, Math.max(1, Math.ceil((offset + limit) / step))),
  };
}

/** The comparison of the sort column that keeps a month's records after `value` (`orEqual`: its ties too). */
function valueAfter(term: SeekTerm, value: unknown, orEqual: boolean): RawBuilder<boolean> {
  const after = term.direction === 'desc' ? (orEqual ? sql`<=` : sql`<`) : orEqual ? sql`>=` : sql`>`;
  return sql<boolean>`${sql.ref(term.column)} ${after} ${value}`;
}

/** The comparison of the sort column that keeps a month's records not after `value` (`orEqual`: its ties too). */
function valueNotAfter(term: SeekTerm, value: unknown, orEqual: boolean): RawBuilder<boolean> {
  const before = term.direction === 'desc' ? (orEqual ? sql`>=` : sql`>`) : orEqual ? sql`<=` : sql`<`;
  return sql<boolean>`${sql.ref(term.column)} ${before} ${value}`;
}

/** Records of another month than the threshold's not after it: an earlier month's ties come before it. */
function notAfterThreshold(term: SeekTerm, monthIndex: number, threshold: MonthPoint) {
  return valueNotAfter(term, threshold.bookmark.value, monthIndex < threshold.monthIndex);
}

/** Records of another month than the threshold's after it: a later month's ties come after it. */
function afterThreshold(term: SeekTerm, monthIndex: number, threshold: MonthPoint) {
  return valueAfter(term, threshold.bookmark.value, monthIndex > threshold.monthIndex);
}

/**
 * A month's records not after the page's end, or a few more: in the end's own month all its ties (a bound on the sort
 * column alone, which the order's index walk stops at).
 */
function notAfterEnd(term: SeekTerm, monthIndex: number, end: MonthPoint) {
  return monthIndex === end.monthIndex
    ? valueNotAfter(term, end.bookmark.value, true)
    : notAfterThreshold(term, monthIndex, end);
}

/**
 * The count of a month's records after `from` (or from its start) and not after the threshold, fewer than a step of
 * them, as a query for one column of monthsBookmarkStart's statement.
 */
function bracketCount(
  db: Kysely<Database>,
  month: MonthSeekRange,
  monthIndex: number,
  from: Bookmark | null,
  threshold: MonthPoint,
) {
  const parts = rangeParts(month).flatMap((range) =>
    rangesAfter(range, from).map((part, index) =>
      // After a bookmark the first part is the bookmark's ties (its value, keys after its key). The bookmark is not after
      // the threshold (bookmarksNotAfter): in an earlier month its value is at most the threshold's, in a later month
      // before it, so every one of its ties is not after the threshold either. Bound again in SQL, the sort column let
      // SQLite read the part as a range of the column from the month's first record instead of from the bookmark's key:
      // organizations by sibling degree over 12 generated months (~55,000 ties at 0 a month), 4 ms a bracket and 40-50
      // ms a page.
      (from && index === 0 ? part : part.where(notAfterThreshold(range.term, monthIndex, threshold))).select(
        sql`1`.as('one'),
      ),
    ),
  );
  const united = parts.slice(1).reduce((union, part) => union.unionAll(part), parts[0]!);
  return db.selectFrom(united.as('bracket')).select((eb) => eb.fn.countAll().as('n'));
}

/**
 * Where the page at `offset` (of `limit` records) of the months' order starts and ends, after every month's bookmarks
 * up to it are found (the first deep page of an order waits for them); null when no bookmark is far enough from the end
 * to start from. `months` are in date order, each range's scope its own month's.
 */
export async function monthsBookmarkStart(
  count: MonthsCounter,
  months: readonly MonthSeekRange[],
  offset: number,
  limit: number,
): Promise<MonthsStart | null> {
  const { term, step } = months[0]!.range;
  // No month holds more records before the page than the offset: its bookmarks up to there place the threshold.
  const known = await mapOnStore(months[0]!.range.dialect, months, ({ range }) =>
    bookmarksThrough(range, Math.floor(offset / step)),
  );
  const placed = placeInMonths(term, step, known, offset, limit);
  if (placed.threshold === null) return null;
  const found = placed.threshold;
  const thresholdIndex = found.index;
  // Every other month's bracket counted in one statement, a column each (`count` says whether named): a statement a
  // month was a round trip and a plan each, and planned at each page the twelve months' brackets took 6 ms of the
  // server's (docs/performance.md, sixty-seventh round).
  const { db } = months[0]!.range;
  let notAfterThresholdTotal = (thresholdIndex + 1) * step;
  const brackets: { as: string; count: ReturnType<typeof bracketCount> }[] = [];
  months.forEach((month, monthIndex) => {
    if (monthIndex === found.monthIndex) return;
    const notAfter = bookmarksNotAfter(term, monthIndex, known[monthIndex]!, found);
    const from = notAfter > 0 ? known[monthIndex]!.bookmarks[notAfter - 1]! : null;
    notAfterThresholdTotal += notAfter * step;
    brackets.push({ as: `n${monthIndex}`, count: bracketCount(db, month, monthIndex, from, found) });
  });
  if (brackets.length > 0) {
    const [counted] = await count(db.selectNoFrom(brackets.map(({ as, count: bracket }) => bracket.as(as))));
    for (const { as } of brackets) notAfterThresholdTotal += toCount(counted?.[as]);
  }
  // The threshold was placed by the bookmarks' bounds, which leave up to a step of doubt a month, so the rest of the
  // offset may be months x step, and every arm reads that far. Within a value the months' order keeps each month's ties
  // together (value, then month, then key): the threshold's later bookmarks of its own value leave every other month's
  // count as it is, and each adds exactly a step of its own month. Moved along them, the arms start that much nearer
  // the page (12 generated months of `asns` by `-cone.numberAsns` at offset 817,806, deep in the ties at one member:
  // the merge read ~12 x 3,000 rows, 12 ms of PostgreSQL's; docs/performance.md, sixty-fifth round).
  const own = known[found.monthIndex]!.bookmarks;
  let moved = thresholdIndex;
  while (
    monthsBookmarksTuning.withinTies &&
    offset - notAfterThresholdTotal >= step &&
    moved + 1 < own.length &&
    compareValues(own[moved + 1]!.value, found.bookmark.value) === 0
  ) {
    moved += 1;
    notAfterThresholdTotal += step;
  }
  const startAfter =
    moved === thresholdIndex ? found : { monthIndex: found.monthIndex, bookmark: own[moved]! };
  // The arms stop at the page's end too: cut at the rest of the offset plus the page alone, they read months times that
  // (12 months of `asns` by a numeric column at offset 817,806 on PostgreSQL: ~23,000 rows, 35-100 ms).
  return { threshold: startAfter, skip: offset - notAfterThresholdTotal, end: placed.end };
}

/** An arm's columns, as pageAfter selects them (the sort column may be the key itself), and `carried` ones. */
function armColumns(range: MonthSeekRange['range'], carried: readonly string[]): never[] {
  return [...new Set(['date', ...range.keyColumns, range.term.column, ...carried])] as never[];
}

/**
 * The records `limit`, `skip` after `start.threshold` in the months' order (`order`, which names only the arms'
 * columns: the date, the key columns, the sort column and `carried`), as the columns `columns` of each.
 */
export function monthsPageAfter(
  db: Kysely<Database>,
  months: readonly MonthSeekRange[],
  start: MonthsStart,
  columns: readonly { column: string; as: string }[],
  order: RawBuilder<unknown>,
  limit: number,
  carried: readonly string[] = [],
): ReturnType<typeof mergedArms> {
  const reach = start.skip + limit;
  const { term } = months[0]!.range;
  const { end } = start;
  const thresholdValue = start.threshold.bookmark.value;
  // A page that starts and ends in one value of the sort column: a later month's arm holds that value's tie alone.
  const oneValue = end !== null && compareValues(end.bookmark.value, thresholdValue) === 0;
  const monthArm = (monthRange: MonthSeekRange['range'], monthIndex: number) => {
    const range = end
      ? { ...monthRange, range: monthRange.range.where(notAfterEnd(term, monthIndex, end)) }
      : monthRange;
    if (monthIndex === start.threshold.monthIndex)
      // Its statement is planned once, generically (a named merge, monthArms.ts): the bookmark's tie by equality.
      return pageAfter(range, start.threshold.bookmark, reach, 0, carried, { tieByEquality: true });
    const after = range.range.where(afterThreshold(range.term, monthIndex, start.threshold));
    // Said by equality too: bounded on both sides, the generic plan read the month's whole tie backwards and sorted
    // it (a page running from one month's tie into the next: 77,749 rows, 35 ms; docs/performance.md, sixty-fifth
    // round). An earlier month's arm is empty then (its records of the value come before the threshold).
    const tied =
      oneValue && monthIndex > start.threshold.monthIndex
        ? after.where(sql<boolean>`${sql.ref(term.column)} = ${thresholdValue}`)
        : after;
    return tied.select(armColumns(range, carried)).orderBy(seekOrder(range)).limit(reach);
  };
  const arms = months.flatMap((month, monthIndex) =>
    rangeParts(month).map((monthRange) => monthArm(monthRange, monthIndex)),
  ) as unknown as SelectQueryBuilder<Database, keyof Database, object>[];
  return mergedArms(db, months[0]!.range.dialect, arms, columns, order, limit, start.skip);
}

/** The first `limit` records of the months' order, one arm a month, as monthsPageAfter reads those after a point. */
export function monthsFirstPage(
  db: Kysely<Database>,
  months: readonly MonthSeekRange[],
  columns: readonly { column: string; as: string }[],
  order: RawBuilder<unknown>,
  limit: number,
  carried: readonly string[] = [],
): ReturnType<typeof mergedArms> {
  const arms = months.map(({ range }) =>
    range.range.select(armColumns(range, carried)).orderBy(seekOrder(range)).limit(limit),
  ) as unknown as SelectQueryBuilder<Database, keyof Database, object>[];
  return mergedArms(db, months[0]!.range.dialect, arms, columns, order, limit, 0);
}
