// One page of a root list (`asns`, `organizations`): which query form reads it, shared by both lists.
// - The default order (rank, unranked last) of one month: two index ranges of (date, rank, key), the ranked rows
//   then the unranked ones (nullsLastPage), instead of sorting the month.
// - A client sort over a whole month, or the ranges above: the page's keys first, from the covering
//   (date, column, key) index alone, then only the page's rows. An OFFSET over full rows reads every skipped row:
//   30-40 ms at offset 40,000 of the real month on SQLite and 85 ms on PostgreSQL, 2-10 ms this way. When that
//   index carries every column the page shows (`indexCarries`), the rows are read from it directly, none by key.
// - A client sort over several months: the same, its keys from one arm per month when the page is shallow and a
//   month's index serves the order (monthArms.ts).
// - Anything else (a key list or a name filter with a sort, several months in the default order, or deep in an order
//   no bookmarks serve): one ORDER BY ... OFFSET.
// A `seen` filter is named in the bookmarks' scopes and the kept totals (NamedListFilter), so it takes the forms above.
// A page at least one bookmark step deep into one month's list, in the default order or one non-null sort
// column, starts from the nearest bookmark instead of skipping every key before it (pageBookmarks.ts); a deep page
// over several months in one such column, or by the key, from every month's bookmarks merged (monthsBookmarks.ts).
import {
  sql,
  type Compilable,
  type Expression,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
} from 'kysely';
import type { Database, DialectName, NameSearchTable } from '@asrank/db';
import type { SortKey } from '@asrank/domain';
import type { AsrankContext } from './context';
import { countRows, monthTotals } from './listTotals';
import {
  bookmarkStart,
  keyPageAfter,
  pageAfter,
  type Bookmark,
  type PageBookmarks,
  type PageBound,
  type SeekTerm,
} from './pageBookmarks';
import { compiledLimit } from './compiledLookups';
import { mergedArms, monthArmsTuning, readsByMonthArms, servedByIndex } from './monthArms';
import { monthsBookmarkStart, monthsPageAfter, type MonthsCounter } from './monthsBookmarks';
import { nameOfManyMatches, type NameSearchContext } from './nameSearch';
import { byPrimaryKey, nullsLastPage, orderByList, sortKeysNamed, type SortColumn } from './sql';

type ListTable = 'asns' | 'organizations';
type ListQuery<TB extends ListTable> = SelectQueryBuilder<Database, TB, object>;
/** A row statement, unrun: listPage runs it, or compiles it once (compiledLookups.ts). */
type RowsQuery = Compilable<Record<string, unknown>> & { execute(): Promise<unknown[]> };

export interface ListPageSpec<TB extends ListTable, Row> {
  db: Kysely<Database>;
  dialect: DialectName;
  table: TB;
  /** The record's key within a month. */
  key: TB extends 'asns' ? 'asn' : 'org_id';
  /** The list's records: the table filtered to the selected month(s) and the client's filters. */
  query: ListQuery<TB>;
  /**
   * Selects the row columns of a query. `qualified`: the query's own references name its table (`asns.date`), so the
   * reader may join another table (an ASN page joins its organizations).
   */
  selectRows: (rows: ListQuery<TB>, qualified: boolean) => RowsQuery;
  /** The list's rows from what a statement of selectRows (with the same `qualified`) returned. */
  rowsOf: (result: Record<string, unknown>[], qualified: boolean) => Row[];
  page: { first: number; offset: number };
  /** The client's sort keys (parsed), and the list's sortable columns and order. */
  keys: readonly SortKey[];
  columns: Readonly<Record<string, SortColumn>>;
  order: { defaults: readonly SortKey[]; unique: readonly SortKey[] };
  /** One month and no filter on the keys: the default order may be read as rank ranges. */
  singleMonth: boolean;
  /** A key list or a name filter: a client sort is then read with one ORDER BY. */
  filtered: boolean;
  /** The key list alone (`asns: [...]`): the rows are a few key lookups. */
  keyList: boolean;
  /**
   * One month and no filter but a named one (monthBookmarks): deep pages may start from bookmarks; `scope` names the
   * data version, the month and the filter.
   */
  bookmarks: { cache: PageBookmarks; scope: () => Promise<string> } | null;
  /**
   * One month and no filter: a page of a sorted list (its keys, then its rows) runs SQL compiled once per shape,
   * with its month, bookmark and page bound at each run, as the point lookups do (compiledLookups.ts; on PostgreSQL
   * a named statement planned once). Building and compiling that statement with Kysely was 11% of the W2 list's CPU
   * (docs/performance.md, twenty-fifth round), and planning it on PostgreSQL as much as running it (twenty-sixth).
   * Absent: every page builds its statement.
   */
  compiled?: CompiledListPage<TB>;
  /**
   * The columns selectRows reads (with no join), when the index of the page's order carries them all: a page of the
   * default order or a client sort over a whole month then reads its rows from that index alone, not its keys and
   * then each row by the table's key (migration 013: 90 → 30 µs for W2's page). Absent: keys, then rows.
   */
  indexCarries?: readonly string[];
  /**
   * The number of ranked records of the list (`ranked`: the list's records with a rank), when the process may keep it
   * per data version (listTotals.ts). A page of the default order past the ranked records needs it to know where the
   * unranked ones start: 2.7 ms of counting on a generated month, for every such page. Absent: counted each time.
   */
  rankedTotal?: (ranked: ListQuery<TB>) => Promise<number>;
  /**
   * Several months and no filter but a named one (monthsOfList): the list's records of one month. A shallow page in
   * a client sort that does not start with the month then reads its keys as one arm per month, each from its month's
   * (date, column, key) index (monthArms.ts): one statement sorted every record of the months (12 generated months,
   * the first 40 ASNs by customers: ~200 ms on SQLite). Absent: one statement.
   */
  monthQuery?: {
    months: readonly string[];
    of: (month: string) => ListQuery<TB>;
    /**
     * A deep page in one non-null sort column starts from each month's bookmarks (monthsBookmarks.ts); `scope` names
     * the data they are read from (the data version, the month and the list's filter), as a page of the month alone
     * names it (`bookmarks`).
     */
    bookmarks: { cache: PageBookmarks; scope: (month: string) => Promise<string> };
    /**
     * The records of the months with a value in `column`, from each month's total kept per data version
     * (listTotals.ts): a page by a nullable column past its valued records counted them over the months every time
     * (`-source` over 12 generated months: ~100-180 ms a page).
     */
    valuedTotal: (column: string) => Promise<number>;
    /**
     * Runs a page's statement read from the months' arms or bookmarks: on PostgreSQL a named statement, planned once
     * per connection (AsrankContext.prepared), since planning twelve months' arms took as long as running them (2-4
     * ms of 5-10); every month's arm is one index range in the page's order whatever the values bound.
     */
    run: (query: Compilable<unknown>) => Promise<unknown[]>;
    /** Runs the counts that place a deep page after a threshold (monthsBookmarkStart), as a named statement too. */
    count: MonthsCounter;
  };
  /**
   * Several months and a filter their bookmarks and kept totals cannot name, a name of many matches (its candidates
   * past nameSearchTuning.maxIndexedMatches, so no key list): `of` gives the list's records of one month, filtered. A
   * shallow page in a client sort then reads its keys as one arm per month, as monthQuery's do: one statement read
   * every match of the months and sorted them (12 generated months' ASNs named "net" by `-cone.numberAsns`: 190-250
   * ms), where each month's index in the order meets the page's matches early. Absent: one statement.
   */
  monthArms?: MonthArms<TB>;
}

/** A list's months read as arms (monthArmKeyPage): their records, one month each, and the runner of the page. */
export type MonthArms<TB extends ListTable> = Pick<
  NonNullable<ListPageSpec<TB, unknown>['monthQuery']>,
  'months' | 'of' | 'run'
>;

export interface CompiledListPage<TB extends ListTable> {
  /** What selectRows reads besides the page (its columns, its joins): part of the shape's name. */
  shape: string;
  /** The list's records with their month bound as `month`: `query` itself, the month a placeholder. */
  queryOver: (month: unknown) => ListQuery<TB>;
  month: string;
  /** The context's runner of compiled statements. */
  run: AsrankContext['compiled'];
}

/** Bound in place of a compiled page's values (compiledLookups.ts); values its SQL never binds otherwise. */
const PAGE_PLACEHOLDERS = {
  month: '\u0000month',
  value: '\u0000bookmark value',
  key: '\u0000bookmark key',
  limit: '\u0000limit',
  offset: '\u0000offset',
} as const;

/** Runs the statement selectRows makes of `rows`, and makes the list's rows of its result. */
async function readRows<TB extends ListTable, Row>(
  spec: ListPageSpec<TB, Row>,
  rows: ListQuery<TB>,
  qualified: boolean,
  run: (query: Compilable<unknown>) => Promise<unknown[]> = (query) => (query as RowsQuery).execute(),
): Promise<Row[]> {
  const result = await run(spec.selectRows(rows, qualified));
  return spec.rowsOf(result as Record<string, unknown>[], qualified);
}

/**
 * The order ends with the record key alone (bookmark seeks compare it). A text key (an organization's) is compared
 * byte-wise on both dialects, as every text column is (PostgreSQL's are declared `collate "C"`, migration 009).
 */
function keyOrder<TB extends ListTable, Row>(spec: ListPageSpec<TB, Row>): boolean {
  return spec.order.unique.length === 1;
}

/** A range whose order bookmarks can serve: its one sort column (null: the key alone) and a name for its order. */
interface Seekable {
  term: SeekTerm | null;
  name: string;
}

/**
 * The client's order as one sort column then the key, when bookmarks can serve it: a non-null column (the seek
 * compares values, which nulls would complicate; text compares byte-wise, see keyOrder), the key itself included. By
 * the key alone an OFFSET walked the month: on PostgreSQL the plan read the rank index's copy of every record and
 * sorted the month on disk (`asns` by `asn` at 70,322 of a generated month: 24.7 ms a page; organizations by `orgId`
 * 11.5), on SQLite it skipped every record before the page (7.7 ms).
 */
function seekableSort<TB extends ListTable, Row>(spec: ListPageSpec<TB, Row>): Seekable | undefined {
  const sole = soleSortColumn(spec);
  if (!sole) return undefined;
  const { target, direction } = sole;
  if (target.nullable || target.column === 'date') return undefined;
  return { term: { column: target.column, direction }, name: `sort ${target.column} ${direction}` };
}

/**
 * The client's order as one sort column then the list's one key (a key the client repeats after it, in its own
 * direction, counts as the tie-break), with its direction; undefined for any other order.
 */
function soleSortColumn<TB extends ListTable, Row>(
  spec: ListPageSpec<TB, Row>,
): { target: SortColumn; direction: SortKey['direction'] } | undefined {
  const [unique] = spec.order.unique;
  if (!unique || !keyOrder(spec)) return undefined;
  const keys = spec.keys.filter(
    (key, index) => !(index > 0 && key.key === unique.key && key.direction === unique.direction),
  );
  const target = keys.length === 1 ? spec.columns[keys[0]!.key] : undefined;
  return target ? { target, direction: keys[0]!.direction } : undefined;
}

/**
 * The client's order over several months as one sort column, then the month and the key, when each month's bookmarks
 * can serve it: seekableSort's conditions, the month aside, or the key alone.
 */
function seekableOverMonths<TB extends ListTable, Row>(spec: ListPageSpec<TB, Row>): Seekable | undefined {
  const [byMonth, ...unique] = spec.order.unique;
  if (byMonth?.key !== 'date' || byMonth.direction !== 'asc') return undefined;
  const withinMonth = { ...spec, order: { ...spec.order, unique } };
  const [only] = spec.keys;
  // The key alone: over several months each of its values is one record a month, the ties broken by the month.
  if (spec.keys.length === 1 && spec.columns[only!.key]?.column === spec.key && keyOrder(withinMonth))
    return {
      term: { column: spec.key, direction: only!.direction },
      name: `sort ${spec.key} ${only!.direction}`,
    };
  return seekableSort(withinMonth);
}

/**
 * Within one month, the client's order as one nullable column with few records a value (`-rank`; `rank` ascending is
 * the default order), whose nulls sort last in both directions: its records with a value read in the column's order
 * as a non-null column is (bookmarks serve deep pages), then the others by the key. As one ORDER BY, PostgreSQL
 * sorted every record of the month for `-rank` even at offset 0, since no index holds `rank desc nulls last` (a
 * generated month: 21-37 ms a page against 2-4 for `rank`), and SQLite skipped every record before a deep page
 * (12-20 ms at four fifths of it).
 */
function nullableInMonth<TB extends ListTable, Row>(spec: ListPageSpec<TB, Row>): SeekTerm | undefined {
  if (!spec.singleMonth || spec.monthQuery) return undefined;
  const sole = soleSortColumn(spec);
  if (!sole?.target.nullable || !sole.target.fewTies) return undefined;
  return { column: sole.target.column, direction: sole.direction };
}

/**
 * The two stretches of a list sorted by one nullable column (nulls last either way): its records with a value, and
 * their order, then those without. Among valued records the column's nulls need no place: without `nulls last`,
 * PostgreSQL reads a descending page of a column with few ties from the column's ascending index backwards, each
 * value's few records sorted again by the key (with it, it sorted every valued record of each month). A column with
 * many ties (`source`) has a descending index of its own (migration 018), declared `nulls last`, which only the order
 * with it matches.
 */
function valuedStretches<TB extends ListTable, Row>(spec: ListPageSpec<TB, Row>, column: string) {
  const sortKey = spec.keys[0]!.key;
  const sortColumn = spec.columns[sortKey]!;
  const valuedColumns = sortColumn.fewTies
    ? { ...spec.columns, [sortKey]: { ...sortColumn, nullable: false } }
    : spec.columns;
  return {
    valued: (records: ListQuery<TB>) => records.where(sql.ref(column), 'is not', null),
    unvalued: (records: ListQuery<TB>) => records.where(sql.ref(column), 'is', null),
    valuedOrder: (options: { keyLookup?: boolean; table?: string } = {}) =>
      orderByList(spec.dialect, spec.keys, valuedColumns, spec.order, options),
  };
}

/**
 * Over several months (bookmarks at hand), the client's order as one nullable column (`rank`), which sorts its nulls
 * last in both directions: its records with a value then read as seekableOverMonths reads a non-null column. A column
 * with many ties descends `nulls last`, as its own descending index is declared (valuedStretches): as `source desc`,
 * PostgreSQL read the ascending index backwards and sorted each source's ASNs by ASN, a month's bookmarks read by
 * numbering 0.3 s a month, and each page's arms sorted the next source's records (docs/performance.md, sixty-sixth
 * round).
 */
function nullableOverMonths<TB extends ListTable, Row>(spec: ListPageSpec<TB, Row>): SeekTerm | undefined {
  const target = spec.keys.length === 1 ? spec.columns[spec.keys[0]!.key] : undefined;
  if (!spec.monthQuery || !target?.nullable || spec.order.unique[0]?.key !== 'date') return undefined;
  const { direction } = spec.keys[0]!;
  return {
    column: target.column,
    direction,
    nullsLast: direction === 'desc' && !target.fewTies ? true : undefined,
  };
}

/**
 * The filters of a list that its bookmarks, arms and kept totals can name: values of the month's records themselves
 * (`seen`), each by its name ({} for none); null when the list has another (a key list, a name), whose records those
 * cannot name.
 */
export type NamedListFilter = Readonly<Record<string, boolean>> | null;

/** A month's bookmarks' scope: the request's data version, the month, and the filter's values if any. */
async function monthScope(
  context: Pick<AsrankContext, 'dataVersion'>,
  month: string,
  filter: NonNullable<NamedListFilter>,
): Promise<string> {
  const filterValues = Object.entries(filter).map(([name, value]) => `${name}=${value}`);
  return [await context.dataVersion(), month, ...filterValues].join('\u0000');
}

/**
 * The `bookmarks` of a list over `months`: one month with no filter but a named one, scoped by the request's data
 * version (read only when a page is deep enough to use them).
 */
export function monthBookmarks(
  context: Pick<AsrankContext, 'pageBookmarks' | 'dataVersion'>,
  months: readonly string[],
  filter: NamedListFilter,
): ListPageSpec<ListTable, unknown>['bookmarks'] {
  const [month] = months;
  if (months.length !== 1 || filter === null || month === undefined) return null;
  return {
    cache: context.pageBookmarks,
    scope: () => monthScope(context, month, filter),
  };
}

/**
 * The `monthArms` of a list over `months` filtered by `name` (its `conditions`, nameConditions), `of` giving one
 * month's records with them: a name of many matches (nameOfManyMatches) in a client order that does not start with
 * the month; else undefined. By the month first, the one statement reads each month in order already.
 */
export async function monthArmsOfName<TB extends NameSearchTable>(
  context: NameSearchContext & Pick<AsrankContext, 'prepared'>,
  table: TB,
  months: readonly string[],
  keys: readonly SortKey[],
  name: string | null | undefined,
  conditions: readonly RawBuilder<boolean>[],
  of: (month: string) => ListQuery<TB>,
): Promise<MonthArms<TB> | undefined> {
  if (months.length < 2 || keys.length === 0 || keys[0]!.key === 'date' || name == null) return undefined;
  if (!(await nameOfManyMatches(context, table, name, months, conditions))) return undefined;
  return { months, of, run: (query) => context.prepared(query, table, 'occasional') };
}

/**
 * The `monthQuery` of a list over `months`: several months and no filter but a named one, `of` giving one month's
 * records (filtered), its bookmarks scoped by the request's data version; else undefined.
 */
export function monthsOfList<TB extends ListTable>(
  context: Pick<AsrankContext, 'pageBookmarks' | 'dataVersion' | 'listTotals' | 'dialect' | 'prepared'>,
  table: TB,
  months: readonly string[],
  filter: NamedListFilter,
  of: (month: string) => ListQuery<TB>,
): ListPageSpec<TB, unknown>['monthQuery'] {
  if (months.length < 2 || filter === null) return undefined;
  return {
    months,
    of,
    bookmarks: {
      cache: context.pageBookmarks,
      scope: (month) => monthScope(context, month, filter),
    },
    valuedTotal: (column) =>
      monthTotals(context, table, { ...filter, [column]: 'valued' }, (month) =>
        of(month).where(sql.ref(column), 'is not', null),
      ).sum(months),
    run: (query) => context.prepared(query, table, 'occasional'),
    count: (query) =>
      context.prepared(query as Compilable<Record<string, number | string>>, table, 'bracket'),
  };
}

/**
 * True when the client's keys ask for the list's default order (`sort: "rank"`, or nothing). Keys that stop short of
 * the defaults do not: `sort: "date"` over one month breaks its ties on the key, as over several, not on rank.
 */
function isDefaultOrder(keys: readonly SortKey[], order: ListPageSpec<ListTable, unknown>['order']): boolean {
  if (keys.length === 0) return true;
  const wanted = [...order.defaults, ...order.unique];
  return (
    keys.length >= order.defaults.length &&
    keys.length <= wanted.length &&
    keys.every((key, index) => key.key === wanted[index]!.key && key.direction === wanted[index]!.direction)
  );
}

/**
 * `rows` narrowed to the records whose (date, key) the ordered, paged key query selects, in `outerOrder` (which names
 * the table, as the narrowing does, so the reader may join). The key query is `keyRange` of the list's records;
 * `form` names it and its orders in a compiled statement's shape. The orders are built only when a statement is (a
 * compiled page's is built once): Kysely's builders were 5 µs of a W2 request's 230 (forty-fourth round).
 */
async function rowsOfKeyPage<TB extends ListTable, Row>(
  spec: ListPageSpec<TB, Row>,
  keyRange: (records: ListQuery<TB>) => ListQuery<TB>,
  form: string,
  innerOrder: () => RawBuilder<unknown>,
  outerOrder: () => RawBuilder<unknown>,
  limit: number,
  offset: number,
  seekable?: Seekable,
  // Over several months: the order the months' bookmarks serve within `keyRange` (default: seekableOverMonths).
  monthsSeekable?: Seekable,
): Promise<Row[]> {
  const keyColumns = [spec.key];
  const carried = spec.indexCarries;
  const bookmarks = seekable ? spec.bookmarks : null;
  const start =
    bookmarks && seekable && offset >= bookmarks.cache.step
      ? await bookmarkStart(
          {
            db: spec.db,
            dialect: spec.dialect,
            range: keyRange(spec.query),
            keyColumns,
            term: seekable.term,
            bookmarks: bookmarks.cache,
            step: bookmarks.cache.step,
            scope: `${await bookmarks.scope()}\u0000${spec.table}\u0000${seekable.name}`,
          },
          offset,
        )
      : null;
  const pageRows = (
    keys: ListQuery<TB>,
    from: Bookmark | null,
    pageLimit: PageBound,
    skip: PageBound,
    month?: unknown,
  ) => {
    const keyPage: Expression<unknown> = from
      ? keyPageAfter(
          { db: spec.db, dialect: spec.dialect, range: keys, keyColumns, term: seekable!.term },
          from,
          pageLimit,
          skip,
        )
      : keys
          .select([sql.ref('date').as('date'), sql.ref(spec.key).as('key')])
          .orderBy(innerOrder())
          .limit(pageLimit)
          .offset(skip);
    return rowsOfKeys(
      keyPage,
      month === undefined ? undefined : { month, keyAlias: from ? spec.key : 'key' },
    );
  };
  /**
   * The rows whose (date, key) `keyPage` selects, in the outer order. With `one` (a month's compiled page on
   * PostgreSQL), as the month's rows whose key is in the page's array of keys: a page of 1,000 keys `in` the key page
   * was planned as a hash join over a sequential scan of every month's records (the real month's 66,931 organizations:
   * 44 ms), where the array's keys are read through the primary key (12 ms; docs/performance.md, sixty-seventh round).
   */
  const rowsOfKeys = (keyPage: Expression<unknown>, one?: { month: unknown; keyAlias: string }) => {
    // Kysely cannot resolve selectFrom() over a table name that is a type parameter; the table is `spec.table`, read
    // by its primary key (the page's keys are whole keys: one month's records lie together in it).
    const table = spec.db.selectFrom(
      byPrimaryKey(spec.dialect, spec.table as ListTable, spec.table as ListTable),
    ) as unknown as ListQuery<TB>;
    const own = (column: string) => sql.ref(`${spec.table}.${column}`);
    const keyed =
      one && spec.dialect === 'postgres'
        ? table
            .where(sql<boolean>`${own('date')} = ${one.month}`)
            .where(
              sql<boolean>`${own(spec.key)} = any(array(select ${sql.ref(`page_keys.${one.keyAlias}`)} from (${keyPage}) as page_keys))`,
            )
        : table.where(sql<boolean>`(${own('date')}, ${own(spec.key)}) in (${keyPage})`);
    return keyed.orderBy(outerOrder());
  };
  // The page's rows as the order's index holds them, when it carries every column read (spec.indexCarries).
  const indexedRows = (
    keys: ListQuery<TB>,
    from: Bookmark | null,
    pageLimit: PageBound,
    skip: PageBound,
    columns: readonly string[],
  ): RowsQuery =>
    (from
      ? pageAfter(
          { db: spec.db, dialect: spec.dialect, range: keys, keyColumns, term: seekable!.term },
          from,
          pageLimit,
          skip,
          columns,
        )
      : keys
          .select(columns as never)
          .orderBy(innerOrder())
          .limit(pageLimit)
          .offset(skip)) as unknown as RowsQuery;
  const skip = start ? start.skip : offset;
  // One month's pages (W2's) do not wait on a promise for it.
  const arms = spec.monthQuery ?? spec.monthArms;
  const armKeys =
    start || !arms
      ? null
      : ((await monthArmKeyPage(spec, arms, keyRange, innerOrder, limit, offset)) ??
        (await monthsBookmarkKeyPage(spec, keyRange, innerOrder, limit, offset, monthsSeekable)));
  if (armKeys) return readRows(spec, rowsOfKeys(armKeys), true, arms!.run);
  const { month, value, key, limit: limitPlaceholder, offset: offsetPlaceholder } = PAGE_PLACEHOLDERS;
  const { compiled } = spec;
  const pageLimit = compiled ? compiledLimit(spec.dialect, limit, limitPlaceholder) : null;
  if (compiled && pageLimit) {
    const rows = await compiled.run<Record<string, unknown>>(
      `list page|${spec.table}|${compiled.shape}|${form}|${start ? 'after a bookmark' : 'offset'}` +
        `${carried ? '|from the index' : ''}${pageLimit.shape}`,
      spec.table,
      () => {
        const keys = keyRange(compiled.queryOver(month));
        const from = start ? { value, key: [key] } : null;
        const skipped = offsetPlaceholder as unknown as number;
        return carried
          ? indexedRows(keys, from, pageLimit.bound as PageBound, skipped, carried)
          : spec.selectRows(pageRows(keys, from, pageLimit.bound as PageBound, skipped, month), true);
      },
      [month, value, key, limitPlaceholder, offsetPlaceholder],
      [compiled.month, start?.from.value, start?.from.key[0], limit, skip],
    );
    return spec.rowsOf(rows, !carried);
  }
  if (carried) {
    const rows = await indexedRows(keyRange(spec.query), start?.from ?? null, limit, skip, carried).execute();
    return spec.rowsOf(rows as Record<string, unknown>[], false);
  }
  return readRows(spec, pageRows(keyRange(spec.query), start?.from ?? null, limit, skip), true);
}

/**
 * The (date, key) of a shallow page over several months read as one arm per month (`monthQuery`: spec.monthQuery or
 * spec.monthArms), merged in `innerOrder`; null when the page is deeper than arms serve, or the month's plan of its
 * arm sorts (monthArms.ts).
 */
async function monthArmKeyPage<TB extends ListTable, Row>(
  spec: ListPageSpec<TB, Row>,
  monthQuery: MonthArms<TB>,
  keyRange: (records: ListQuery<TB>) => ListQuery<TB>,
  innerOrder: () => RawBuilder<unknown>,
  limit: number,
  offset: number,
): Promise<Expression<unknown> | null> {
  if (!readsByMonthArms(monthQuery.months.length, offset, limit)) return null;
  // The merge sorts the arms' rows again: each arm carries the order's columns.
  const orderColumns = new Set(['date', spec.key as string]);
  for (const sortKey of [...spec.keys, ...spec.order.unique])
    orderColumns.add(spec.columns[sortKey.key]!.column);
  const arm = (month: string) =>
    keyRange(monthQuery.of(month))
      .select([...orderColumns].map((column) => sql.ref(column).as(column)))
      .orderBy(innerOrder())
      .limit(offset + limit);
  // Descending by a name or a rank, each month's index is read backwards and only each value's few records sorted
  // again by the key (PostgreSQL's Incremental Sort): refused, one statement sorted every record of the months
  // (PostgreSQL, 12 generated months, `-asnName` or `-rank` at offset 0: 115-170 ms a page).
  const [firstKey] = spec.keys;
  const firstColumn = firstKey && spec.columns[firstKey.key];
  const withinFirstKey = firstColumn?.fewTies ? firstColumn.column : null;
  if (!(await servedByIndex(spec.db, spec.dialect, arm(monthQuery.months[0]!), withinFirstKey))) return null;
  return mergedArms(
    spec.db,
    spec.dialect,
    monthQuery.months.map(arm),
    [
      { column: 'date', as: 'date' },
      { column: spec.key, as: 'key' },
    ],
    innerOrder(),
    limit,
    offset,
  );
}

/**
 * The (date, key) of a deep page over several months in one non-null sort column, from each month's bookmarks
 * (monthsBookmarks.ts); null when the page is shallow enough for arms or one statement, or the order is not one the
 * bookmarks serve.
 */
async function monthsBookmarkKeyPage<TB extends ListTable, Row>(
  spec: ListPageSpec<TB, Row>,
  keyRange: (records: ListQuery<TB>) => ListQuery<TB>,
  innerOrder: () => RawBuilder<unknown>,
  limit: number,
  offset: number,
  monthsSeekable: Seekable | undefined,
): Promise<Expression<unknown> | null> {
  const monthQuery = spec.monthQuery;
  if (!monthQuery) return null;
  const { bookmarks } = monthQuery;
  const months = [...monthQuery.months].sort();
  // Shallower, the rest of the offset after a threshold would be most of it.
  if (offset < bookmarks.cache.step * months.length) return null;
  const seekable = monthsSeekable ?? seekableOverMonths(spec);
  if (!seekable?.term) return null;
  const term = seekable.term;
  const scopes = await Promise.all(months.map((month) => bookmarks.scope(month)));
  const ranges = months.map((month, index) => ({
    month,
    range: {
      db: spec.db,
      dialect: spec.dialect,
      range: keyRange(monthQuery.of(month)),
      keyColumns: [spec.key],
      term,
      bookmarks: bookmarks.cache,
      step: bookmarks.cache.step,
      // The scope a page of the month alone names (rowsOfKeyPage): the two share the month's bookmarks.
      scope: `${scopes[index]}\u0000${spec.table}\u0000${seekable.name}`,
    },
  }));
  const start = await monthsBookmarkStart(monthQuery.count, ranges, offset, limit);
  if (!start) return null;
  return monthsPageAfter(
    spec.db,
    ranges,
    start,
    [
      { column: 'date', as: 'date' },
      { column: spec.key, as: 'key' },
    ],
    innerOrder(),
    limit,
  );
}

/**
 * A page of a list by one nullable column (nulls last either way): its records with a value in the column's order
 * (valuedStretches), then the others in `unvaluedOrder`, each stretch read as a page of its own (rowsOfKeyPage).
 */
function valuedThenUnvaluedPage<TB extends ListTable, Row>(
  spec: ListPageSpec<TB, Row>,
  form: string,
  column: string,
  stretches: {
    unvaluedOrder: (options?: { keyLookup?: boolean; table?: string }) => RawBuilder<unknown>;
    valuedSeek?: Seekable;
    unvaluedSeek?: Seekable;
    countNonNull: (valued: (records: ListQuery<TB>) => ListQuery<TB>) => Promise<number>;
  },
): Promise<Row[]> {
  const { valued, unvalued, valuedOrder } = valuedStretches(spec, column);
  // One stretch's page: its records in `order`, their rows looked up by key in the same order.
  const stretchPage =
    (
      records: (records: ListQuery<TB>) => ListQuery<TB>,
      name: string,
      order: typeof valuedOrder,
      seekable?: Seekable,
      monthsSeekable?: Seekable,
    ) =>
    (limit: number, offset: number) =>
      rowsOfKeyPage(
        spec,
        records,
        `${form} ${name}`,
        () => order(),
        () => order({ keyLookup: true, table: spec.table }),
        limit,
        offset,
        seekable,
        monthsSeekable,
      );
  return nullsLastPage(spec.page, {
    nonNull: stretchPage(valued, 'valued', valuedOrder, stretches.valuedSeek, stretches.valuedSeek),
    nulls: stretchPage(unvalued, 'unvalued', stretches.unvaluedOrder, stretches.unvaluedSeek),
    countNonNull: () => stretches.countNonNull(valued),
  });
}

export async function listPage<TB extends ListTable, Row>(spec: ListPageSpec<TB, Row>): Promise<Row[]> {
  const { dialect, page, query } = spec;
  const orderOf = (keys: readonly SortKey[], options: { keyLookup?: boolean; table?: string } = {}) =>
    orderByList(dialect, keys, spec.columns, spec.order, options);
  if (spec.singleMonth && !spec.keyList && isDefaultOrder(spec.keys, spec.order)) {
    // Within each range rank is not null (or all null), so the plain (date, rank, key) index order serves it.
    const rankColumns = { rank: { column: 'rank' }, [spec.key]: { column: spec.key } };
    const thenKey = { defaults: [], unique: [{ key: spec.key, direction: 'asc' as const }] };
    const rangeOrder = (keys: readonly SortKey[], keyLookup: boolean, table?: string) =>
      orderByList(dialect, keys, rankColumns, thenKey, { keyLookup, table });
    const byRank: SortKey[] = [{ key: 'rank', direction: 'asc' }];
    const rankedOf = (records: ListQuery<TB>) => records.where(sql.ref('rank'), 'is not', null);
    const unrankedOf = (records: ListQuery<TB>) => records.where(sql.ref('rank'), 'is', null);
    // Within each range rank is not null, so bookmarks serve both.
    const seekable = keyOrder(spec);
    const rankedSeek = seekable
      ? { term: { column: 'rank', direction: 'asc' as const }, name: 'ranked' }
      : undefined;
    const unrankedSeek = seekable ? { term: null, name: 'unranked' } : undefined;
    return nullsLastPage(page, {
      nonNull: (limit, offset) =>
        rowsOfKeyPage(
          spec,
          rankedOf,
          'ranked',
          () => rangeOrder(byRank, false),
          () => rangeOrder(byRank, true, spec.table),
          limit,
          offset,
          rankedSeek,
        ),
      nulls: (limit, offset) =>
        rowsOfKeyPage(
          spec,
          unrankedOf,
          'unranked',
          () => rangeOrder([], false),
          () => rangeOrder([], true, spec.table),
          limit,
          offset,
          unrankedSeek,
        ),
      countNonNull: () => (spec.rankedTotal ?? countRows)(rankedOf(query)),
    });
  }
  if (spec.keys.length > 0 && !spec.filtered) {
    // The client's keys and the order's unique keys make the ORDER BY (defaults apply only without keys).
    const form = `sorted ${sortKeysNamed(spec.keys)} then ${sortKeysNamed(spec.order.unique)}`;
    const innerOrder = () => orderOf(spec.keys);
    const outerOrder = () => orderOf(spec.keys, { keyLookup: true, table: spec.table });
    // By one nullable column: its records with a value first (nulls last either way), then the others. Over several
    // months the months' bookmarks serve the first, and the others follow by month and key: a deep page by `rank` over
    // 12 generated months sorted every record (1.1-1.6 s). In one month (`-rank`) the month's bookmarks serve both,
    // the others by key alone, as the default order's unranked range.
    const overMonths = nullableOverMonths(spec);
    const nullable = overMonths ?? nullableInMonth(spec);
    if (nullable) {
      const { column, direction } = nullable;
      // One seek serves either: a month's own bookmarks (one month), or every month's (several); the other is absent.
      const valuedSeek = { term: nullable, name: `valued ${column} ${direction}` };
      const keyColumns = { [spec.key]: { column: spec.key } };
      const byKey = { defaults: [], unique: [{ key: spec.key, direction: 'asc' as const }] };
      return valuedThenUnvaluedPage(spec, form, column, {
        unvaluedOrder: (options) =>
          overMonths ? orderOf(spec.keys, options) : orderByList(dialect, [], keyColumns, byKey, options),
        valuedSeek,
        unvaluedSeek: overMonths ? undefined : { term: null, name: `unvalued ${column}` },
        countNonNull: (valued) =>
          overMonths
            ? spec.monthQuery!.valuedTotal(column)
            : column === 'rank' && spec.rankedTotal
              ? spec.rankedTotal(valued(query))
              : countRows(valued(query)),
      });
    }
    return rowsOfKeyPage(
      spec,
      (records) => records,
      form,
      innerOrder,
      outerOrder,
      page.first,
      page.offset,
      spec.singleMonth ? seekableSort(spec) : undefined,
    );
  }
  if (
    spec.monthArms &&
    spec.keys.length > 0 &&
    readsByMonthArms(spec.monthArms.months.length, page.offset, page.first)
  ) {
    // By one nullable column with few ties (`-rank`), the records with a value from the arms, then the others by month
    // and key: as one order with `nulls last` a month's arm sorted every match of the month (PostgreSQL), and the arms
    // were refused for one statement over the months (12 generated months named `net` by `-rank`: 105-235 ms).
    const sole = spec.keys.length === 1 ? spec.columns[spec.keys[0]!.key] : undefined;
    if (sole?.nullable && sole.fewTies && monthArmsTuning.nullableApart) {
      return valuedThenUnvaluedPage(
        spec,
        `arms sorted ${sortKeysNamed(spec.keys)} then ${sortKeysNamed(spec.order.unique)}`,
        sole.column,
        {
          unvaluedOrder: (options) => orderOf(spec.keys, options),
          countNonNull: (valued) => countRows(valued(query)),
        },
      );
    }
    return rowsOfKeyPage(
      spec,
      (records) => records,
      `arms sorted ${sortKeysNamed(spec.keys)} then ${sortKeysNamed(spec.order.unique)}`,
      () => orderOf(spec.keys),
      () => orderOf(spec.keys, { keyLookup: true, table: spec.table }),
      page.first,
      page.offset,
    );
  }
  return readRows(
    spec,
    query
      .orderBy(orderOf(spec.keys, { keyLookup: spec.keyList }))
      .limit(page.first)
      .offset(page.offset),
    false,
  );
}
