// One connection factory for both stores, chosen by DATABASE_URL:
//   - a file path or `sqlite:PATH` opens SQLite through better-sqlite3 (WAL mode);
//   - `postgres://` or `postgresql://` opens PostgreSQL through Kysely's pg dialect.
import path from 'node:path';
import fs from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import type { ClientConfig, Pool, QueryArrayResult } from 'pg';
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import { pipelinedPostgres, type PipelinedPostgres } from './pipelined-postgres';
import { rowObjectBuilder } from './row-objects';
import { StableLimitSqliteDialect } from './sqlite-dialect';
import type { Database } from './tables';
import type { DialectName } from './dialect';

export const DEFAULT_DATABASE_URL = './data/asrank.db';

type PgModule = typeof import('pg');
let pgModule: PgModule | undefined;

/**
 * pg, loaded when a PostgreSQL store is first opened rather than with this module: loading pg reads the global
 * `Response` (it looks for Cloudflare's runtime), which makes Node 20 load its whole fetch implementation, ~45 ms of
 * every start of a service on SQLite (docs/performance.md, twenty-first round). A plain require, so that bundlers
 * still include pg and start it only here.
 */
function pgDriver(): PgModule {
  if (!pgModule) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    pgModule = require('pg') as PgModule;
    // pg returns int8 (bigint) as a string by default; every bigint here (ASNs < 2^32, address and row counts)
    // is far below 2^53, so a JS number is exact.
    pgModule.types.setTypeParser(pgModule.types.builtins.INT8, (value: string) => Number(value));
  }
  return pgModule;
}

export interface OpenOptions {
  /**
   * Services open SQLite read-only, so a bug can never write and a load elsewhere is never blocked. On PostgreSQL
   * their sessions run without JIT compilation (`jit = off`): a page whose estimate passes `jit_above_cost` (an
   * estimate that the real rows, a page's hundred, fall far short of) compiled its expressions for 10-30 ms to run
   * them for 2 (docs/performance.md, sixty-second round).
   */
  readonly?: boolean;
  /** Maximum pool size for PostgreSQL. */
  poolSize?: number;
  /**
   * SQLite: bytes of the file read through a memory map (`PRAGMA mmap_size`; 0 turns it off). Default for read-only
   * handles {@link SERVING_MMAP_BYTES}, for others SQLite's own (off). Capped by SQLite at its compile-time maximum.
   */
  mmapSizeBytes?: number;
  /**
   * SQLite: page cache of this connection in bytes (`PRAGMA cache_size`). Default for read-only handles
   * {@link SERVING_CACHE_BYTES}, for others SQLite's own (2 MB).
   */
  cacheSizeBytes?: number;
  /**
   * SQLite: each run of a statement is stopped past this many ms (error code SQLITE_INTERRUPT; 0 or absent: never),
   * through the patched better-sqlite3's `statementTimeout` (patches/). A long statement otherwise holds the thread of
   * the process to its end, and every other request with it. PostgreSQL takes `statement_timeout` in its URL.
   */
  statementTimeoutMs?: number;
}

/** True when `error` is a statement stopped by its time limit: SQLite's interrupt, or PostgreSQL's statement_timeout. */
export function isStatementTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // 57014 is query_canceled: statement_timeout, or a cancel request, which nothing here sends.
  return code === 'SQLITE_INTERRUPT' || code === '57014';
}

/**
 * Serving defaults for read-only SQLite handles. mmap is address space backed by the OS page cache (shared with
 * every process reading the file, dropped first under memory pressure), not memory the service owns, so it is set
 * to the most this SQLite build maps (2 GiB, SQLITE_MAX_MMAP_SIZE): reads inside the mapped range skip a copy per
 * page (W3-like neighbour reads 63 -> 42 µs, real month 122 -> 80 µs in better-sqlite3). The page cache is memory
 * the service does own, one per connection, so it stays moderate: 64 MiB instead of 2 MB holds the hot upper levels
 * of every month's indexes (point lookups 15-18 -> 12 µs) and is still small for a 1 GB machine.
 */
export const SERVING_MMAP_BYTES = 2 ** 31;
export const SERVING_CACHE_BYTES = 64 * 2 ** 20;

/** The longest statement time limit (a signed 32-bit number of ms, as PostgreSQL's statement_timeout and Node's timers). */
export const MAX_STATEMENT_TIMEOUT_MS = 2 ** 31 - 1;

/** What the project's patch of better-sqlite3 adds to a connection (patches/better-sqlite3@12.6.2.patch). */
interface PatchedSqlite {
  statementTimeout(milliseconds: number): void;
}

function sizeOption(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be a whole number of bytes, 0 or more (got ${String(value)})`);
  return value;
}

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: DialectName;
  /** The SQLite file path, or the PostgreSQL URL with any password removed. */
  location: string;
  /** The raw better-sqlite3 handle when dialect is sqlite (for pragmas and bulk loads). */
  sqlite?: BetterSqlite3.Database;
  /**
   * PostgreSQL: a pool of its own for named prepared statements (which Kysely's driver does not make), whose sessions
   * plan every statement once, generically (`plan_cache_mode = force_generic_plan`). Only statements whose plan does
   * not depend on their values are named; in the default mode PostgreSQL still plans them anew for each run when its
   * generic cost estimate is the higher one, as it is for a page read from an offset or a bookmark (1.5-2 ms of
   * planning against 1.5-2.5 ms of execution for W2's page; docs/performance.md, twenty-sixth round). Kysely's
   * unnamed statements stay on `db`'s pool in the default mode: a generic plan of `LIMIT $1` guesses a tenth of the
   * table and picks hash joins over it.
   */
  postgres?: Pool;
  /**
   * PostgreSQL: one connection in pg's pipeline mode for the short statements many requests send at once (record
   * lookups by key, the data version), planned as `postgres`'s are (pipelined-postgres.ts).
   */
  postgresPipelined?: PipelinedPostgres;
  /**
   * Runs one reading statement at once and returns its rows as objects, bypassing Kysely's asynchronous driver (its
   * connection mutex and promise chain). Set by the GraphQL service's SQLite statement cache for the one-record
   * lookups it answers most; absent elsewhere, where callers go through `db`.
   */
  readRows?(sql: string, parameters: readonly unknown[]): unknown[];
  /**
   * SQLite: the statement time limit asked for (`statementTimeoutMs`) that this better-sqlite3 cannot keep, because
   * it is a build without the project's patch (a prebuilt binary). Its statements run to their end; the caller says so.
   */
  unenforcedStatementTimeoutMs?: number;
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

/**
 * A pool for Kysely whose clients read a statement's rows as arrays and make the row objects with rowObjectBuilder:
 * pg's own give every result's rows a hidden class of their own (row-objects.ts). Cursors and multi-statement
 * results pass through as pg gives them.
 */
function poolWithRowObjects(pool: Pool): PostgresPool {
  return {
    connect: async () => {
      const client = await pool.connect();
      const query = async (text: string, values: readonly unknown[]) => {
        const result = (await client.query({ text, values: [...values], rowMode: 'array' })) as
          QueryArrayResult | QueryArrayResult[];
        if (Array.isArray(result) || result.fields.length === 0) return result;
        return {
          ...result,
          rows: result.rows.map(rowObjectBuilder(result.fields.map((field) => field.name))),
        };
      };
      return {
        query: ((textOrCursor: unknown, values?: readonly unknown[]) =>
          typeof textOrCursor === 'string'
            ? query(textOrCursor, values ?? [])
            : client.query(textOrCursor as never)) as unknown as PostgresPoolClient['query'],
        release: () => client.release(),
      };
    },
    end: () => pool.end(),
  };
}

export function openDatabase(url: string = DEFAULT_DATABASE_URL, options: OpenOptions = {}): DatabaseHandle {
  const parsed = parseDatabaseUrl(url);
  const mmapBytes =
    sizeOption('mmapSizeBytes', options.mmapSizeBytes) ?? (options.readonly ? SERVING_MMAP_BYTES : undefined);
  const cacheBytes =
    sizeOption('cacheSizeBytes', options.cacheSizeBytes) ??
    (options.readonly ? SERVING_CACHE_BYTES : undefined);
  if (parsed.dialect === 'postgres') {
    const servingOptions = options.readonly ? '-c jit=off' : undefined;
    const namedStatementOptions = ['-c plan_cache_mode=force_generic_plan', servingOptions]
      .filter(Boolean)
      .join(' ');
    const openPool = (sessionOptions?: string) => {
      const pool = new (pgDriver().Pool)({
        connectionString: parsed.target,
        max: options.poolSize ?? 10,
        ...(sessionOptions ? { options: sessionOptions } : {}),
      });
      // An idle pooled connection closed by the server (restart, failover, pg_terminate_backend) emits 'error' on
      // the pool; pg drops that client and the next query opens a new one, but with no listener Node would crash.
      pool.on('error', (error) => process.emitWarning(`PostgreSQL idle connection lost: ${error.message}`));
      return pool;
    };
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: poolWithRowObjects(openPool(servingOptions)) }),
    });
    const prepared = openPool(namedStatementOptions);
    const pipelined = pipelinedPostgres(
      () =>
        new (pgDriver().Client)({
          connectionString: parsed.target,
          options: namedStatementOptions,
          pipeline: true,
        } satisfies ClientConfig),
    );
    return {
      db,
      dialect: 'postgres',
      location: redact(parsed.target),
      postgres: prepared,
      postgresPipelined: pipelined,
      close: async () => {
        await Promise.all([db.destroy(), prepared.end(), pipelined.end()]);
      },
    };
  }
  if (parsed.target !== ':memory:' && !options.readonly) {
    fs.mkdirSync(path.dirname(parsed.target), { recursive: true });
  }
  const sqlite = new BetterSqlite3(parsed.target, {
    readonly: options.readonly ?? false,
    fileMustExist: options.readonly ?? false,
  });
  if (!options.readonly) sqlite.pragma('journal_mode = WAL');
  if (mmapBytes !== undefined) sqlite.pragma(`mmap_size = ${mmapBytes}`);
  // A negative cache_size is KiB (a positive one would be pages, whose size depends on the file).
  if (cacheBytes !== undefined) sqlite.pragma(`cache_size = -${Math.max(1, Math.ceil(cacheBytes / 1024))}`);
  sqlite.pragma('foreign_keys = ON');
  // Readers must not fail while a loader holds the write lock for a moment.
  sqlite.pragma('busy_timeout = 5000');
  const timeoutMs = options.statementTimeoutMs ?? 0;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 0 || timeoutMs > MAX_STATEMENT_TIMEOUT_MS)
    throw new Error(
      `statementTimeoutMs must be a whole number of ms from 0 to ${MAX_STATEMENT_TIMEOUT_MS} (got ${String(timeoutMs)})`,
    );
  // Added by the project's patch of better-sqlite3, so not in its published types; an unpatched build (a prebuilt
  // binary) has none, and serves without the limit.
  const patched = sqlite as unknown as Partial<PatchedSqlite>;
  const enforced = typeof patched.statementTimeout === 'function';
  if (timeoutMs > 0 && enforced) patched.statementTimeout!(timeoutMs);
  const db = new Kysely<Database>({ dialect: new StableLimitSqliteDialect({ database: sqlite }) });
  return {
    db,
    dialect: 'sqlite',
    location: parsed.target,
    sqlite,
    ...(timeoutMs > 0 && !enforced && { unenforcedStatementTimeoutMs: timeoutMs }),
    close: () => db.destroy(),
  };
}
