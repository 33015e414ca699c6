// Kysely's SQLite driver calls better-sqlite3's prepare() for every query it runs, and compiling the SQL
// costs more than running it for the service's small indexed reads (profile of the point lookup: prepare
// 21% of CPU, execution 20%). The service asks a few dozen query shapes over and over (values are bound
// parameters), so it keeps each compiled statement by its SQL text.
import { Kysely, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { rowObjectBuilder, StableLimitSqliteDialect, type Database, type DatabaseHandle } from '@asrank/db';

/** better-sqlite3's connection and statement types, taken from the handle so this package needs no extra types. */
type SqliteConnection = NonNullable<DatabaseHandle['sqlite']>;
type CompiledStatement = ReturnType<SqliteConnection['prepare']>;

/** Distinct SQL texts kept; shapes vary only with the selected columns, filters and sort, so this is ample. */
export const STATEMENT_CACHE_SIZE = 1000;

/**
 * A reading statement run in better-sqlite3's raw (array) mode with the row objects built by @asrank/db's
 * rowObjectBuilder, faster than better-sqlite3's own for wide rows. Duplicate column names keep the last value, as
 * better-sqlite3's own objects do.
 */
function withRowObjects(statement: CompiledStatement): SqliteStatement {
  if (!statement.reader) return statement;
  statement.raw(true);
  const toRow = rowObjectBuilder(statement.columns().map((column) => column.name));
  return {
    reader: true,
    all: (parameters) => (statement.all(parameters) as unknown[][]).map(toRow),
    run: (parameters) => statement.run(parameters),
    *iterate(parameters) {
      for (const values of statement.iterate(parameters) as IterableIterator<unknown[]>) yield toRow(values);
    },
  };
}

/** A better-sqlite3 connection whose prepare() reuses compiled statements (oldest dropped beyond `size`). */
export function statementCachingDatabase(
  sqlite: SqliteConnection,
  size = STATEMENT_CACHE_SIZE,
): SqliteDatabase {
  const statements = new Map<string, { compiled: CompiledStatement; statement: SqliteStatement }>();
  return {
    close: () => sqlite.close(),
    prepare(text: string): SqliteStatement {
      const cached = statements.get(text);
      // A statement still being iterated (a streamed query) cannot run again until it finishes.
      if (cached && !cached.compiled.busy) return cached.statement;
      const compiled = sqlite.prepare(text);
      const statement = withRowObjects(compiled);
      if (!cached) {
        if (statements.size >= size) statements.delete(statements.keys().next().value as string);
        statements.set(text, { compiled, statement });
      }
      return statement;
    },
  };
}

/**
 * The same handle with a Kysely instance over the statement cache, and `readRows` running a statement from the same
 * cache at once (SQLite only; PostgreSQL is returned as is).
 */
export function withStatementCache(handle: DatabaseHandle): DatabaseHandle {
  if (handle.dialect !== 'sqlite' || !handle.sqlite) return handle;
  const statements = statementCachingDatabase(handle.sqlite);
  const db = new Kysely<Database>({ dialect: new StableLimitSqliteDialect({ database: statements }) });
  // Destroying this Kysely closes the shared connection; the original instance never opened its own.
  return {
    ...handle,
    db,
    readRows: (text, parameters) => statements.prepare(text).all(parameters) as unknown[],
    close: () => db.destroy(),
  };
}
