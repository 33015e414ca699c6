// One connection factory for both stores, chosen by DATABASE_URL:
//   - a file path or `sqlite:PATH` opens SQLite through better-sqlite3 (WAL mode);
//   - `postgres://` or `postgresql://` opens PostgreSQL through Kysely's pg dialect.
import path from 'node:path';
import fs from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { Database } from './tables';
import type { DialectName } from './dialect';

export const DEFAULT_DATABASE_URL = './data/asrank.db';

// pg returns int8 (bigint) as a string by default; every bigint here (ASNs < 2^32, address and row counts)
// is far below 2^53, so a JS number is exact.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

export interface OpenOptions {
  /** Services open SQLite read-only, so a bug can never write and a load elsewhere is never blocked. */
  readonly?: boolean;
  /** Maximum pool size for PostgreSQL. */
  poolSize?: number;
}

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: DialectName;
  /** The SQLite file path, or the PostgreSQL URL with any password removed. */
  location: string;
  /** The raw better-sqlite3 handle when dialect is sqlite (for pragmas and bulk loads). */
  sqlite?: BetterSqlite3.Database;
  close(): Promise<void>;
}

export interface ParsedDatabaseUrl {
  dialect: DialectName;
  /** SQLite: absolute file path; PostgreSQL: connection string. */
  target: string;
}

export function parseDatabaseUrl(url: string = DEFAULT_DATABASE_URL): ParsedDatabaseUrl {
  const trimmed = url.trim();
  if (trimmed === '')
    throw new Error('DATABASE_URL is empty: give a SQLite file path, sqlite:PATH, or postgres://…');
  if (/^postgres(ql)?:\/\//i.test(trimmed)) return { dialect: 'postgres', target: trimmed };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    throw new Error(
      `DATABASE_URL scheme not supported: ${redact(trimmed)} (use a file path, sqlite:PATH, or postgres://…)`,
    );
  }
  const file = trimmed.startsWith('sqlite:') ? trimmed.slice('sqlite:'.length) : trimmed;
  if (file === ':memory:') return { dialect: 'sqlite', target: file };
  return { dialect: 'sqlite', target: path.resolve(file) };
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

export function openDatabase(url: string = DEFAULT_DATABASE_URL, options: OpenOptions = {}): DatabaseHandle {
  const parsed = parseDatabaseUrl(url);
  if (parsed.dialect === 'postgres') {
    const pool = new pg.Pool({ connectionString: parsed.target, max: options.poolSize ?? 10 });
    // An idle pooled connection closed by the server (restart, failover, pg_terminate_backend) emits 'error' on the
    // pool; pg drops that client and the next query opens a new one, but with no listener Node would crash.
    pool.on('error', (error) => process.emitWarning(`PostgreSQL idle connection lost: ${error.message}`));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', location: redact(parsed.target), close: () => db.destroy() };
  }
  if (parsed.target !== ':memory:' && !options.readonly) {
    fs.mkdirSync(path.dirname(parsed.target), { recursive: true });
  }
  const sqlite = new BetterSqlite3(parsed.target, {
    readonly: options.readonly ?? false,
    fileMustExist: options.readonly ?? false,
  });
  if (!options.readonly) sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  // Readers must not fail while a loader holds the write lock for a moment.
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, dialect: 'sqlite', location: parsed.target, sqlite, close: () => db.destroy() };
}
