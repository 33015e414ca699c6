// Test fixtures: real databases (a temp SQLite file or a fresh PostgreSQL database) loaded with the
// committed sample through the real CLI ingest, and the real service listening on an ephemeral port.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '@asrank/db';
import { loadSampleData } from '@asrank/cli';
import { parse } from 'graphql';
import { buildExecutionContext } from 'graphql/execution/execute';
import { createSchema } from '@asrank/schema';
import { buildGraphqlApp, loadConfig } from '../src';

export const repoRoot = path.resolve(__dirname, '..', '..', '..');

/** CAIDA files are read in place from the shared folder, never copied into the repository. */
export function sharedCaidaDir(): string {
  return process.env['ASRANK_SHARED_DATA'] ?? path.resolve(repoRoot, '..', 'shared', 'data', 'caida');
}

export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `asrank-graphql-${prefix}-`));
}

export interface LoadedDatabase {
  url: string;
  dates: string[];
  /** A read/write handle on the same store, for computing expected values in assertions. */
  reader: DatabaseHandle;
  dispose(): Promise<void>;
}

/** A fresh SQLite file with every month of the sample loaded. */
export async function sqliteWithSample(): Promise<LoadedDatabase> {
  const dir = makeTempDir('sqlite');
  const file = path.join(dir, 'asrank.db');
  const loader = openDatabase(file);
  await migrateToLatest(loader.db, loader.dialect);
  const dates = await loadSampleData(loader);
  await loader.close();
  const reader = openDatabase(file, { readonly: true });
  return {
    url: file,
    dates,
    reader,
    dispose: async () => {
      await reader.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The first `count` ASNs of month `date` by number, as decimal strings. */
export async function asnsOfMonth(handle: DatabaseHandle, date: string, count: number): Promise<string[]> {
  const rows = await handle.db
    .selectFrom('asns')
    .select('asn')
    .where('date', '=', date)
    .orderBy('asn')
    .limit(count)
    .execute();
  return rows.map((row) => String(row.asn));
}

export const pgAdminUrl = process.env['DATABASE_URL_PG'];

/** A uniquely named PostgreSQL database on the DATABASE_URL_PG server, migrated and loaded with the sample. */
export async function postgresWithSample(adminUrl: string): Promise<LoadedDatabase> {
  const name = `asrank_graphql_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = openDatabase(adminUrl, { poolSize: 1 });
  await sql`create database ${sql.id(name)}`.execute(admin.db);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const loader = openDatabase(url.toString(), { poolSize: 2 });
  await migrateToLatest(loader.db, loader.dialect);
  const dates = await loadSampleData(loader);
  await loader.close();
  const reader = openDatabase(url.toString(), { poolSize: 2 });
  return {
    url: url.toString(),
    dates,
    reader,
    dispose: async () => {
      await reader.close();
      await dropDatabaseWhenIdle(admin, name);
      await admin.close();
    },
  };
}

/**
 * Drops database `name` once its sessions have gone. pool.end() resolves before the backends exit; WITH (FORCE)
 * would terminate them and the ended clients would raise an unhandled 'error'. Waits for every session of the
 * database (a service's too) to go.
 */
export async function dropDatabaseWhenIdle(admin: DatabaseHandle, name: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const sessions = await sql<{
      n: number;
    }>`select count(*)::int as n from pg_stat_activity where datname = ${name}`.execute(admin.db);
    if (Number(sessions.rows[0]?.n ?? 0) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin.db);
}

export interface RunningService {
  app: FastifyInstance;
  /** e.g. http://127.0.0.1:PORT/v2 (no trailing slash). */
  baseUrl: string;
  close(): Promise<void>;
}

export async function startService(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<RunningService> {
  // Event-loop-delay shedding is off unless a test asks for it: a stall of the shared test machine must not turn an
  // answer under test into a 503.
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    ...env,
  });
  const app = await buildGraphqlApp(config);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('service did not bind a TCP port');
  return { app, baseUrl: `http://127.0.0.1:${address.port}${config.basePath}`, close: () => app.close() };
}

export interface GraphqlResponse<T = Record<string, unknown>> {
  status: number;
  body: {
    data?: T | null;
    errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
  };
}

export type Method = 'POST' | 'GET';

/** One GraphQL request over real HTTP, by POST (JSON body) or GET (query string). */
export async function graphql<T = Record<string, unknown>>(
  baseUrl: string,
  query: string,
  options: { variables?: Record<string, unknown>; operationName?: string; method?: Method } = {},
): Promise<GraphqlResponse<T>> {
  const method = options.method ?? 'POST';
  let response: Response;
  if (method === 'GET') {
    const params = new URLSearchParams({ query });
    if (options.variables) params.set('variables', JSON.stringify(options.variables));
    if (options.operationName) params.set('operationName', options.operationName);
    response = await fetch(`${baseUrl}/graphql?${params.toString()}`);
  } else {
    response = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables: options.variables, operationName: options.operationName }),
    });
  }
  return { status: response.status, body: (await response.json()) as GraphqlResponse<T>['body'] };
}

/** Like graphql() but fails the test with the server's errors when the answer is not clean data. */
export async function graphqlData<T = Record<string, unknown>>(
  baseUrl: string,
  query: string,
  options: { variables?: Record<string, unknown>; operationName?: string; method?: Method } = {},
): Promise<T> {
  const { status, body } = await graphql<T>(baseUrl, query, options);
  if (status !== 200 || body.errors || !body.data) {
    throw new Error(`GraphQL request failed (HTTP ${status}): ${JSON.stringify(body.errors ?? body)}`);
  }
  return body.data;
}

let asrankSchema: ReturnType<typeof createSchema> | undefined;

/**
 * graphql-js's own messages for a request (operation lookup and variable coercion), from the function Mercurius'
 * variable check calls: what the service must answer in graphql-js's words. Empty when graphql-js accepts it.
 */
export function graphqlJsRequestErrors(
  query: string,
  variables?: Record<string, unknown>,
  operationName?: string,
): string[] {
  asrankSchema ??= createSchema();
  const context = buildExecutionContext({
    schema: asrankSchema,
    document: parse(query),
    variableValues: variables,
    operationName,
  });
  return Array.isArray(context) ? context.map((error: Error) => error.message) : [];
}
