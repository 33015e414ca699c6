// Opens the store for serving and refuses to serve one that is not ready: SQLite read-only (a bug can
// never write, and a load elsewhere is never blocked), both with a statement time limit, no pending
// migration, and at least one dataset loaded.
import { existsSync } from 'node:fs';
import {
  isStatementTimeout,
  openDatabase,
  parseDatabaseUrl,
  pendingMigrations,
  type DatabaseHandle,
} from '@asrank/db';
import { withStatementCache } from './statement-cache';

/** Thrown when the database cannot be served; the message says what to do. */
export class DatabaseNotReadyError extends Error {
  override readonly name = 'DatabaseNotReadyError';
}

/**
 * Adds PostgreSQL's statement_timeout as a connection parameter (node-postgres reads it from the URL),
 * unless the URL already sets one, so a runaway query is cancelled by the server itself.
 */
export function withStatementTimeout(databaseUrl: string, timeoutMs: number): string {
  if (timeoutMs <= 0 || parseDatabaseUrl(databaseUrl).dialect !== 'postgres') return databaseUrl;
  const url = new URL(databaseUrl);
  if (!url.searchParams.has('statement_timeout'))
    url.searchParams.set('statement_timeout', String(timeoutMs));
  return url.toString();
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What to do about a store that would not open. A SQLite file that exists is not missing a load: a store is in WAL
 * mode, and even a reader creates its -shm file beside it, so its directory must be writable.
 */
function openAdvice(dialect: string, target: string, error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (dialect === 'sqlite' && existsSync(target)) {
    if (code === 'SQLITE_NOTADB') return 'it is not a SQLite database; set DATABASE_URL to an asrank store';
    if (typeof code === 'string' && (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN'))
      return `the store is in WAL mode, whose readers write ${target}-shm beside it: give the service write access to its directory`;
  }
  return 'create it and load a month with the asrank CLI, or set DATABASE_URL';
}

export async function openServingDatabase(
  databaseUrl: string,
  statementTimeoutMs: number,
): Promise<DatabaseHandle> {
  const { dialect, target } = parseDatabaseUrl(databaseUrl);
  let handle: DatabaseHandle;
  try {
    handle = openDatabase(withStatementTimeout(databaseUrl, statementTimeoutMs), {
      readonly: true,
      statementTimeoutMs: dialect === 'sqlite' ? statementTimeoutMs : undefined,
    });
  } catch (error) {
    const where = dialect === 'sqlite' ? `SQLite file ${target}` : 'the PostgreSQL database';
    throw new DatabaseNotReadyError(
      `cannot open ${where} (${describe(error)}): ${openAdvice(dialect, target, error)}`,
    );
  }
  try {
    await assertReady(handle, statementTimeoutMs);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  return withStatementCache(handle);
}

/**
 * The start-up reads run under the statement time limit too. One it stops says to raise the limit: "run the
 * migration first" would send the operator after a store that is fine.
 */
function statementTimeoutAdvice(
  what: string,
  location: string,
  statementTimeoutMs: number,
): DatabaseNotReadyError {
  return new DatabaseNotReadyError(
    `the start-up read of ${what} of ${location} was stopped by DB_STATEMENT_TIMEOUT_MS (${statementTimeoutMs} ms): ` +
      'raise DB_STATEMENT_TIMEOUT_MS (0 turns the limit off) and start the service again',
  );
}

async function assertReady(handle: DatabaseHandle, statementTimeoutMs: number): Promise<void> {
  let pending: string[];
  try {
    pending = await pendingMigrations(handle.db, handle.dialect);
  } catch (error) {
    if (isStatementTimeout(error))
      throw statementTimeoutAdvice('the migration state', handle.location, statementTimeoutMs);
    throw new DatabaseNotReadyError(
      `cannot read the migration state of ${handle.location} (${describe(error)}): run the asrank CLI's migration/ingest first`,
    );
  }
  if (pending.length > 0) {
    throw new DatabaseNotReadyError(
      `database ${handle.location} has ${pending.length} pending migration(s) (${pending.join(', ')}): ` +
        'run `pnpm asrank migrate` (or load a month, which migrates first) and start the service again',
    );
  }
  const loaded = await handle.db
    .selectFrom('datasets')
    .select('date')
    .limit(1)
    .executeTakeFirst()
    .catch((error: unknown) => {
      throw isStatementTimeout(error)
        ? statementTimeoutAdvice('the loaded datasets', handle.location, statementTimeoutMs)
        : error;
    });
  if (!loaded) {
    throw new DatabaseNotReadyError(
      `database ${handle.location} holds no dataset: load at least one month with the asrank CLI (e.g. \`pnpm asrank ingest ...\`) first`,
    );
  }
}
