// Substring search on SQLite (`asns(name:)`, `organizations(name:)`, REST `/asns/name/:name`): per searched table and
// dataset date, an FTS5 table with the trigram tokenizer holding each record's search_text and key. A LIKE '%x%' over
// a month reads every row of it (~10-15 ms for the real month's 83,000 ASNs, two to four times per page with a
// count); a trigram index answers a rare substring from its posting lists in a fraction of a millisecond. PostgreSQL
// has its own trigram index (pg_trgm, migration 002) over every month; a month's search reads the posting lists of
// all of them too (a rare word 1.9-3.0 ms on the generated 12 months, a common one 7.5 ms), so PostgreSQL keeps a
// partial trigram index per table and month as well, under the same name (`fillPostgresMonthNameSearchIndexes`):
// 0.3-0.5 and 1.2 ms (docs/performance.md, forty-fifth round). The index over every month still serves a search of
// several months.
//
// One table per month, not one for all: one table's posting lists hold every month, and a query of one month still
// read them whole (measured: 0.1 ms for a rare word with one month loaded, 2-3 ms with twelve, growing with each
// month loaded). A month's tables are dropped and rebuilt in the same transaction as the month's rows (ingest, drop,
// migration), so a failed load leaves both as they were.
import { CompiledQuery, sql, type QueryExecutorProvider, type RawBuilder } from 'kysely';

export const NAME_SEARCH_KEYS = { asns: 'asn', organizations: 'org_id' } as const;

/**
 * What separates the names of one record's search text. A space did, and `LIKE '%x%'` then matched a needle that
 * runs from the end of one name into the next ("net ulsel" in "ulsel-net ulsel telecom llc"), which is in neither.
 * No name holds a control character, and a needle that holds this one matches nothing (nameSearch.ts).
 */
export const SEARCH_TEXT_SEPARATOR = '\u001f';

/** A record's search text: its names (AS name and organization name; organization name and id), lower case. */
export function searchText(...names: readonly string[]): string {
  return names
    .map((name) => name.trim())
    .filter((name) => name !== '')
    .join(SEARCH_TEXT_SEPARATOR)
    .toLowerCase();
}

export type NameSearchTable = keyof typeof NAME_SEARCH_KEYS;

const NAME_SEARCH_TABLES = Object.keys(NAME_SEARCH_KEYS) as NameSearchTable[];

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The index of `table`'s records of one dataset date (`YYYY-MM-DD`): `asns_name_search_20171201`. */
export function nameSearchIndex(table: NameSearchTable, date: string): string {
  const match = DATE.exec(date);
  if (!match) throw new Error(`not a dataset date (YYYY-MM-DD): ${date}`);
  return `${table}_name_search_${match[1]}${match[2]}${match[3]}`;
}

/** The dataset date and table of an index name (null for any other name). */
export function parseNameSearchIndex(name: string): { table: NameSearchTable; date: string } | null {
  const match = /^(asns|organizations)_name_search_(\d{4})(\d{2})(\d{2})$/.exec(name);
  return match ? { table: match[1] as NameSearchTable, date: `${match[2]}-${match[3]}-${match[4]}` } : null;
}

/** The statements that remove one date's name search indexes. */
export function clearMonthNameSearchStatements(date: string): CompiledQuery[] {
  return NAME_SEARCH_TABLES.map(
    (table) => CompiledQuery.raw(`drop table if exists ${nameSearchIndex(table, date)}`) as CompiledQuery,
  );
}

/**
 * The statements that index one date's rows as stored, replacing any index of that date (run after writing the
 * rows, in the same transaction).
 */
export function fillMonthNameSearchStatements(date: string): CompiledQuery[] {
  return [
    ...clearMonthNameSearchStatements(date),
    ...NAME_SEARCH_TABLES.flatMap((table) => {
      const index = nameSearchIndex(table, date);
      const key = NAME_SEARCH_KEYS[table];
      return [
        // `key unindexed`: stored to be read back, not tokenized. The trigram tokenizer folds case, so its matches
        // are a superset of the ASCII-case-insensitive LIKE the lists keep applying. `columnsize=0`: no ranking.
        CompiledQuery.raw(
          `create virtual table ${index} using fts5(search_text, key unindexed, tokenize = 'trigram', columnsize = 0)`,
        ),
        CompiledQuery.raw(
          `insert into ${index} (search_text, key) select search_text, ${key} from ${table} where date = ?`,
          [date],
        ),
      ] as CompiledQuery[];
    }),
  ];
}

/** Runs statements on the raw better-sqlite3 handle (the bulk loader's synchronous transaction). */
export function runOnSqlite(
  sqlite: { prepare(text: string): { run(...parameters: unknown[]): unknown } },
  statements: readonly CompiledQuery[],
): void {
  for (const statement of statements) sqlite.prepare(statement.sql).run(...statement.parameters);
}

/**
 * pg_trgm's GIN operator class named with the schema the extension is installed in (a search path without it still
 * finds it), or null without pg_trgm (migration 002 treats its trigram indexes as optional).
 */
export async function trigramOperatorClass(db: QueryExecutorProvider): Promise<RawBuilder<unknown> | null> {
  const { rows } = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e
    join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
  return rows[0] ? sql`${sql.id(rows[0].schema)}.gin_trgm_ops` : null;
}

/** Every dataset date with ASN or organization records: the months a migration builds name search indexes for. */
export async function monthsWithNames(db: QueryExecutorProvider): Promise<string[]> {
  const { rows } = await sql<{
    date: string;
  }>`select distinct date from asns union select distinct date from organizations`.execute(db);
  return rows.map((row) => row.date);
}

/** Drops one date's partial trigram indexes on PostgreSQL (a dropped month; before they are built again). */
export async function clearPostgresMonthNameSearchIndexes(
  db: QueryExecutorProvider,
  date: string,
): Promise<void> {
  for (const table of NAME_SEARCH_TABLES)
    await sql`drop index if exists ${sql.id(nameSearchIndex(table, date))}`.execute(db);
}

/**
 * Builds one date's partial trigram indexes on PostgreSQL from the rows stored, replacing any of that date (run after
 * writing the rows, in the same transaction). Nothing without pg_trgm: the searches then read the month's rows.
 */
export async function fillPostgresMonthNameSearchIndexes(
  db: QueryExecutorProvider,
  date: string,
): Promise<void> {
  await clearPostgresMonthNameSearchIndexes(db, date);
  const opclass = await trigramOperatorClass(db);
  if (opclass === null) return;
  for (const table of NAME_SEARCH_TABLES) {
    // The date is a literal, checked by nameSearchIndex: a partial index's predicate takes no parameter, and the
    // planner uses it for a statement whose own date is the same value.
    await sql`create index ${sql.id(nameSearchIndex(table, date))} on ${sql.table(table)}
      using gin (search_text ${opclass}) where date = ${sql.lit(date)}`.execute(db);
  }
}
