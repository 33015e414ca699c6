// The two services as separate processes from their built entry points (what `pnpm start:*` runs), with the
// environment variables of docs/deploy.md, and the sample data loaded into a fresh SQLite file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSampleData } from '@asrank/cli';
import { migrateToLatest, openDatabase } from '@asrank/db';
import { graphqlMain, restMain } from './paths';
import { freePort, startProcess, waitUntil, type ManagedProcess } from './processes';

export interface ServiceProcess {
  process: ManagedProcess;
  port: number;
  /** http://127.0.0.1:PORT (no base path). */
  origin: string;
  /** origin + base path. */
  baseUrl: string;
}

export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `asrank-e2e-${prefix}-`));
}

/** A SQLite file at `file` holding every month of the committed sample, loaded through the real ingest. */
export async function loadSampleSqlite(file: string): Promise<string[]> {
  const handle = openDatabase(file);
  try {
    await migrateToLatest(handle.db, handle.dialect);
    return await loadSampleData(handle);
  } finally {
    await handle.close();
  }
}

export async function graphqlAnswers(baseUrl: string): Promise<boolean> {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  await response.text();
  return response.status === 200;
}

export interface GraphqlProcessOptions {
  databaseUrl: string;
  basePath?: string;
  port?: number;
  env?: Record<string, string>;
  /** Wait until /graphql answers (default true). */
  waitReady?: boolean;
}

export async function startGraphqlProcess(options: GraphqlProcessOptions): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const basePath = options.basePath ?? '/v2';
  const child = startProcess('graphql', process.execPath, [graphqlMain], {
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: options.databaseUrl,
      BASE_PATH: basePath,
      LOG_LEVEL: 'warn',
      ...options.env,
    },
  });
  const origin = `http://127.0.0.1:${port}`;
  const service = { process: child, port, origin, baseUrl: `${origin}${basePath}` };
  if (options.waitReady !== false) {
    await waitUntil(`the GraphQL service on port ${port}`, () => graphqlAnswers(service.baseUrl), {
      process: child,
    });
  }
  return service;
}

export interface RestProcessOptions {
  graphqlUrl: string;
  basePath?: string;
  port?: number;
  env?: Record<string, string>;
}

export async function startRestProcess(options: RestProcessOptions): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const basePath = options.basePath ?? '/v2';
  const child = startProcess('rest', process.execPath, [restMain], {
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      GRAPHQL_URL: options.graphqlUrl,
      BASE_PATH: basePath,
      LOG_LEVEL: 'warn',
      ...options.env,
    },
  });
  const origin = `http://127.0.0.1:${port}`;
  await waitUntil(
    `the REST service on port ${port}`,
    async () => {
      const response = await fetch(`${origin}/healthz`);
      await response.text();
      return response.status === 200;
    },
    { process: child },
  );
  return { process: child, port, origin, baseUrl: `${origin}${basePath}` };
}
