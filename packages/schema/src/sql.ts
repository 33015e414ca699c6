// SQL fragments shared by the resolvers: list membership with one bound parameter, whitelisted ORDER BY,
// and month selection. User input never reaches SQL text; it is always a bound value or a whitelisted column.
import { sql, type AliasedRawBuilder, type Kysely, type RawBuilder } from 'kysely';
import { ASN_SUMMARY_COLUMNS, ASN_SUMMARY_INDEX, type Database, type DialectName } from '@asrank/db';
import type { SortKey } from '@asrank/domain';

/**
 * `column IN (values)` with ONE bound parameter, whatever the list length (10,000 ASNs would exceed
 * SQLite's and PostgreSQL's parameter limits as separate placeholders): json_each on SQLite, `= any(array)` on PG.
 */
export function inValues(
  dialect: DialectName,
  column: string,
  values: readonly (number | string)[],
  kind: 'bigint' | 'text',
  options: { offIndex?: boolean } = {},
): RawBuilder<boolean> {
  if (values.length === 0) return sql<boolean>`1 = 0`;
  return inBoundList(dialect, column, boundList(dialect, values, kind), kind, options);
}

/** The one parameter a non-empty list of `values` is bound as (a JSON array on SQLite, a typed array on PG). */
export function boundList(
  dialect: DialectName,
  values: readonly (number | string)[],
  kind: 'bigint' | 'text',
): unknown {
  if (dialect === 'sqlite') return JSON.stringify(values);
  return kind === 'bigint' ? values.map(Number) : values.map(String);
}

/**
 * `column IN list` for a list bound as `parameter`: boundList's value, or the placeholder of a statement compiled once
 * (compiledLookups.ts), whose values are bound at each run.
 */
export function inBoundList(
  dialect: DialectName,
  column: string,
  parameter: unknown,
  kind: 'bigint' | 'text',
  options: { offIndex?: boolean } = {},
): RawBuilder<boolean> {
  const ref = sql.ref(column);
  if (dialect === 'sqlite') {
    // offIndex: a unary `+` (a no-op on any value) keeps the match off every index, as a filter only.
    const tested = options.offIndex ? sql`+${ref}` : ref;
    return sql<boolean>`${tested} in (select value from json_each(${parameter}))`;
  }
  return kind === 'bigint'
    ? sql<boolean>`${ref} = any(${parameter}::bigint[])`
    : sql<boolean>`${ref} = any(${parameter}::text[])`;
}

/** A sortable API key mapped to a column; `text` columns compare byte-wise on both dialects. */
export interface SortColumn {
  column: string;
  text?: boolean;
  /** Nullable columns sort their nulls last in both directions (SQLite and PostgreSQL disagree by default). */
  nullable?: boolean;
  /**
   * Few records of a month share a value (a rank, a name): an index read against the key's direction (descending,
   * its ties then by the key descending) is sorted again only within each value's few records, which is cheap.
   */
  fewTies?: boolean;
}

/**
 * `selected` with the columns the order reads (`keys`, or the order's defaults without them, then its tie-breaks), as a
 * page read into a derived table must carry them to be ordered again; null (whole rows) stays null.
 */
export function withOrderColumns<Column extends string>(
  selected: readonly Column[] | null,
  keys: readonly SortKey[],
  columns: Readonly<Record<string, SortColumn>>,
  order: { defaults: readonly SortKey[]; unique: readonly SortKey[] },
): Column[] | null {
  if (!selected) return null;
  const read = new Set(selected);
  for (const key of [...(keys.length > 0 ? keys : order.defaults), ...order.unique])
    read.add(columns[key.key]!.column as Column);
  return [...read].sort();
}

/**
 * ORDER BY list from parsed sort keys (already validated against the spec's key list by the domain): the client's
 * keys, or `defaults` when there are none, then `unique` (the table key) so paging is deterministic. Non-null columns
 * are plain `column dir`, which the (date, column, key) indexes serve directly. `table` qualifies the columns, for a
 * statement that joins another table with columns of the same names.
 */
export function orderByList(
  dialect: DialectName,
  keys: readonly SortKey[],
  columns: Readonly<Record<string, SortColumn>>,
  order: { defaults: readonly SortKey[]; unique: readonly SortKey[] },
  // `valuedOnly`: the rows have a value in every nullable column of the order, which is then the dialect's own order
  // of it (no `nulls last`): PostgreSQL reads an ascending index backwards for a descending order only that way.
  options: { keyLookup?: boolean; table?: string; valuedOnly?: boolean } = {},
): RawBuilder<unknown> {
  // With a short key list (`asns: [...]`) the rows are a few primary-key lookups, but SQLite (no ANALYZE
  // statistics) prefers walking a whole (date, column) index to avoid the sort: 3.5 s instead of 2 ms for 12
  // months. A unary `+` (a no-op on any value) keeps the terms off the index, so the lookups plus a tiny sort win.
  const offIndex = options.keyLookup === true && dialect === 'sqlite';
  const seen = new Set<string>();
  const parts: RawBuilder<unknown>[] = [];
  for (const key of [...(keys.length > 0 ? keys : order.defaults), ...order.unique]) {
    const target = columns[key.key];
    if (!target) throw new Error(`sort key ${key.key} has no column`);
    if (seen.has(target.column)) continue;
    seen.add(target.column);
    const named = sql.ref(options.table ? `${options.table}.${target.column}` : target.column);
    const ref = offIndex ? sql`+${named}` : named;
    const column = target.text && dialect === 'postgres' ? sql`${ref} collate "C"` : ref;
    const direction = key.direction === 'desc' ? sql`desc` : sql`asc`;
    parts.push(
      target.nullable && !options.valuedOnly
        ? sql`${column} ${direction} nulls last`
        : sql`${column} ${direction}`,
    );
  }
  return sql.join(parts);
}

/** Sort keys as the shape of a statement compiled once names them (compiledLookups.ts). */
export function sortKeysNamed(keys: readonly SortKey[]): string {
  return keys.map((key) => `${key.direction} ${key.key}`).join(',');
}

/**
 * The store's data version as a column of another statement, so that its rows and the version they belong to are
 * read in one snapshot (on both dialects): a value filed under that version is never one of another version's data.
 */
export function dataVersionColumn() {
  return sql<string | null>`(select value from meta where key = 'data_version')`.as('data_version');
}

/** The store's data_version as a statement of its own ('0' in a store that has none yet). */
export async function readStoreDataVersion(db: Kysely<Database>): Promise<string> {
  return (
    (await db.selectFrom('meta').select('value').where('key', '=', 'data_version').executeTakeFirst())
      ?.value ?? '0'
  );
}

/**
 * `limit n` for a statement written as SQL text, as the SQLite dialect writes Kysely's own LIMIT: `cast(? as
 * integer)`, since a bare `limit ?` is planned again on every run. PostgreSQL accepts the same text.
 */
export function boundLimit(rows: number): RawBuilder<unknown> {
  return sql`limit cast(${rows} as integer)`;
}

/**
 * A table under `alias` for reads of records by their full primary key (date and key), which on SQLite go through
 * the primary key itself. The key of `asns` is (date, asn), so one month's records lie together; migration 011's
 * (asn, date, ...) index carries every column a lookup reads and SQLite's planner rates it a little cheaper (its rows
 * are shorter), but it lays each ASN's months side by side, so one month's records lie spread over the whole index
 * (12x as many pages to keep cached on a 12-month store, ~300x on CAIDA's full history): W2's page statement (100
 * ASNs with their organizations) took 765-955 µs through it and 610-665 µs through the key, W3's 500 neighbours
 * 1,770-2,035 and 1,545-1,760 µs (in the service, the 12-month store), a list of 1,000 ASNs in one month 2.4-2.6 and
 * 1.85-1.95 ms (docs/performance.md, eighteenth round). SQLite names a WITHOUT ROWID table's key index
 * `sqlite_autoindex_<table>_1` (a test fails if it ever does not: INDEXED BY a missing index is an error). When the
 * statement reads only `readColumns` of `asns` and migration 015's index of one month's records carries them all, it
 * goes through that index instead: the same order, narrower entries. PostgreSQL has no such hint and is left to its
 * planner.
 */
export function byPrimaryKey<T extends 'asns' | 'organizations', A extends string>(
  dialect: DialectName,
  table: T,
  alias: A,
  readColumns?: readonly string[],
): AliasedRawBuilder<Database[T], A> {
  const index =
    table === 'asns' && readColumns?.every((column) => ASN_SUMMARY_KEYED.has(column))
      ? ASN_SUMMARY_INDEX
      : `sqlite_autoindex_${table}_1`;
  const hint = dialect === 'sqlite' ? sql` indexed by ${sql.id(index)}` : sql``;
  return sql<Database[T]>`${sql.table(table)}`.as<A>(sql`${sql.id(alias)}${hint}`);
}

/**
 * What an organization's links and neighbours read of each far end: its organization, to leave out the links inside
 * the organization. Migration 015's narrow index carries it (1,000 organizations' neighbour count on the real month:
 * 285 -> 250 ms).
 */
export const FAR_END_COLUMNS = ['date', 'asn', 'org_id'] as const;

/** What migration 015's index of `asns` holds: its key (date, asn) and the ranking table's columns it carries. */
const ASN_SUMMARY_KEYED: ReadonlySet<string> = new Set(['date', 'asn', ...ASN_SUMMARY_COLUMNS]);

/** `date = d` for one month (the common case, best for the planner), else a list match. */
export function dateIn(dialect: DialectName, column: string, months: readonly string[]): RawBuilder<boolean> {
  if (months.length === 1) return boundDateIn(dialect, column, 1, months[0]);
  return inValues(dialect, column, months, 'text');
}

/**
 * dateIn for `monthCount` (at least one) months bound as `parameter`: the month itself when there is one, else
 * boundList's value; or the placeholder of a statement compiled once (compiledLookups.ts).
 */
export function boundDateIn(
  dialect: DialectName,
  column: string,
  monthCount: number,
  parameter: unknown,
): RawBuilder<boolean> {
  if (monthCount === 1) return sql<boolean>`${sql.ref(column)} = ${parameter}`;
  return inBoundList(dialect, column, parameter, 'text');
}

/**
 * The months of an AS's history (`asns: [...]` over several months, reading only columns the (asn, date, ...) index
 * of migration 011 carries) as one range of dates per ASN in that index, with the exact month list kept as a filter.
 * Given the list alone, SQLite with statistics searches the month-ordered table once per ASN and month (120 descents
 * for ten ASNs over a year: 600-850 µs on the generated store); the range reads the same records from the index in
 * 210-280 µs. The unary `+` keeps the list off every index. Whole rows must keep the list (`dateIn`): search_text is
 * not in the index, and the sampled statistics would then scan the table's months as one range. PostgreSQL keeps the
 * list too (its statistics know how few dates there are). `months` ascending, as monthsIn returns them.
 */
export function monthSpanIn(
  dialect: DialectName,
  column: string,
  months: readonly string[],
): RawBuilder<boolean> {
  if (months.length === 0) return dateIn(dialect, column, months);
  const { values, over } = monthSpanParts(dialect, column, months);
  return over(values);
}

/**
 * monthSpanIn for one month or more as the values it binds and its SQL over them, or over a statement's placeholders
 * bound in their places when it is compiled once (compiledLookups.ts): the month itself; on SQLite the first and last
 * month and the list; on PostgreSQL the list. The values' count depends only on the dialect and whether there is one
 * month.
 */
export function monthSpanParts(
  dialect: DialectName,
  column: string,
  months: readonly string[],
): { values: unknown[]; over(bound: readonly unknown[]): RawBuilder<boolean> } {
  if (months.length === 1)
    return { values: [months[0]], over: (bound) => boundDateIn(dialect, column, 1, bound[0]) };
  const list = boundList(dialect, months, 'text');
  if (dialect === 'sqlite')
    return {
      values: [months[0], months.at(-1), list],
      over: (bound) => boundMonthSpan(column, bound[0], bound[1], bound[2]),
    };
  return { values: [list], over: (bound) => boundDateIn(dialect, column, months.length, bound[0]) };
}

/** monthSpanParts' SQLite form over its bound values (or a compiled statement's placeholders): first, last, list. */
function boundMonthSpan(column: string, first: unknown, last: unknown, list: unknown): RawBuilder<boolean> {
  const ref = sql.ref(column);
  return sql<boolean>`${ref} >= ${first} and ${ref} <= ${last} and ${inBoundList('sqlite', column, list, 'text', { offIndex: true })}`;
}

/**
 * One page of a list ordered by a nullable column ascending with nulls last (rank: unranked records last), read as
 * two index-ordered ranges instead of sorting the whole month: the non-null rows first, then the null rows.
 * The count of non-null rows is only needed when the page starts after them.
 */
export async function nullsLastPage<Row>(
  page: { first: number; offset: number },
  ranges: {
    nonNull(limit: number, offset: number): Promise<Row[]>;
    nulls(limit: number, offset: number): Promise<Row[]>;
    countNonNull(): Promise<number>;
  },
): Promise<Row[]> {
  if (page.first === 0) return [];
  const nonNull = await ranges.nonNull(page.first, page.offset);
  if (nonNull.length === page.first) return nonNull;
  const nonNullCount =
    nonNull.length > 0 || page.offset === 0 ? page.offset + nonNull.length : await ranges.countNonNull();
  const nulls = await ranges.nulls(page.first - nonNull.length, Math.max(0, page.offset - nonNullCount));
  return [...nonNull, ...nulls];
}
