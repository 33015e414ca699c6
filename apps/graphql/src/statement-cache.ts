// Kysely's SQLite driver calls better-sqlite3's prepare() for every query it runs, and compiling the SQL
// costs more than running it for the service's small indexed reads (profile of the point lookup: prepare
// 21% of CPU, execution 20%). The service asks a few dozen query shapes over and over (values are bound
// parameters), so it keeps each compiled statement by its SQL text.
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type { Database, DatabaseHandle } from '@asrank/db';

/** better-sqlite3's connection and statement types, taken from the handle so this package needs no extra types. */
type SqliteConnection = NonNullable<DatabaseHandle['sqlite']>;
type CompiledStatement = ReturnType<SqliteConnection['prepare']>;

/** Distinct SQL texts kept; shapes vary only with the selected columns, filters and sort, so this is ample. */
export const STATEMENT_CACHE_SIZE = 1000;

/** A better-sqlite3 connection whose prepare() reuses compiled statements (oldest dropped beyond `size`). */
export function statementCachingDatabase(
  sqlite: SqliteConnection,
  size = STATEMENT_CACHE_SIZE,
): SqliteDatabase {
  const statements = new Map<string, CompiledStatement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string): SqliteStatement {
      const cached = statements.get(text);
      // A statement still being iterated (a streamed query) cannot run again until it finishes.
      if (cached && !cached.busy) return cached;
      const statement = sqlite.prepare(text);
      if (!cached) {
        if (statements.size >= size) statements.delete(statements.keys().next().value as string);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

/** The same handle with a Kysely instance over the statement cache (SQLite only; PostgreSQL is returned as is). */
export function withStatementCache(handle: DatabaseHandle): DatabaseHandle {
  if (handle.dialect !== 'sqlite' || !handle.sqlite) return handle;
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: statementCachingDatabase(handle.sqlite) }),
  });
  // Destroying this Kysely closes the shared connection; the original instance never opened its own.
  return { ...handle, db, close: () => db.destroy() };
}
