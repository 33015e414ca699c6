// The `name` filter of `asns` and `organizations`: a case-insensitive substring of the record's search text. Every
// list keeps `search_text LIKE '%x%'` (what the filter means, on both dialects); on SQLite the month's trigram index
// (packages/db/src/name-search.ts) first names the few records that can match, so the list reads those rows instead
// of testing every row of the month (~10-15 ms per statement on the real month, and a page with its count runs two to
// four). PostgreSQL's planner finds its own trigram index for the LIKE. A needle too short for trigrams names its
// candidates from one pass over the months' rows, kept per data version.
import { LRUCache } from 'lru-cache';
import { sql, type RawBuilder } from 'kysely';
import {
  containsPattern,
  likeEscaped,
  NAME_SEARCH_KEYS,
  nameSearchIndex,
  SEARCH_TEXT_SEPARATOR,
  type NameSearchTable,
} from '@asrank/db';
import type { AsrankContext } from './context';
import { boundLimit, boundList, dataVersionColumn, dateIn, inBoundList } from './sql';

export const nameSearchTuning = {
  /**
   * Past this many candidates the index is not used: a common substring (`net` names 16,679 of the real month's
   * ASNs) is found sooner by the list's own walk in sort order, which stops at the page's last row, and each
   * candidate costs the index ~1.4 µs to read back. Up to this bound the index's answer takes at most a few ms.
   */
  maxIndexedMatches: 2000,
};

/** The trigram tokenizer indexes three characters at a time: shorter needles are never in its vocabulary. */
const TRIGRAM = 3;

/** An FTS5 phrase holding `needle` literally (inside double quotes only `"` is special, written twice). */
function literalPhrase(needle: string): string {
  return `"${needle.replaceAll('"', '""')}"`;
}

/**
 * The keys (ASN or organization id) of `table`'s records in `months` whose search text may contain `needle` (already
 * lower case), from SQLite's trigram index (a needle of fewer than three characters: from one pass over the rows, which
 * no trigram index answers, on either dialect); null when they cannot narrow the list: on
 * PostgreSQL otherwise (its planner takes its trigram index itself), or more candidates than `maxIndexedMatches`.
 */
export async function indexedNameMatches(
  context: NameSearchContext,
  table: NameSearchTable,
  needle: string,
  months: readonly string[],
): Promise<readonly (number | string)[] | null> {
  if (months.length === 0) return null;
  // A short needle's records are named by one pass, kept per data version (see holdsNeedle), on either dialect: on
  // PostgreSQL each page and count of `zz` in a generated month took 56-62 ms, the trigram index rechecking every
  // record; twelve months, ten times that.
  if ([...needle].length < TRIGRAM) return shortNeedleMatches(context, table, needle, months);
  // PostgreSQL's planner takes its trigram index itself for longer needles.
  if (context.dialect !== 'sqlite') return null;
  const indexes = months.map((date) => nameSearchIndex(table, date));
  // Every loaded month has its index (ingest and migration 006 write them), but a missing one must never hide a
  // month's records: without all of them the list tests every row.
  const present = await sql<{ n: number }>`select count(*) as n from sqlite_master
    where type = 'table' and name in (select value from json_each(${JSON.stringify(indexes)}))`.execute(
    context.db,
  );
  if (Number(present.rows[0]?.n) !== indexes.length) return null;
  const phrase = literalPhrase(needle);
  const candidates = sql.join(
    indexes.map(
      (index) => sql`select key from ${sql.table(index)} where ${sql.table(index)} match ${phrase}`,
    ),
    sql` union all `,
  );
  return boundedKeys(context, candidates);
}

/**
 * Whether `name` holds more of `table`'s records in `months` than maxIndexedMatches, given its `conditions`
 * (nameConditions): then a list's page in a client order over several months reads the months' arms (listPage's
 * monthArms), each month's index walked until the page's end, where a rare name's arms would walk whole months. A
 * candidates' list says few; none says many, except on PostgreSQL for a needle its trigram index serves, for which
 * none is ever listed: there the one pass of short needles (kept per data version) tells.
 */
export async function nameOfManyMatches(
  context: NameSearchContext,
  table: NameSearchTable,
  name: string,
  months: readonly string[],
  conditions: readonly RawBuilder<boolean>[],
): Promise<boolean> {
  if (conditions.length !== 1) return false;
  const needle = name.toLowerCase();
  if (context.dialect === 'sqlite' || [...needle].length < TRIGRAM) return true;
  return (await shortNeedleMatches(context, table, needle, months)) === null;
}

/** The `key` column of `candidates`, or null past `maxIndexedMatches` (the list then tests its rows itself). */
async function boundedKeys(
  context: Pick<AsrankContext, 'db'>,
  candidates: RawBuilder<unknown>,
): Promise<(number | string)[] | null> {
  const { rows } = await sql<{
    key: number | string;
  }>`select key from (${candidates}) as candidates ${candidatesLimit()}`.execute(context.db);
  return rows.length > nameSearchTuning.maxIndexedMatches ? null : rows.map((row) => row.key);
}

/** One row past `maxIndexedMatches`, to tell a bounded answer from one past the bound. */
function candidatesLimit(): RawBuilder<unknown> {
  // boundLimit casts to a 32-bit integer, which an unbounded tuning (tests) overflows on PostgreSQL.
  return boundLimit(Math.min(nameSearchTuning.maxIndexedMatches + 1, 2 ** 31 - 1));
}

/**
 * What a name search needs of the request's context: the store, and (from a request's context) the process's kept
 * candidates of short needles with the request's data version to look them up under.
 */
export type NameSearchContext = Pick<AsrankContext, 'db' | 'dialect'> &
  Partial<Pick<AsrankContext, 'dataVersion' | 'shortNameCandidates'>>;

/** The candidates of a needle too short for trigrams: kept for the request's data version, else one pass. */
async function shortNeedleMatches(
  context: NameSearchContext,
  table: NameSearchTable,
  needle: string,
  months: readonly string[],
): Promise<readonly (number | string)[] | null> {
  if (context.shortNameCandidates && context.dataVersion)
    return context.shortNameCandidates.keys(context, await context.dataVersion(), table, needle, months);
  return (await scannedNameMatches(context, table, needle, months)).keys;
}

/**
 * `search_text` holds `needle` (lower case). One month on PostgreSQL with a needle too short for trigrams: `strpos`,
 * which no index serves, so the planner reads the month's rows through its date, or walks the list's order and stops
 * at its page, where for `LIKE '%zz%'` it took the trigram index, which holds no trigram of the needle and so rechecks
 * every row (a generated month: 33 ms against 62 for the pass, and every page and count of a needle too common for
 * the pass took 60 ms). Over several months LIKE, which it reads in a parallel scan (twelve: 120 ms, against 290 for
 * a serial one).
 */
function holdsNeedle(
  dialect: AsrankContext['dialect'],
  needle: string,
  months: readonly string[],
): RawBuilder<boolean> {
  return dialect === 'postgres' && months.length === 1 && [...needle].length < TRIGRAM
    ? sql<boolean>`strpos(search_text, ${needle}) > 0`
    : likeEscaped('search_text', containsPattern(needle));
}

/**
 * The keys of the records of `months` whose search text holds `needle`, a needle too short for the trigram index,
 * read by one pass over the months' rows in key order; null past `maxIndexedMatches` (a common needle, which the
 * list's own walk in sort order serves sooner, as it stops at the page's last row). Without it a rare short needle
 * (`zz`) made the list walk its order's index and fetch each row's search text: 0.2-1.7 s for one generated month
 * and 9 s for twelve, against 6-10 ms and ~115 ms for this pass (the file in the OS cache). PostgreSQL's planner did
 * the same over twelve months (1.3-2 s, the rank index walked through a million rows for the ten it expected).
 * `version`: the data version the pass read, from the same statement (one snapshot), so its answer is kept under the
 * version it belongs to even when a load commits meanwhile; null in a store that has none.
 */
async function scannedNameMatches(
  context: Pick<AsrankContext, 'db' | 'dialect'>,
  table: NameSearchTable,
  needle: string,
  months: readonly string[],
): Promise<{ keys: (number | string)[] | null; version: string | null }> {
  const key = sql.ref(NAME_SEARCH_KEYS[table]);
  // One month on PostgreSQL in key order, so that its rows are read through the (date, key) primary key: with the
  // LIMIT alone the planner counted on finding the candidates early and read the whole table in a sequential scan for
  // a needle that matches few (`zz` in the twelve generated months: 66,000 pages, 210-450 ms, against 60 ms for the
  // month's 88,000 rows in order). Over several months it scans the table in parallel (holdsNeedle).
  const inKeyOrder = context.dialect === 'postgres' && months.length === 1 ? sql`order by ${key}` : sql``;
  // The version's one row joined to the matches, so a needle that matches nothing still reads the version.
  const { rows } = await sql<{ key: number | string | null; data_version: string | null }>`select
      version.data_version, candidates.key
    from (select ${dataVersionColumn()}) as version
    left join (
      select ${key} as key from ${sql.table(table)}
      where ${dateIn(context.dialect, 'date', months)} and ${holdsNeedle(context.dialect, needle, months)}
      ${inKeyOrder} ${candidatesLimit()}
    ) as candidates on 1 = 1`.execute(context.db);
  const keys = rows.flatMap((row) => (row.key === null ? [] : [row.key]));
  return {
    keys: keys.length > nameSearchTuning.maxIndexedMatches ? null : keys,
    version: rows[0]?.data_version ?? null,
  };
}

/** Short needles' candidates kept: a few hundred searches, and at most this many keys over all of them. */
const MAX_KEPT_SEARCHES = 256;
const MAX_KEPT_KEYS = 1 << 18;

/**
 * The candidates of needles too short for trigrams, kept per process by data version and the search's table, months
 * and needle. A rare needle's pass reads every row of the months (twelve generated months: 110-150 ms a request for
 * `zz`, which names no record), and a client paging through a search asks the same again with every page. A load
 * changes the data version, so a kept answer is never read for other data.
 */
export class ShortNameCandidates {
  private readonly kept = new LRUCache<string, { keys: readonly (number | string)[] | null }>({
    max: MAX_KEPT_SEARCHES,
    maxSize: MAX_KEPT_KEYS,
    sizeCalculation: (answer) => 1 + (answer.keys?.length ?? 0),
  });

  async keys(
    context: Pick<AsrankContext, 'db' | 'dialect'>,
    requestVersion: string,
    table: NameSearchTable,
    needle: string,
    months: readonly string[],
  ): Promise<readonly (number | string)[] | null> {
    // The bound is part of the answer (null past it); tests change it.
    const search = [table, nameSearchTuning.maxIndexedMatches, months.join(','), needle].join('\u0000');
    const known = this.kept.get(`${requestVersion}\u0000${search}`);
    if (known) return known.keys;
    const { keys, version } = await scannedNameMatches(context, table, needle, months);
    if (version !== null) this.kept.set(`${version}\u0000${search}`, { keys });
    return keys;
  }
}

/** `key in (keys)` as one bound list, so the statement's text (and its prepared plan) is the same for any keys. */
function keyAmong(
  dialect: AsrankContext['dialect'],
  table: NameSearchTable,
  keys: readonly (number | string)[],
): RawBuilder<boolean> {
  const kind = table === 'asns' ? 'bigint' : 'text';
  return inBoundList(dialect, NAME_SEARCH_KEYS[table], boundList(dialect, keys, kind), kind);
}

/** The conditions of a `name` filter on `table`'s records in `months`: the substring, and the index's candidates. */
export async function nameConditions(
  context: NameSearchContext,
  table: NameSearchTable,
  name: string,
  months: readonly string[],
): Promise<RawBuilder<boolean>[]> {
  const needle = name.toLowerCase();
  // No name holds the separator: a needle with it could only match across two names.
  if (needle.includes(SEARCH_TEXT_SEPARATOR)) return [sql<boolean>`1 = 0`];
  const contains = holdsNeedle(context.dialect, needle, months);
  const candidates = await indexedNameMatches(context, table, needle, months);
  return candidates ? [contains, keyAmong(context.dialect, table, candidates)] : [contains];
}
