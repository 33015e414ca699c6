// Assembles the REST service: metrics, request ids, JSON errors, the GraphQL client, load shedding, HTTP
// caching, probes, the OpenAPI guide and the routes (the last two under BASE_PATH). Builds a ready Fastify instance; main.ts decides when to listen.
import Fastify, { type FastifyInstance } from 'fastify';
import {
  connectionCloseWhileClosing,
  deferredRequestLoggers,
  largeAnswersAsBytes,
  requestIdFor,
  requestIdPlugin,
  writeCoalescing,
} from '@asrank/service-kit';
import type { RestConfig } from './config';
import docs from './plugins/docs';
import allowedMethods from './plugins/allowed-methods';
import errors, { clientErrorReply, frameworkErrorReply } from './plugins/errors';
import graphqlClient from './plugins/graphql-client';
import caching from './plugins/caching';
import health from './plugins/health';
import metrics from './plugins/metrics';
import overload from './plugins/overload';
import strictQueryString from './plugins/strict-query-string';
import asnRoutes from './routes/asns';
import asnLinkRoutes from './routes/asnLinks';
import datasetRoutes from './routes/datasets';
import organizationRoutes from './routes/organizations';

export type BuildRestAppConfig = Pick<RestConfig, 'basePath' | 'graphqlUrl'> &
  Partial<
    Pick<
      RestConfig,
      | 'graphqlConnectTimeoutMs'
      | 'graphqlTimeoutMs'
      | 'graphqlConnections'
      | 'graphqlBatchMax'
      | 'graphqlBatchesInFlight'
      | 'logLevel'
      | 'cacheMaxAgeSeconds'
      | 'maxEventLoopDelayMs'
      | 'maxHeapUsedBytes'
      | 'rateLimitMax'
      | 'rateLimitWindowMs'
      | 'trustProxy'
    >
  >;

export async function buildRestApp(config: BuildRestAppConfig): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.logLevel ?? 'info' },
    // Existing clients call `/restful/asns/?first=10`.
    // Path parameters longer than their schema's maxLength reach validation and get a 400 naming them.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    genReqId: requestIdFor,
    // A malformed path is refused in this service's error shape, with its request id (plugins/errors.ts).
    frameworkErrors: frameworkErrorReply,
    // And a request Node's parser refuses (plugins/errors.ts).
    clientErrorHandler: clientErrorReply,
    // pino's child logger only for a request that logs a line.
    childLoggerFactory: deferredRequestLoggers,
    requestIdHeader: false,
    trustProxy: config.trustProxy ?? false,
    // Closing lets in-flight requests finish and drops idle keep-alive sockets, so shutdown is prompt.
    forceCloseConnections: 'idle',
  });
  // First, so the other onSend hooks run when the turn's answers are written together.
  await app.register(writeCoalescing);
  await app.register(connectionCloseWhileClosing);
  await app.register(metrics);
  await app.register(requestIdPlugin);
  await app.register(errors, { basePath: config.basePath });
  // Before any route: it adds each GET route's twin for the other methods as the route is added.
  await app.register(allowedMethods);
  await app.register(strictQueryString);
  await app.register(graphqlClient, {
    url: config.graphqlUrl,
    connectTimeoutMs: config.graphqlConnectTimeoutMs ?? 2000,
    timeoutMs: config.graphqlTimeoutMs ?? 30000,
    connections: config.graphqlConnections ?? 32,
    maxBatch: config.graphqlBatchMax ?? 16,
    maxBatchesInFlight: config.graphqlBatchesInFlight ?? 1,
  });
  await app.register(overload, {
    maxEventLoopDelayMs: config.maxEventLoopDelayMs ?? 1000,
    maxHeapUsedBytes: config.maxHeapUsedBytes ?? 0,
    rateLimitMax: config.rateLimitMax ?? 0,
    rateLimitWindowMs: config.rateLimitWindowMs ?? 60000,
  });
  await app.register(caching, { maxAgeSeconds: config.cacheMaxAgeSeconds ?? 60 });
  // After caching: the ETag is computed from the answer's text; only then does a large one become bytes.
  await app.register(largeAnswersAsBytes);
  // Probes and /metrics live outside BASE_PATH: one address for orchestrators, not published by nginx.
  await app.register(health);
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
