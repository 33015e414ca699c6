// Assembles the REST service: request ids, JSON errors, the GraphQL client, the OpenAPI guide and the
// routes, all under BASE_PATH. Builds a ready Fastify instance; main.ts decides when to listen.
import Fastify, { type FastifyInstance } from 'fastify';
import type { RestConfig } from './config';
import docs from './plugins/docs';
import errors from './plugins/errors';
import graphqlClient from './plugins/graphql-client';
import requestId, { requestIdFor } from './plugins/request-id';
import asnRoutes from './routes/asns';
import asnLinkRoutes from './routes/asnLinks';
import datasetRoutes from './routes/datasets';
import organizationRoutes from './routes/organizations';

export type BuildRestAppConfig = Pick<RestConfig, 'basePath' | 'graphqlUrl'> &
  Partial<Pick<RestConfig, 'graphqlConnectTimeoutMs' | 'graphqlTimeoutMs' | 'graphqlConnections' | 'logLevel'>>;

export async function buildRestApp(config: BuildRestAppConfig): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.logLevel ?? 'info' },
    // Existing clients call `/restful/asns/?first=10`.
    // Path parameters longer than their schema's maxLength reach validation and get a 400 naming them.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    genReqId: requestIdFor,
    requestIdHeader: false,
  });
  await app.register(requestId);
  await app.register(errors, { basePath: config.basePath });
  await app.register(graphqlClient, {
    url: config.graphqlUrl,
    connectTimeoutMs: config.graphqlConnectTimeoutMs ?? 2000,
    timeoutMs: config.graphqlTimeoutMs ?? 30000,
    connections: config.graphqlConnections ?? 32,
  });
  // Registered before the routes: @fastify/swagger collects route schemas as routes are added.
  await app.register(docs, { basePath: config.basePath });
  await app.register(
    async (routes) => {
      await routes.register(asnRoutes);
      await routes.register(asnLinkRoutes);
      await routes.register(organizationRoutes);
      await routes.register(datasetRoutes);
    },
    { prefix: config.basePath },
  );
  await app.ready();
  return app;
}
