// Substring search on SQLite (`asns(name:)`, `organizations(name:)`, REST `/asns/name/:name`): an FTS5 table with
// the trigram tokenizer per searched table, holding each record's search_text and key. A LIKE '%x%' over a month
// reads every row of it (~10-15 ms for the real month's 83,000 ASNs, twice per page with a count); a trigram index
// answers a rare substring from its posting lists in well under a millisecond. PostgreSQL has its own trigram index
// (pg_trgm, migration 002) and needs none of this.
//
// Each month owns one range of rowids (`dateRowidRange`), so a month is searched, cleared and refilled by rowid
// range, which FTS5 walks in order without reading other months. The index is written in the same transaction as the
// month's rows (ingest, drop, migration), so a failed load leaves both as they were.
import { CompiledQuery } from 'kysely';

export const NAME_SEARCH_INDEXES = {
  asns: { index: 'asns_name_search', key: 'asn' },
  organizations: { index: 'organizations_name_search', key: 'org_id' },
} as const;

export type NameSearchTable = keyof typeof NAME_SEARCH_INDEXES;

const NAME_SEARCH_TABLES = Object.keys(NAME_SEARCH_INDEXES) as NameSearchTable[];

// A date's range holds 2^26 (67 million) rowids, far more records than a month has (~100,000 ASNs), and the days
// of years 0001-9999 count less than 2^22 from 1970 either way, so every rowid is below 2^48 in magnitude: a safe
// integer for JavaScript, exact in SQLite.
export const NAME_SEARCH_ROWIDS_PER_DATE = 2 ** 26;
const MS_PER_DAY = 86_400_000;

/** The rowids `[first, end)` of one dataset date's (`YYYY-MM-DD`) entries in every name search index. */
export function dateRowidRange(date: string): { first: number; end: number } {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) throw new Error(`not a dataset date (YYYY-MM-DD): ${date}`);
  const utc = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  utc.setUTCFullYear(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  const day = Math.round(utc.getTime() / MS_PER_DAY);
  return { first: day * NAME_SEARCH_ROWIDS_PER_DATE, end: (day + 1) * NAME_SEARCH_ROWIDS_PER_DATE };
}

/** The statements that create the index tables (SQLite; `if not exists`, so a migration can be run again). */
export function createNameSearchStatements(): CompiledQuery[] {
  // `key unindexed`: stored to be read back, not tokenized. The trigram tokenizer folds case, so its matches are a
  // superset of the ASCII-case-insensitive LIKE the lists keep applying to the rows it finds.
  return NAME_SEARCH_TABLES.map(
    (table) =>
      CompiledQuery.raw(
        `create virtual table if not exists ${NAME_SEARCH_INDEXES[table].index} using fts5(search_text, key unindexed, tokenize = 'trigram')`,
      ) as CompiledQuery,
  );
}

/** The statements that remove one month from every name search index. */
export function clearMonthNameSearchStatements(date: string): CompiledQuery[] {
  const { first, end } = dateRowidRange(date);
  return NAME_SEARCH_TABLES.map(
    (table) =>
      CompiledQuery.raw(`delete from ${NAME_SEARCH_INDEXES[table].index} where rowid >= ? and rowid < ?`, [
        first,
        end,
      ]) as CompiledQuery,
  );
}

/** The statements that index one month's rows as stored (run after writing them, in the same transaction). */
export function fillMonthNameSearchStatements(date: string): CompiledQuery[] {
  const { first } = dateRowidRange(date);
  return NAME_SEARCH_TABLES.map((table) => {
    const { index, key } = NAME_SEARCH_INDEXES[table];
    return CompiledQuery.raw(
      `insert into ${index} (rowid, search_text, key)
       select ? + row_number() over (order by ${key}), search_text, ${key} from ${table} where date = ?`,
      [first, date],
    ) as CompiledQuery;
  });
}

/** Runs statements on the raw better-sqlite3 handle (the bulk loader's synchronous transaction). */
export function runOnSqlite(
  sqlite: { prepare(text: string): { run(...parameters: unknown[]): unknown } },
  statements: readonly CompiledQuery[],
): void {
  for (const statement of statements) sqlite.prepare(statement.sql).run(...statement.parameters);
}
