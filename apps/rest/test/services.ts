// Both real services for the integration tests: a SQLite file loaded with the committed sample through the
// real `asrank` CLI (this package may not open the database itself), the GraphQL service listening on an
// ephemeral port, and the REST service pointed at it. The GraphQL listener can be stopped and started again
// on the same port to test outages.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { runCli } from '@asrank/cli';
import { buildGraphqlApp, loadConfig } from '@asrank/graphql';
import { buildRestApp } from '../src/app';
import { listenOnEphemeralPort } from './http';

async function asrank(args: string[]): Promise<void> {
  const code = await runCli(['node', 'asrank', ...args]);
  if (code !== 0) throw new Error(`asrank ${args.join(' ')} exited with ${code}`);
}

export interface Services {
  /** e.g. http://127.0.0.1:PORT/graphql */
  graphqlUrl: string;
  /** REST root including BASE_PATH, no trailing slash. */
  restBase: string;
  stopGraphql(): Promise<void>;
  /** Starts the GraphQL service again on the port it had. */
  startGraphql(): Promise<void>;
  close(): Promise<void>;
}

export async function startServices(
  options: { basePath?: string; graphqlEnv?: Record<string, string | number> } = {},
): Promise<Services> {
  const scratchDir = mkdtempSync(path.join(os.tmpdir(), 'asrank-rest-'));
  const databaseFile = path.join(scratchDir, 'asrank.db');
  // `asrank load-sample` runs loadSampleData on the committed sample-data/ (all months).
  await asrank(['--database', databaseFile, 'load-sample']);

  let graphqlPort = 0;
  let graphql: FastifyInstance | null = null;
  const startGraphql = async () => {
    const config = loadConfig({
      DATABASE_URL: databaseFile,
      LOG_LEVEL: 'silent',
      // Event-loop-delay shedding is measured by its own tests; here a stall of the shared test machine (CI runs
      // four packages' suites on two cores) must not turn an answer under test into a 503.
      MAX_EVENT_LOOP_DELAY_MS: 0,
      PORT: graphqlPort,
      HOST: '127.0.0.1',
      ...options.graphqlEnv,
    });
    const app = await buildGraphqlApp(config);
    await app.listen({ port: graphqlPort, host: '127.0.0.1' });
    graphqlPort = (app.server.address() as AddressInfo).port;
    graphql = app;
  };
  const stopGraphql = async () => {
    await graphql?.close();
    graphql = null;
  };
  await startGraphql();
  const graphqlUrl = `http://127.0.0.1:${graphqlPort}/graphql`;

  const basePath = options.basePath ?? '';
  const rest = await buildRestApp({
    basePath,
    graphqlUrl,
    logLevel: 'silent',
    graphqlTimeoutMs: 10000,
    maxEventLoopDelayMs: 0,
  });
  const restBase = `${await listenOnEphemeralPort(rest)}${basePath}`;

  return {
    graphqlUrl,
    restBase,
    stopGraphql,
    startGraphql,
    close: async () => {
      await rest.close();
      await stopGraphql();
      rmSync(scratchDir, { recursive: true, force: true });
    },
  };
}

/** POSTs to /graphql and operations run, as the GraphQL service's own metrics count them. */
export async function upstreamCounts(graphqlUrl: string): Promise<{ posts: number; operations: number }> {
  const text = await (await fetch(graphqlUrl.replace(/\/graphql$/, '/metrics'))).text();
  const sum = (pattern: RegExp) =>
    text
      .split('\n')
      .filter((line) => pattern.test(line))
      .reduce((total, line) => total + Number(line.split(' ').pop()), 0);
  return {
    posts: sum(
      /^asrank_graphql_http_request_duration_seconds_count\{[^}]*method="POST"[^}]*route="\/graphql"/,
    ),
    operations: sum(/^asrank_graphql_operation_duration_seconds_count\{/),
  };
}
