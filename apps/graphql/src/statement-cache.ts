// Kysely's SQLite driver calls better-sqlite3's prepare() for every query it runs, and compiling the SQL
// costs more than running it for the service's small indexed reads (profile of the point lookup: prepare
// 21% of CPU, execution 20%). The service asks a few dozen query shapes over and over (values are bound
// parameters), so it keeps each compiled statement by its SQL text.
import { Kysely, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { rowObjectBuilder, StableLimitSqliteDialect, type Database, type DatabaseHandle } from '@asrank/db';
import { turnSnapshot, type TurnSnapshot } from './turn-snapshot';

/** better-sqlite3's connection and statement types, taken from the handle so this package needs no extra types. */
type SqliteConnection = NonNullable<DatabaseHandle['sqlite']>;
type CompiledStatement = ReturnType<SqliteConnection['prepare']>;

/** Distinct SQL texts kept; shapes vary only with the selected columns, filters and sort, so this is ample. */
export const STATEMENT_CACHE_SIZE = 1000;

/**
 * A reading statement run in better-sqlite3's raw (array) mode with the row objects built by @asrank/db's
 * rowObjectBuilder, faster than better-sqlite3's own for wide rows. Duplicate column names keep the last value, as
 * better-sqlite3's own objects do. With a turn snapshot, a read runs in the turn's read transaction; a write, and a
 * read iterated over several turns, run outside it (the turn's end could not close it while they are open).
 */
function withRowObjects(statement: CompiledStatement, snapshot: TurnSnapshot | undefined): SqliteStatement {
  if (!statement.reader) {
    if (!snapshot) return statement;
    return {
      reader: false,
      all: (parameters) => statement.all(parameters),
      run: (parameters) => {
        snapshot.leave();
        return statement.run(parameters);
      },
      iterate: (parameters) => statement.iterate(parameters),
    };
  }
  statement.raw(true);
  const toRow = rowObjectBuilder(statement.columns().map((column) => column.name));
  return {
    reader: true,
    all: (parameters) => {
      snapshot?.enter();
      // Each row array replaced by its object in place: no second array per statement.
      const rows = statement.all(parameters) as unknown[];
      for (let index = 0; index < rows.length; index++) rows[index] = toRow(rows[index] as unknown[]);
      return rows;
    },
    run: (parameters) => statement.run(parameters),
    *iterate(parameters) {
      snapshot?.leave();
      for (const values of statement.iterate(parameters) as IterableIterator<unknown[]>) yield toRow(values);
    },
  };
}

/**
 * A better-sqlite3 connection whose prepare() reuses compiled statements (oldest dropped beyond `size`); with a turn
 * snapshot, the reads of one event-loop turn share one read transaction.
 */
export function statementCachingDatabase(
  sqlite: SqliteConnection,
  size = STATEMENT_CACHE_SIZE,
  snapshot?: TurnSnapshot,
): SqliteDatabase {
  const statements = new Map<string, { compiled: CompiledStatement; statement: SqliteStatement }>();
  return {
    close: () => sqlite.close(),
    prepare(text: string): SqliteStatement {
      const cached = statements.get(text);
      // A statement still being iterated (a streamed query) cannot run again until it finishes.
      if (cached && !cached.compiled.busy) return cached.statement;
      const compiled = sqlite.prepare(text);
      const statement = withRowObjects(compiled, snapshot);
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
 * cache at once, the reads of one event-loop turn in one read transaction (SQLite only; PostgreSQL is returned as
 * is). For the service's read-only connection: a caller's own transaction on it is left alone, but a write would
 * first close the turn's.
 */
export function withStatementCache(handle: DatabaseHandle): DatabaseHandle {
  if (handle.dialect !== 'sqlite' || !handle.sqlite) return handle;
  const statements = statementCachingDatabase(
    handle.sqlite,
    STATEMENT_CACHE_SIZE,
    turnSnapshot(handle.sqlite),
  );
  const db = new Kysely<Database>({ dialect: new StableLimitSqliteDialect({ database: statements }) });
  // Destroying this Kysely closes the shared connection; the original instance never opened its own.
  return {
    ...handle,
    db,
    readRows: (text, parameters) => statements.prepare(text).all(parameters) as unknown[],
    close: () => db.destroy(),
  };
}
