// Builds the GraphQL service as a Fastify instance (ready, not listening): database, /graphql, /graphiql and
// /health, all under the configured base path. main.ts listens; tests call this directly.
import Fastify, { type FastifyInstance } from 'fastify';
import { createSchema } from '@asrank/schema';
import type { GraphqlConfig } from './config';
import { openServingDatabase } from './database';
import { graphqlPlugin } from './plugins/graphql';
import { graphiqlPlugin } from './plugins/graphiql';
import { healthPlugin } from './plugins/health';

export async function buildGraphqlApp(config: GraphqlConfig): Promise<FastifyInstance> {
  const handle = await openServingDatabase(config.databaseUrl, config.statementTimeoutMs);
  const app = Fastify({
    logger: { level: config.logLevel },
    bodyLimit: config.bodyLimit,
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.requestTimeoutMs,
    // Closing finishes in-flight requests and drops idle keep-alive sockets so shutdown is prompt.
    forceCloseConnections: 'idle',
  });
  app.addHook('onClose', async () => {
    await handle.close();
  });
  try {
    const schema = createSchema();
    await app.register(
      async (scoped) => {
        await scoped.register(graphqlPlugin, { schema, handle, config });
        await scoped.register(graphiqlPlugin, { basePath: config.basePath });
        await scoped.register(healthPlugin, { handle });
      },
      { prefix: config.basePath },
    );
    await app.ready();
  } catch (error) {
    await app.close();
    throw error;
  }
  return app;
}
