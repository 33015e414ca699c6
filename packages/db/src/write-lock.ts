// One writer of months at a time. Two loads into one store used to collide: on SQLite the second waited 5 s in
// SQLite's busy handler and then failed with "database is locked" after all its parsing; on PostgreSQL each load's
// per-month CREATE INDEX (name-search.ts) waited on the other's inserts and the server broke the deadlock by failing
// one. Now a writer waits for the one before it.
import { setTimeout as delay } from 'node:timers/promises';
import { sql, type QueryExecutorProvider } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';

/** A writer gave up waiting for the store's write lock. */
export class DatabaseBusyError extends Error {
  override readonly name = 'DatabaseBusyError';
}

/** Longest a writer waits for the one before it (a month of the full Internet loads in minutes). */
export const WRITE_LOCK_WAIT_MS = 30 * 60 * 1000;

/** How long one attempt blocks in SQLite's busy handler: the event loop (Ctrl-C, progress) runs in between. */
const ATTEMPT_MS = 200;
const PAUSE_MS = 500;

/**
 * Begins an immediate transaction (SQLite's write lock) on `sqlite`, waiting for another writer to finish. The wait
 * is in the event loop, not in SQLite's busy handler, which would hold the process deaf to signals for as long.
 * `onWait` runs once, when the first attempt finds the lock taken.
 */
export async function beginImmediateWhenFree(
  sqlite: BetterSqlite3.Database,
  options: { onWait?: () => void; maxWaitMs?: number } = {},
): Promise<void> {
  const maxWaitMs = options.maxWaitMs ?? WRITE_LOCK_WAIT_MS;
  const previousTimeout = sqlite.pragma('busy_timeout', { simple: true }) as number;
  sqlite.pragma(`busy_timeout = ${ATTEMPT_MS}`);
  const started = Date.now();
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        sqlite.exec('begin immediate');
        return;
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'SQLITE_BUSY') throw error;
        if (attempt === 0) options.onWait?.();
        if (Date.now() - started >= maxWaitMs) {
          throw new DatabaseBusyError(
            `database busy: another process has held its write lock for ${Math.round((Date.now() - started) / 1000)} s; retry when it has finished`,
          );
        }
        await delay(PAUSE_MS);
      }
    }
  } finally {
    sqlite.pragma(`busy_timeout = ${Number(previousTimeout)}`);
  }
}

/** Key of the PostgreSQL advisory lock month writers hold ("asrk"). */
export const MONTH_WRITES_LOCK_KEY = 0x6173726b;

/** Inside a PostgreSQL transaction: waits for other month writers, then holds the lock until it ends. */
export async function lockMonthWrites(transaction: QueryExecutorProvider): Promise<void> {
  await sql`select pg_advisory_xact_lock(${MONTH_WRITES_LOCK_KEY})`.execute(transaction);
}
