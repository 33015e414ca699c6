// Planner statistics, refreshed by every loader after it changes the data (ingest, import, drop).
import { sql } from 'kysely';
import type { DatabaseHandle } from './connection';
import { ALL_TABLES } from './tables';
import { beginImmediateWhenFree } from './write-lock';

/**
 * Rows SQLite's ANALYZE reads per index (`PRAGMA analysis_limit`). A full ANALYZE reads every index entry: 4.3 s on
 * the real December 2017 month alone and 60 s on the 12-month generated store, paid again on every load. Sampled, it
 * took 0.2-0.3 s and 3.5 s (up to 29 s when the 6.6 GB file was not in the OS cache: the row counts still visit every
 * index page, but no longer compare every entry), and on both stores the hot queries got the same plans as with full
 * statistics (docs/data-model.md). The sample cannot see that `date` has few values (its per-date
 * figure is the sample size), which every index leads with; plans never depended on that figure here.
 * Sampling also leaves sqlite_stat4 empty, which matters: with stat4 samples SQLite re-prepares a statement whenever
 * its bound values could change the plan, and the API's `in (select value from json_each(?))` key lookups became 8x
 * slower (144 vs 18 µs for one ASN) on a store analysed in full.
 * `PRAGMA optimize` is not used: on a store never analysed before it gathered nothing (it revisits only tables this
 * connection queried or whose statistics went stale).
 */
export const SQLITE_ANALYSIS_LIMIT = 1000;

/**
 * Gathers fresh planner statistics: SQLite `ANALYZE` with {@link SQLITE_ANALYSIS_LIMIT} (writes sqlite_stat1), and
 * PostgreSQL `VACUUM (ANALYZE)` of every table (sampled by the server). Without them SQLite assumes every `date = ?`
 * matches about ten rows and PostgreSQL plans a freshly loaded month as if its tables were empty. On SQLite, open
 * connections pick up the first statistics of a store (creating sqlite_stat1 changes the schema version) and any
 * refresh that comes with a schema change (a month-sized load recreates indexes); a later refresh alone is read when
 * they reopen.
 */
export async function refreshStatistics(handle: DatabaseHandle): Promise<void> {
  if (handle.dialect === 'sqlite') {
    const sqlite = handle.sqlite!;
    // A load that follows this one may hold the write lock for minutes: wait for it rather than fail after 5 s.
    await beginImmediateWhenFree(sqlite);
    sqlite.pragma(`analysis_limit = ${SQLITE_ANALYSIS_LIMIT}`);
    try {
      sqlite.exec('analyze');
      sqlite.exec('commit');
    } finally {
      if (sqlite.inTransaction) sqlite.exec('rollback');
      sqlite.pragma('analysis_limit = 0');
    }
    return;
  }
  // VACUUM as well: a month just written has no page marked all-visible until autovacuum gets to it, which after the
  // second month of a store it may not for months (its insert threshold is a fifth of the table), and until then an
  // index-only scan (a list page from its order's index, migration 013) reads every row's page too: 20.6 ms against
  // 4.1 for a page at offset 20,000 of a generated month. It also reclaims the rows a reload replaced. Cost: 0.3 s
  // after a first load of a generated month, 5.8 s after reloading one (a million dead rows in several tables),
  // against the load's 65-89 s. Outside a transaction, as VACUUM must be (the load has committed).
  for (const table of ALL_TABLES) await sql`vacuum (analyze) ${sql.table(table)}`.execute(handle.db);
}

/** True when SQLite has planner statistics (sqlite_stat1 with rows); PostgreSQL always keeps its own. */
export function hasStatistics(handle: DatabaseHandle): boolean {
  if (handle.dialect !== 'sqlite') return true;
  const sqlite = handle.sqlite!;
  const table = sqlite
    .prepare(`select 1 from sqlite_master where type = 'table' and name = 'sqlite_stat1'`)
    .get();
  if (!table) return false;
  return sqlite.prepare('select 1 from sqlite_stat1 limit 1').get() !== undefined;
}
