// Deep pages of one month's list without reading every skipped key. SQLite and PostgreSQL walk an OFFSET one index
// entry at a time (B-trees keep no subtree counts, so neither can seek to a position): 1.2-1.8 ms at offset 40,000
// of a full month, growing with the offset. A bookmark is the (sort value, key) of every STEP-th record in one
// order of one month; a page at offset O starts after the nearest bookmark before it and skips fewer than STEP
// keys, through two index range seeks (the rest of the bookmark's tie, then the values after it).
// Bookmarks are found on demand, hopping STEP keys at a time from the last one known, one statement per hop. A page
// a few hops past the last bookmark waits for those hops (a walk from the start: about one per page). On PostgreSQL a
// page further away does not: it starts from the last bookmark known (or the start) and skips the rest in its own
// statement, as a plain OFFSET would, while the hops up to it run in the background; waiting for them made the first
// deep page of an order several times the plain OFFSET, one round trip per hop (docs/performance.md, twelfth and
// thirteenth rounds). On SQLite a page waits for every hop (waitedHopsFor says why). Bookmarks are kept per process
// in an LRU keyed by data version, month and order: a load or drop changes the version, so no bookmark is used on
// data it was not read from.
// A record key may span columns (a link's asn0, asn1): the seek then compares them as one row value, which both
// dialects match against the index's consecutive key columns.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import {
  createQueryId,
  sql,
  type CompiledQuery,
  type Expression,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
} from 'kysely';
import { toCount, type Database, type DialectName } from '@asrank/db';

/** Keys between two bookmarks of an `asns` or `organizations` order: a deep page skips fewer than this many keys. */
export const DEFAULT_BOOKMARK_STEP = 256;
/**
 * The same step on SQLite. Since a page of the two list orders reads its rows from the order's index (migration 013),
 * the keys it skips after its bookmark (128 on average at 256) are a fair part of its cost on the service's thread:
 * at 64, W2 answered 4,945 / 4,930 req/s against 4,499 / 4,692, its CPU 204 µs a request against 214-224. A walk to
 * a deep page hops four times as often but skips the same keys in all, and its first page cost what it did. On
 * PostgreSQL a hop is a round trip and the server skips keys cheaply: W2 read the same at both steps, so it keeps 256
 * (docs/performance.md, forty-fifth round). An order holds ~1,250 bookmarks of a full month at 64.
 */
export const SQLITE_BOOKMARK_STEP = 64;
/**
 * Keys between two bookmarks of a month's links. Finding a bookmark costs a statement, skipping a key a few tens of
 * nanoseconds: a deep link page reads 100-1,000 full rows, so at 1,024 it costs what it did at 256 (1.3 ms in process
 * up to offset 400,000 of the real month), and finding the bookmarks up to offset 200,000 takes a quarter of the
 * statements (SQLite 42 -> 14 ms, PostgreSQL 590 -> 170 ms). The `asns` page of the W2 workload (~1 ms) lost 7% of
 * its throughput at 1,024, so the lists keep 256, 64 on SQLite (docs/performance.md, thirteenth and forty-fifth
 * rounds).
 */
export const DEFAULT_LINK_BOOKMARK_STEP = 1024;
/**
 * Orders (month x range x sort) remembered; each holds one bookmark per step records (~300-500 for a full month at
 * 256, ~1,250-1,600 at SQLite's 64).
 */
const MAX_ORDERS = 512;
/** Hops a page waits for (a walk of 1,000-key pages needs one per page); beyond, they run in the background. */
export const DEFAULT_WAITED_HOPS = 4;

/**
 * The hops a page waits for on a dialect. On PostgreSQL a hop is a round trip (~0.8 ms) during which the service's
 * thread is free: a far page answers with the plain OFFSET and leaves the hops to the background. On SQLite a hop
 * is CPU on the service's own thread and costs about what skipping its keys would (~60 µs per 1,024 keys): a page
 * waits for every hop, once. Left to the background there, the far pages answered meanwhile each paid the plain
 * OFFSET and shared the thread with the hops (four far pages in a row: 55-62 ms waiting, 140-145 ms not).
 */
export function waitedHopsFor(dialect: DialectName): number {
  return dialect === 'sqlite' ? Number.MAX_SAFE_INTEGER : DEFAULT_WAITED_HOPS;
}

/** The bookmark step of the `asns` and `organizations` orders on a dialect (SQLITE_BOOKMARK_STEP says why). */
export function bookmarkStepFor(dialect: DialectName): number {
  return dialect === 'sqlite' ? SQLITE_BOOKMARK_STEP : DEFAULT_BOOKMARK_STEP;
}

/**
 * The sort column of an order (a non-null column; text compares byte-wise on both dialects, PostgreSQL's text columns
 * being `collate "C"`), then the record key ascending; null: the key alone.
 */
export interface SeekTerm {
  column: string;
  direction: 'asc' | 'desc';
  /**
   * Order as `nulls last`, as the column's index is declared (the range holds no null, but PostgreSQL serves an order
   * from an index only when the nulls' place matches too).
   */
  nullsLast?: boolean;
  /**
   * The order descends in the column while its index ascends, and the key ascends within each value (links by
   * `-asn0`): on SQLite a hop then sorts each value's records (0.94 ms a hop of 1,024 links against 0.14), so an
   * extension there reads the month's bookmarks from each value's count instead (findFromValueCounts).
   */
  countedByValue?: boolean;
}

export interface Bookmark {
  value: unknown;
  /** The record key's values, one per key column. */
  key: readonly unknown[];
}

interface OrderBookmarks {
  /** bookmarks[i] is the record at position (i + 1) * step - 1 of the order. */
  bookmarks: Bookmark[];
  /** The order ends before the next bookmark's position. */
  complete: boolean;
  /** Extensions of one order run one after another, so concurrent pages never hop the same stretch twice. */
  extending: Promise<void>;
  /** A background extension is queued or running; it goes on until `backgroundTarget` is known. */
  inBackground: boolean;
  backgroundTarget: number;
}

export interface PageBookmarksOptions {
  /** Keys between bookmarks of an `asns` or `organizations` order (tests use a small step to cross many). */
  step?: number;
  /** Keys between bookmarks of a month's links. */
  linkStep?: number;
  maxOrders?: number;
  /** Hops a page waits for before it starts from the last bookmark and leaves the rest to the background. */
  waitedHops?: number;
}

/** The bookmarks of every order a process has paged deeply, bounded in number of orders. */
export class PageBookmarks {
  readonly step: number;
  readonly linkStep: number;
  readonly waitedHops: number;
  /** Set when the service closes: background extensions stop at their next hop. */
  stopped = false;
  private readonly orders: LRUCache<string, OrderBookmarks>;

  constructor({
    step = DEFAULT_BOOKMARK_STEP,
    linkStep = DEFAULT_LINK_BOOKMARK_STEP,
    maxOrders = MAX_ORDERS,
    waitedHops = DEFAULT_WAITED_HOPS,
  }: PageBookmarksOptions = {}) {
    for (const [name, value] of [
      ['step', step],
      ['link step', linkStep],
    ] as const)
      if (!Number.isInteger(value) || value < 2)
        throw new Error(`bookmark ${name} must be an integer >= 2, got ${value}`);
    if (!Number.isInteger(waitedHops) || waitedHops < 0)
      throw new Error(`waited hops must be an integer >= 0, got ${waitedHops}`);
    this.step = step;
    this.linkStep = linkStep;
    this.waitedHops = waitedHops;
    this.orders = new LRUCache({ max: maxOrders });
  }

  /** Resolves once every extension queued so far has ended (tests; a closing service). */
  async settled(): Promise<void> {
    await Promise.all([...this.orders.values()].map((order) => order.extending));
  }

  /** Stops the background extensions at their next hop and waits for them (a closing service). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.settled();
  }

  /** Bookmarks held over every order (the service's memory for them; tests see that deep pages use them). */
  count(): number {
    let total = 0;
    for (const order of this.orders.values()) total += order.bookmarks.length;
    return total;
  }

  /** True once a page of this order has asked for bookmarks (in this data version: the scope names it). */
  holds(scope: string): boolean {
    return this.orders.has(scope);
  }

  /** One order's bookmarks; `scope` names the data version, month, range and order. */
  order(scope: string): OrderBookmarks {
    let found = this.orders.get(scope);
    if (!found) {
      found = {
        bookmarks: [],
        complete: false,
        extending: Promise.resolve(),
        inBackground: false,
        backgroundTarget: -1,
      };
      this.orders.set(scope, found);
    }
    return found;
  }
}

type RangeQuery = SelectQueryBuilder<Database, 'asns' | 'organizations' | 'asn_links', object>;

export interface SeekRange {
  db: Kysely<Database>;
  dialect: DialectName;
  /** The range's records: one month of the list table, with no filter but the range's own (`rank is not null`). */
  range: RangeQuery;
  /** The record key's columns, compared in this order (numbers or byte-ordered text, the same on both dialects). */
  keyColumns: readonly string[];
  term: SeekTerm | null;
  /**
   * With no term: a column every record of the range holds null in (links without a path count), named first in the
   * order. PostgreSQL derives no order from an `is null` index condition, so by the key alone it read such a range
   * through the primary key and each record's row (the generated month's 408,577 links without a path count: 155 ms
   * against 81 from the column's covering index, and every hop 1,024 rows); SQLite reads it from that index either way.
   */
  nullLead?: SeekTerm;
  bookmarks: PageBookmarks;
  /** Keys between this order's bookmarks (the same for every page of the order). */
  step: number;
  scope: string;
  /**
   * Each value's number of records in the range (any order, values numbers), where the store keeps them: an order
   * `countedByValue` reads them instead of counting the range's records by value (findFromValueCounts). Null when the
   * kept counts do not add up to the range's records (a month whose links' ends lack a record), which are then counted.
   */
  keptValueCounts?: () => Promise<readonly { value: number; n: number }[] | null>;
}

/** One column of an order, as its index declares it. */
export function termOrder(term: SeekTerm): RawBuilder<unknown> {
  const direction = term.direction === 'desc' ? sql`desc` : sql`asc`;
  const nulls = term.nullsLast ? sql` nulls last` : sql``;
  return sql`${sql.ref(term.column)} ${direction}${nulls}`;
}

/** The range's order: its sort column (or its null lead), then the record key ascending. */
export function seekOrder(range: Pick<SeekRange, 'keyColumns' | 'term' | 'nullLead'>): RawBuilder<unknown> {
  const key = sql.join(range.keyColumns.map((column) => sql`${sql.ref(column)} asc`));
  const lead = range.term ?? range.nullLead;
  return lead ? sql`${termOrder(lead)}, ${key}` : key;
}

/** `key > from` over the record key's columns (a row value when there are several). */
function keyAfter(range: Pick<SeekRange, 'keyColumns'>, from: readonly unknown[]): RawBuilder<boolean> {
  const columns = range.keyColumns.map((column) => sql.ref(column));
  if (columns.length === 1) return sql<boolean>`${columns[0]} > ${from[0]}`;
  return sql<boolean>`(${sql.join(columns)}) > (${sql.join(from.map((value) => sql`${value}`))})`;
}

/** The range's records after `from` in the order, as queries whose results follow one another. */
export function rangesAfter(
  range: Pick<SeekRange, 'range' | 'keyColumns' | 'term' | 'dialect'>,
  from: Bookmark | null,
  { tieByEquality = range.dialect !== 'postgres' }: { tieByEquality?: boolean } = {},
): RangeQuery[] {
  if (!from) return [range.range];
  if (!range.term) return [range.range.where(keyAfter(range, from.key))];
  const column = sql.ref(range.term.column);
  const after = range.term.direction === 'desc' ? sql`<` : sql`>`;
  // PostgreSQL drops a column compared with `=` from the order its subquery's rows come in, so the Merge Append over
  // the parts sorted the tie's rows again (up to 355 of them, a third of a page's time on the server); compared as a
  // closed range, the column stays in the order and the index scan feeds the merge as it is (docs/performance.md,
  // forty-fifth round). A statement planned once, generically, cannot tell a closed range of one value from a wide
  // one: where its index scan gives the order only with a sort (the months' merge, whose arms read the narrow
  // ascending index backwards), it sorted the bookmark's whole tie of the month to keep the first rows (15,538 rows,
  // 14 ms, for a page of 237); there `tieByEquality` keeps the tie's rows in key order from the index itself.
  const tie = tieByEquality
    ? sql<boolean>`${column} = ${from.value}`
    : sql<boolean>`${column} >= ${from.value} and ${column} <= ${from.value}`;
  return [
    range.range.where(tie).where(keyAfter(range, from.key)),
    range.range.where(sql<boolean>`${column} ${after} ${from.value}`),
  ];
}

/** A bookmark as a hop reads it: its sort value and one `key_i` column per key column. */
type BookmarkRow = Record<string, unknown>;

function bookmarkColumns(range: SeekRange) {
  return [
    (range.term ? sql.ref(range.term.column) : sql`null`).as('value'),
    ...range.keyColumns.map((column, index) => sql`${sql.ref(column)}`.as(`key_${index}`)),
  ];
}

function bookmarkOf(range: SeekRange, row: BookmarkRow): Bookmark {
  return { value: row.value, key: range.keyColumns.map((_column, index) => row[`key_${index}`]) };
}

/** Stand-ins bound where a hop's values go, so each hop statement is compiled once per extension, not per hop. */
const AFTER_VALUE = Symbol('after value');
const SKIP = Symbol('skip');

/** A hop's statements, compiled once: the record `skip` places into each part, and a part's bounded count. */
interface HopStatements {
  /** The stand-ins of the bookmark's key values, one per key column. */
  afterKeys: symbol[];
  fromStart: { find: CompiledQuery<BookmarkRow>; count: CompiledQuery<{ n: number | string }> }[];
  afterBookmark: { find: CompiledQuery<BookmarkRow>; count: CompiledQuery<{ n: number | string }> }[];
}

function hopStatements(range: SeekRange): HopStatements {
  const afterKeys = range.keyColumns.map((column) => Symbol(`after ${column}`));
  const compileParts = (parts: RangeQuery[]) =>
    parts.map((part) => ({
      find: part
        .select(bookmarkColumns(range))
        .orderBy(seekOrder(range))
        .limit(1)
        .offset(SKIP as unknown as number)
        .compile() as CompiledQuery<BookmarkRow>,
      count: range.db
        .selectFrom(
          part
            .select(sql`1`.as('one'))
            .limit(SKIP as unknown as number)
            .as('part'),
        )
        .select((eb) => eb.fn.countAll().as('n'))
        .compile() as CompiledQuery<{ n: number | string }>,
    }));
  return {
    afterKeys,
    fromStart: compileParts(rangesAfter(range, null)),
    // The bookmark's tie by equality, as hopsFromStart reads it: each part is its own statement, so no merge loses the
    // order by it. As a closed range, PostgreSQL read a month's ASNs of cone size 1 from the narrow ascending index,
    // backwards, and sorted the 35,000 after the bookmark to keep one (20-27 ms a hop, 0.1 by equality; sixty-seventh
    // round), even planned for the hop's own values.
    afterBookmark: compileParts(
      rangesAfter(range, { value: AFTER_VALUE, key: afterKeys }, { tieByEquality: true }),
    ),
  };
}

async function runBound<Row>(
  db: Kysely<Database>,
  afterKeys: readonly symbol[],
  compiled: CompiledQuery<Row>,
  from: Bookmark | null,
  skip: number,
): Promise<Row[]> {
  const parameters = compiled.parameters.map((parameter) => {
    if (parameter === AFTER_VALUE) return from?.value;
    if (parameter === SKIP) return skip;
    const keyIndex = afterKeys.indexOf(parameter as symbol);
    return keyIndex >= 0 ? from?.key[keyIndex] : parameter;
  });
  return (await db.executeQuery<Row>({ ...compiled, parameters, queryId: createQueryId() })).rows;
}

/** The record `skip` places after `from` (or from the start), or null past the end. */
async function hop(
  range: SeekRange,
  statements: HopStatements,
  from: Bookmark | null,
  skip: number,
): Promise<Bookmark | null> {
  let remaining = skip;
  for (const part of from ? statements.afterBookmark : statements.fromStart) {
    const [found] = await runBound(range.db, statements.afterKeys, part.find, from, remaining);
    if (found) return bookmarkOf(range, found);
    // This part holds at most `remaining` records: count them (bounded) and go on in the next part.
    const [counted] = await runBound(range.db, statements.afterKeys, part.count, from, remaining);
    remaining -= toCount(counted?.n);
  }
  return null;
}

/** Queues a run after the order's earlier extensions; a failed hop (statement timeout) fails only its own run. */
function queueExtension(order: OrderBookmarks, run: () => Promise<void>): Promise<void> {
  const queued = order.extending.then(run);
  order.extending = queued.catch(() => undefined);
  return queued;
}

/**
 * Bookmarks missing before an extension on PostgreSQL reads them all in one statement from the start of the order
 * instead of one round trip a hop, as long as that re-reads no more than it adds. Every month of an `asns` order over
 * 12 generated months, 3,750 hops: 3.7-4.3 s, one statement a month: ~0.3 s (docs/performance.md, fifty-fourth
 * round). On SQLite a hop is no round trip, and numbering a month of ASNs (55 ms) costs about its hops.
 */
export const BULK_MIN_HOPS = 8;

/**
 * The bookmarks up to `target` (or the order's end), read from the start of the order in one statement, as hops
 * (hopsFromStart) where the plan of a hop sorts no more than a hop's records, else numbered (numberedFromStart).
 */
async function findFromStart(range: SeekRange, order: OrderBookmarks, target: number): Promise<void> {
  const wanted = target + 1;
  const hops = hopsFromStart(range, wanted);
  const read =
    pageBookmarksTuning.bulkRead === 'planned'
      ? (await sortsBounded(range.db, hops))
        ? 'hops'
        : 'numbered'
      : pageBookmarksTuning.bulkRead;
  const rows = read === 'hops' ? (await hops.execute(range.db)).rows : await numberedFromStart(range, wanted);
  const found = [...rows].sort((a, b) => Number(a.ordinal) - Number(b.ordinal));
  if (found.length > order.bookmarks.length) order.bookmarks = found.map((row) => bookmarkOf(range, row));
  if (found.length < wanted) order.complete = true;
}

type NumberedBookmarkRow = BookmarkRow & { ordinal: number | string };

/**
 * The first `wanted` bookmarks as a recursive query whose every step is a hop (the record `step` places after the
 * last bookmark, through the order's index): the server skips the keys as a plain OFFSET does and hands back one row
 * a hop. Against numbering every row (numberedFromStart), whose window works on each of them on top: a generated
 * month's links in rank order 220 -> 133 ms, by asn0 198 -> 122; its ASNs by cone size 64 -> 33 (docs/performance.md,
 * sixty-sixth round). The outer LIMIT stops the recursion once `wanted` are read. Each hop reads the last bookmark's
 * tie by equality (rangesAfter): as a closed range of a value it is planned for any value, and a month's 44,120 ASNs
 * of one ASN in their cone were read backwards and sorted at every hop (5.5 s).
 */
function hopsFromStart(range: SeekRange, wanted: number): RawBuilder<NumberedBookmarkRow> {
  const first = range.range
    .select([...bookmarkColumns(range), sql<number>`1`.as('ordinal')])
    .orderBy(seekOrder(range))
    .limit(1)
    .offset(range.step - 1);
  // The next hop after the last one's bookmark, read as a page of one record `step - 1` records after it.
  const last: Bookmark = {
    value: sql.ref('hops.value'),
    key: range.keyColumns.map((_column, index) => sql.ref(`hops.key_${index}`)),
  };
  const next = range.db
    .selectFrom(pageAfter(range, last, 1, range.step - 1, [], { tieByEquality: true }).as('hop'))
    .select([...bookmarkColumns(range), sql<number>`${sql.ref('hops.ordinal')} + 1`.as('ordinal')]);
  return sql<NumberedBookmarkRow>`with recursive hops as ((${first}) union all
    (select next.* from hops cross join lateral (${next}) as next)) select * from hops limit ${wanted}`;
}

/**
 * The first `wanted` bookmarks by numbering the order's rows and keeping every step-th. No ORDER BY: the numbering
 * streams from the order's index and the LIMIT stops it; the rows are sorted by the caller. A frame of rows, not the
 * default range of peers, so the window never compares a row with the one before it (a month's ASNs by descending
 * source: 42 -> 34 ms for the statement).
 */
async function numberedFromStart(range: SeekRange, wanted: number): Promise<NumberedBookmarkRow[]> {
  const numbered = range.range.select([
    ...bookmarkColumns(range),
    sql<number>`row_number() over (order by ${seekOrder(range)} rows unbounded preceding)`.as('ordinal'),
  ]);
  return (await range.db
    .selectFrom(numbered.as('numbered'))
    .selectAll()
    .where(sql<boolean>`${sql.ref('ordinal')} % ${range.step} = 0`)
    .limit(wanted)
    .execute()) as NumberedBookmarkRow[];
}

/**
 * Whether every sort in the statement's plan sorts a LIMIT's rows, at most a hop's. Where no index gives the order
 * as it is (a descending order whose index ascends in the key, or places nulls otherwise), each hop's plan sorts the
 * next value's records whole (Incremental Sort): a month's ASNs by descending source, five values, sorted 13,000 at
 * every hop (7.2 s a month against 0.3 numbered). Planning it costs a few milliseconds, once per order and month.
 */
async function sortsBounded(db: Kysely<Database>, statement: RawBuilder<unknown>): Promise<boolean> {
  const { rows } = await sql<{ 'QUERY PLAN': unknown }>`explain (format json) ${statement}`.execute(db);
  const [explained] = rows[0]!['QUERY PLAN'] as { Plan: PlanNode }[];
  return explained !== undefined && sortsOnlyLimits(explained.Plan);
}

/** Whether every sort of a plan (as `explain (format json)` gives it) sorts the rows of a LIMIT right under it. */
export function sortsOnlyLimits(node: PlanNode): boolean {
  const children = node.Plans ?? [];
  if (node['Node Type'] === 'Incremental Sort') return false;
  if (node['Node Type'] === 'Sort' && children[0]?.['Node Type'] !== 'Limit') return false;
  return children.every(sortsOnlyLimits);
}

export interface PlanNode {
  'Node Type': string;
  Plans?: PlanNode[];
}

export const pageBookmarksTuning = {
  /**
   * Hops before an extension on SQLite reads every bookmark of a `countedByValue` order from its values' counts: they
   * cost a pass over the month (~170-270 ms for a generated month's 500,000 links), about as many sorting hops.
   */
  countedMinHops: 192,
  /**
   * Milliseconds a page waiting for its bookmarks on SQLite holds the thread before it lets the event loop turn (and
   * the key lookups of findFromValueCounts, waited for or not). Each statement runs on the service's thread there,
   * and the hops' awaits yield to promises only: the first deep page of an order over twelve generated months (1-4 s
   * of hops) held every other request, a point lookup included, that long. Between hops it now lets them in every few
   * milliseconds; a turn costs the page a few microseconds.
   */
  heldTurnMs: 5,
  /**
   * How an extension on PostgreSQL reads its missing bookmarks in one statement: as hops where their plan sorts no
   * more than a hop's records, else numbered (findFromStart); tests force each.
   */
  bulkRead: 'planned' as 'planned' | 'hops' | 'numbered',
};

/** Lets the event loop turn once the thread has been held `heldTurnMs` since the last turn (a waiting page, SQLite). */
class HeldTurn {
  private since = performance.now();

  async yieldIfHeld(): Promise<void> {
    if (performance.now() - this.since < pageBookmarksTuning.heldTurnMs) return;
    await nextTurn();
    this.since = performance.now();
  }
}

/**
 * Every bookmark of the range, from the count of records of each value of the term's column, in the order: a bookmark
 * falls in the value whose running count first reaches its position, and its key is the one at the rest of the
 * position within that value, read from the index, which ascends in the value's keys. For one key column.
 */
async function findFromValueCounts(range: SeekRange, order: OrderBookmarks, held: HeldTurn): Promise<void> {
  const term = range.term!;
  const keyColumn = sql.ref(range.keyColumns[0]!);
  const counts = (await range.keptValueCounts?.()) ?? (await countedValues(range));
  const holding = valuesHolding(counts, term.direction, range.step);
  // Compiled once for the month's ~500 bookmarks (built per bookmark, they cost 0.8 s over 12 generated months).
  const keyAt = range.range
    .select(keyColumn.as('key'))
    .where(sql<boolean>`${sql.ref(term.column)} = ${AFTER_VALUE}`)
    .orderBy(keyColumn)
    .limit(1)
    .offset(SKIP as unknown as number)
    .compile() as CompiledQuery<{ key: unknown }>;
  const bookmarks: Bookmark[] = [];
  for (const { value, n, through: upTo } of holding) {
    const before = upTo - n;
    for (
      let position = (Math.floor(before / range.step) + 1) * range.step;
      position <= upTo;
      position += range.step
    ) {
      await held.yieldIfHeld();
      const [found] = await runBound(range.db, [], keyAt, { value, key: [] }, position - before - 1);
      bookmarks.push({ value, key: [found!.key] });
    }
  }
  if (bookmarks.length >= order.bookmarks.length) order.bookmarks = bookmarks;
  order.complete = true;
}

interface ValueHolding {
  value: number;
  n: number;
  /** The records of this value and every one before it in the order. */
  through: number;
}

/**
 * The values of `counts` a bookmark falls in (their running count passes a multiple of the step), in the order. A
 * month's ~40,000-80,000 values, sorted here: as fast as SQLite's window over the same counts (148 against 151 ms a
 * generated month with the counting), and the same for counts the store keeps. Values are numbers (the orders
 * `countedByValue` are by an ASN).
 */
function valuesHolding(
  counts: readonly { value: number; n: number }[],
  direction: 'asc' | 'desc',
  step: number,
): ValueHolding[] {
  const ordered = [...counts].sort((a, b) => (direction === 'desc' ? b.value - a.value : a.value - b.value));
  const holding: ValueHolding[] = [];
  let through = 0;
  for (const { value, n } of ordered) {
    const before = through;
    through += n;
    if (Math.floor(through / step) > Math.floor(before / step)) holding.push({ value, n, through });
  }
  return holding;
}

/** The range's records counted by value. */
async function countedValues(range: SeekRange): Promise<{ value: number; n: number }[]> {
  const column = sql.ref(range.term!.column);
  const rows = await range.range
    .select([column.as('value'), sql<number>`count(*)`.as('n')])
    .groupBy(column)
    .execute();
  return rows.map((row) => ({ value: Number(row.value), n: Number(row.n) }));
}

/** Finds the next bookmark after the last one known, or marks the order complete. */
async function findNext(range: SeekRange, order: OrderBookmarks, statements: HopStatements): Promise<void> {
  // From the start the next bookmark is at position step - 1; after one at p, at p + step: step - 1 further.
  const next = await hop(range, statements, order.bookmarks.at(-1) ?? null, range.step - 1);
  if (next) order.bookmarks.push(next);
  else order.complete = true;
}

/**
 * Finds bookmarks until the one at `target()` is known or the order ends. In the background each hop first waits
 * for the event loop's next turn, so the pages answered meanwhile (SQLite blocks the thread for a statement) are
 * never held for more than one hop, and a closing service stops it. A page that waits for its bookmarks on SQLite
 * lets the loop turn every `heldTurnMs` (HeldTurn).
 */
async function findBookmarks(
  range: SeekRange,
  order: OrderBookmarks,
  target: () => number,
  background: boolean,
): Promise<void> {
  if (order.bookmarks.length > target() || order.complete) return;
  const missing = target() + 1 - order.bookmarks.length;
  // Before each statement: in the background a turn of the event loop, and a stop once the service closes; a waiting
  // page on SQLite lets a turn in every few milliseconds. True when the extension is to stop.
  const held = new HeldTurn();
  const stoppedAfterTurn = async (): Promise<boolean> => {
    if (background) await nextTurn();
    else if (range.dialect === 'sqlite') await held.yieldIfHeld();
    return background && range.bookmarks.stopped;
  };
  if (
    range.dialect === 'sqlite' &&
    range.term?.countedByValue &&
    missing >= pageBookmarksTuning.countedMinHops
  ) {
    if (await stoppedAfterTurn()) return;
    return findFromValueCounts(range, order, held);
  }
  if (range.dialect === 'postgres' && missing >= BULK_MIN_HOPS && missing >= order.bookmarks.length) {
    if (await stoppedAfterTurn()) return;
    await findFromStart(range, order, target());
    if (order.bookmarks.length > target() || order.complete) return;
  }
  const statements = hopStatements(range);
  while (order.bookmarks.length <= target() && !order.complete) {
    if (await stoppedAfterTurn()) return;
    await findNext(range, order, statements);
  }
}

/** Finds bookmarks until `index` is known or the order ends; the page waits for it. */
function extendTo(range: SeekRange, order: OrderBookmarks, index: number): Promise<void> {
  return queueExtension(order, () => findBookmarks(range, order, () => index, false));
}

/**
 * The order's bookmarks once the one at `index` is known or the order is complete (a page over several months waits
 * for every month's, monthsBookmarks.ts).
 */
export async function bookmarksThrough(
  range: SeekRange,
  index: number,
): Promise<{ bookmarks: readonly Bookmark[]; complete: boolean }> {
  const order = range.bookmarks.order(range.scope);
  if (order.bookmarks.length <= index && !order.complete) await extendTo(range, order, index);
  return order;
}

/**
 * Finds bookmarks until `index` is known, without a page waiting. A later far page only moves the target of an
 * extension already under way.
 */
function extendInBackground(range: SeekRange, order: OrderBookmarks, index: number): void {
  order.backgroundTarget = Math.max(order.backgroundTarget, index);
  if (order.inBackground) return;
  order.inBackground = true;
  void queueExtension(order, () => findBookmarks(range, order, () => order.backgroundTarget, true))
    .catch(() => undefined)
    .finally(() => {
      order.inBackground = false;
    });
}

/** Where a page starts: after the bookmark `from`, skipping `skip` records of the order. */
export interface PageStart {
  from: Bookmark;
  skip: number;
}

/**
 * Where the page at `offset` of the range starts from the nearest bookmark before it, finding bookmarks up to it first
 * (or leaving them to the background, see waitedHopsFor); null when the offset is less than one step deep or no
 * bookmark is known yet (the caller's plain OFFSET is then as cheap).
 */
export async function bookmarkStart(range: SeekRange, offset: number): Promise<PageStart | null> {
  const { step } = range;
  if (offset < step) return null;
  const order = range.bookmarks.order(range.scope);
  const wanted = Math.floor(offset / step) - 1;
  const missing = wanted - (order.bookmarks.length - 1);
  if (missing > 0 && !order.complete) {
    // A page never waits behind a background extension: it may be reaching far past this page.
    if (missing <= range.bookmarks.waitedHops && !order.inBackground) await extendTo(range, order, wanted);
    else extendInBackground(range, order, wanted);
  }
  const index = Math.min(wanted, order.bookmarks.length - 1);
  if (index < 0) return null;
  return { from: order.bookmarks[index]!, skip: offset - (index + 1) * step };
}

/**
 * A page's LIMIT or skip: a number, or in a statement compiled once (compiledLookups.ts) a placeholder bound at each
 * run or a literal written into it.
 */
export type PageBound = number | Expression<number>;

/**
 * The (date, key columns) of `limit` records of the range after `from`, skipping `skip`, as a subquery to read the
 * page's rows with. `from` may hold a compiled statement's placeholders.
 */
export function keyPageAfter(
  range: Omit<SeekRange, 'bookmarks' | 'step' | 'scope'>,
  from: Bookmark,
  limit: PageBound,
  skip: PageBound,
): Expression<unknown> {
  return range.db
    .selectFrom(pageAfter(range, from, limit, skip).as('page'))
    .select([
      sql.ref('page.date').as('date'),
      ...range.keyColumns.map((column) => sql.ref(`page.${column}`).as(column)),
    ]);
}

/**
 * One page of the range after `from`, in the range's order: its (date, key columns, sort column) and the `carried`
 * columns. keyPageAfter reads the page's keys of it; a page whose columns the order's index carries reads its rows.
 */
export function pageAfter(
  range: Omit<SeekRange, 'bookmarks' | 'step' | 'scope'>,
  from: Bookmark,
  limit: PageBound,
  skip: PageBound,
  carried: readonly string[] = [],
  tie: { tieByEquality?: boolean } = {},
) {
  const names = new Set(['date', ...range.keyColumns]);
  if (range.term) names.add(range.term.column);
  if (range.nullLead) names.add(range.nullLead.column);
  for (const column of carried) names.add(column);
  // Plain column names, not aliases: the result's columns are named as the table's.
  const columns = [...names] as never[];
  // The parts are consecutive stretches of the order, each read in index order. SQLite merges them as they come
  // (MERGE UNION ALL) and stops at the page's end. PostgreSQL appended and sorted both stretches whole, so there
  // each part is first cut to the page's reach by its own LIMIT (Merge Append of index scans); SQLite would sort each
  // such part again (12% slower).
  const reach =
    typeof limit === 'number' && typeof skip === 'number' ? limit + skip : sql<number>`${limit} + ${skip}`;
  const [first, ...rest] = rangesAfter(range, from, tie).map((part, partIndex) => {
    const ordered = part.select(columns);
    if (range.dialect === 'sqlite') return ordered;
    return range.db
      .selectFrom(ordered.orderBy(seekOrder(range)).limit(reach).as(`part${partIndex}`))
      .selectAll() as unknown as typeof ordered;
  });
  return rest
    .reduce((compound, part) => compound.unionAll(part), first!)
    .orderBy(seekOrder(range))
    .limit(limit)
    .offset(skip);
}

/**
 * The (date, key columns) of one page of the range, as a subquery to read the page's rows with: from the nearest bookmark
 * when the offset is at least one step deep, else null (the caller's plain OFFSET is then as cheap).
 */
export async function bookmarkedKeyPage(
  range: SeekRange,
  limit: number,
  offset: number,
): Promise<Expression<unknown> | null> {
  const start = await bookmarkStart(range, offset);
  return start ? keyPageAfter(range, start.from, limit, start.skip) : null;
}
