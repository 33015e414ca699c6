// The GraphQL service process (bundled into dist/service.js, which main.ts runs): validate the configuration, open
// the database, listen, and on SIGTERM/SIGINT stop accepting, finish in-flight requests and close the database.
// With WORKERS > 1 this process only supervises that many service processes on the same port (service-kit's
// workers.ts).
import path from 'node:path';
import closeWithGrace from 'close-with-grace';
import { closeGracefully, isServiceWorker, onStopRequest, superviseWorkers } from '@asrank/service-kit';
import { buildGraphqlApp } from './app';
import { ConfigError, loadConfig } from './config';
import { DatabaseNotReadyError } from './database';

/**
 * `pnpm start:graphql` runs this from apps/graphql; a relative SQLite path is meant relative to where the
 * user typed the command (pnpm's INIT_CWD), as the default `./data/asrank.db` is the repository's.
 */
function userRelative(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const databaseUrl = env['DATABASE_URL'] ?? './data/asrank.db';
  const initCwd = env['INIT_CWD'];
  const isRelativeFile = !/^[a-z][a-z0-9+.-]*:/i.test(databaseUrl) && !path.isAbsolute(databaseUrl);
  if (!initCwd || !isRelativeFile) return env;
  return { ...env, DATABASE_URL: path.resolve(initCwd, databaseUrl) };
}

const CLOSE_DELAY_MS = 10_000;

async function main(): Promise<void> {
  const config = loadConfig(userRelative(process.env));
  if (config.workers > 1 && !isServiceWorker()) {
    superviseWorkers({
      workers: config.workers,
      name: 'asrank graphql',
      stopTimeoutMs: CLOSE_DELAY_MS + 2_000,
    });
    return;
  }
  const app = await buildGraphqlApp(config);
  let closing = false;
  const closer = closeWithGrace({ delay: CLOSE_DELAY_MS }, async ({ signal, err, manual }) => {
    closing = true;
    if (err) app.log.error({ err }, 'stopping after an unexpected error');
    else app.log.info(`${signal ?? (manual ? 'stop request' : 'shutdown')} received: closing`);
    await closeGracefully(app);
    // A worker's IPC channel would keep it alive after the close.
    if (isServiceWorker()) process.exit(0);
  });
  if (isServiceWorker())
    onStopRequest(() => {
      if (!closing) closer.close();
    });
  await app.listen({ port: config.port, host: config.host });
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof DatabaseNotReadyError;
  const message = error instanceof Error ? error.message : String(error);
  console.error(`asrank graphql: ${known ? message : `failed to start: ${message}`}`);
  process.exit(1);
});
