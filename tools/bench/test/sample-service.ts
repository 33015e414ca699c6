// The GraphQL service in process over the bundled sample, on a free loopback port: what the bench's own clients
// (the stack floor, W5's walk) are tested against.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { runCli } from '@asrank/cli';
import { buildGraphqlApp, loadConfig } from '@asrank/graphql';

/** Listens on a free loopback port and answers the app's /graphql URL. */
export async function listenForGraphql(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/graphql`;
}

export interface SampleService {
  service: FastifyInstance;
  /** The service's /graphql URL. */
  url: string;
  /** The SQLite file it serves. */
  databaseFile: string;
  /** Closes the service (if a test has not already) and removes its database. */
  dispose(): Promise<void>;
}

/** Loads the sample into a fresh SQLite file and serves it uncached. */
export async function startSampleService(): Promise<SampleService> {
  const scratchDir = mkdtempSync(path.join(os.tmpdir(), 'asrank-bench-test-'));
  const databaseFile = path.join(scratchDir, 'asrank.db');
  const code = await runCli(['node', 'asrank', '--database', databaseFile, 'load-sample']);
  if (code !== 0) throw new Error(`asrank load-sample exited with ${code}`);
  const service = await buildGraphqlApp(
    // No event-loop-delay shedding: a stall of the shared test machine must not turn an answer into a 503.
    loadConfig({
      DATABASE_URL: databaseFile,
      LOG_LEVEL: 'silent',
      RESULT_CACHE_MB: 0,
      MAX_EVENT_LOOP_DELAY_MS: 0,
    }),
  );
  return {
    service,
    url: await listenForGraphql(service),
    databaseFile,
    dispose: async () => {
      await service.close();
      rmSync(scratchDir, { recursive: true, force: true });
    },
  };
}
