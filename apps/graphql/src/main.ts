// Entry point of the GraphQL service: validate the configuration, open the database, listen, and on
// SIGTERM/SIGINT stop accepting, finish in-flight requests and close the database.
import path from 'node:path';
import closeWithGrace from 'close-with-grace';
import { closeGracefully } from '@asrank/service-kit';
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

async function main(): Promise<void> {
  const config = loadConfig(userRelative(process.env));
  const app = await buildGraphqlApp(config);
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'stopping after an unexpected error');
    else app.log.info(`${signal ?? 'shutdown'} received: closing`);
    await closeGracefully(app);
  });
  await app.listen({ port: config.port, host: config.host });
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof DatabaseNotReadyError;
  const message = error instanceof Error ? error.message : String(error);
  console.error(`asrank graphql: ${known ? message : `failed to start: ${message}`}`);
  process.exit(1);
});
