// Builds the GraphQL service as a Fastify instance (ready, not listening): database, /graphql, /graphiql and
// /health under the configured base path; request ids, metrics, load shedding and the probes (/healthz,
// /readyz, /metrics) at the root; input guards and the result cache on /graphql. service.ts listens; tests
// call this directly; the benchmark also builds it with `dataPathOnly` (below).
import Fastify, { type FastifyInstance } from 'fastify';
import { createSchema } from '@asrank/schema';
import {
  deferredRequestLoggers,
  largeAnswersAsBytes,
  requestIdFor,
  requestIdPlugin,
  writeCoalescing,
  connectionCloseWhileClosing,
} from '@asrank/service-kit';
import type { GraphqlConfig } from './config';
import { openServingDatabase } from './database';
import { graphqlPlugin } from './plugins/graphql';
import { graphiqlPlugin } from './plugins/graphiql';
import { healthPlugin } from './plugins/health';
import { dataVersionReader } from './data-version';
import { inputGuards } from './plugins/input-guards';
import { QueryTimingPlugin, createServiceMetrics, metricsPlugin, operationLabeler } from './plugins/metrics';
import { overloadPlugin } from './plugins/overload';
import { oversizedBodyPlugin } from './plugins/oversized-body';
import { probesPlugin } from './plugins/probes';
import { operationTimingPlugin } from './plugins/operation-timing';
import { resultCache } from './plugins/result-cache';
import { largeAnswersBySlices } from './plugins/large-answers';

export interface GraphqlAppOptions {
  /**
   * Only what an answer needs: the database, Mercurius over the schema (with its query limits and error formatter)
   * and the routes. Left out: request ids and logging, metrics, load shedding, the oversized-body and input guards,
   * ETags and the result cache, the large-answer hooks. For the benchmark, which measures the point lookup against
   * this beside the service to show what those features cost a request (docs/performance.md, thirty-fifth round);
   * never for serving.
   */
  dataPathOnly?: boolean;
}

export async function buildGraphqlApp(
  config: GraphqlConfig,
  { dataPathOnly = false }: GraphqlAppOptions = {},
): Promise<FastifyInstance> {
  const features = !dataPathOnly;
  const handle = await openServingDatabase(config.databaseUrl, config.statementTimeoutMs);
  const app = Fastify({
    logger: features && {
      level: config.logLevel,
      // A GET /graphql URL carries the query and its variables: log the path only, never the query text.
      serializers: {
        req: (request: { method: string; url: string; id: string }) => ({
          method: request.method,
          url: request.url.split('?')[0],
          reqId: request.id,
        }),
      },
    },
    bodyLimit: config.bodyLimit,
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.requestTimeoutMs,
    // Closing finishes in-flight requests and drops idle keep-alive sockets so shutdown is prompt.
    forceCloseConnections: 'idle',
    // The REST service forwards its request id so both services log the same id for one client request.
    ...(features && { genReqId: requestIdFor, childLoggerFactory: deferredRequestLoggers }),
    requestIdHeader: false,
    // Route schemas (Mercurius' and ours) are fixed and tested: checking them against the JSON Schema meta-schema on
    // every start made Ajv compile that meta-schema first, ~30-50 ms of start-up (docs/performance.md, twenty-eighth
    // round). Ajv's strict mode still refuses an unknown keyword.
    ajv: { customOptions: { validateSchema: false } },
  });
  app.addHook('onClose', async () => {
    await handle.close();
  });
  if (handle.unenforcedStatementTimeoutMs !== undefined)
    app.log.warn(
      `DB_STATEMENT_TIMEOUT_MS (${handle.unenforcedStatementTimeoutMs} ms) is not enforced on SQLite: this better-sqlite3 ` +
        'is a build without the patch in patches/ (a prebuilt binary), so a long statement holds the service until it ' +
        'ends; install with pnpm from source (npm_config_build_from_source=true) to get the limit',
    );
  try {
    const schema = createSchema();
    const metrics = createServiceMetrics();
    // How answers reach their sockets, not a feature: the data path writes the same way.
    await app.register(writeCoalescing);
    // How a closing service ends its keep-alive connections: not a feature either.
    await app.register(connectionCloseWhileClosing);
    if (features) {
      await app.register(metricsPlugin, { metrics });
      await app.register(requestIdPlugin);
      await app.register(overloadPlugin, {
        maxEventLoopDelayMs: config.maxEventLoopDelayMs,
        maxHeapUsedBytes: config.maxHeapUsedBytes,
      });
      await app.register(oversizedBodyPlugin);
    }
    await app.register(probesPlugin, { handle });
    // The schema's queries go through a timed view of the same connection (database query metrics).
    const servingHandle = features
      ? { ...handle, db: handle.db.withPlugin(new QueryTimingPlugin(metrics.statementSeries)) }
      : handle;
    // One reader of the data version a turn, shared by the result cache and the GraphQL contexts.
    const readDataVersion = dataVersionReader(handle);
    // The GraphQL routes in a context of their own: the hooks of the plugins registered there (input guards, result
    // cache, large answers, operation timing) apply to those routes only, with no per-request test of the route.
    await app.register(
      async (graphqlRoutes) => {
        if (features) {
          await graphqlRoutes.register(operationTimingPlugin, {
            metrics,
            operationLabel: operationLabeler(),
          });
          await graphqlRoutes.register(inputGuards, { maxBatchOperations: config.maxBatchOperations });
          await graphqlRoutes.register(resultCache, {
            readDataVersion,
            maxBytes: config.resultCacheMb * 1024 * 1024,
            maxAgeSeconds: config.cacheMaxAgeSeconds,
            metrics,
          });
          // Clean answers with a large list leave the serializer as bytes, which the result cache keeps as they are.
          await graphqlRoutes.register(largeAnswersBySlices);
          // Any other large answer (an error answer, a list the slicer did not spot) is made bytes after the result
          // cache's onSend hook, which stores what it is given.
          await graphqlRoutes.register(largeAnswersAsBytes);
        }
        await graphqlRoutes.register(graphqlPlugin, {
          schema,
          handle: servingHandle,
          readDataVersion,
          config,
          ...(features && {
            observeStatement: (kind, table, seconds) => metrics.statementSeries(kind, table).observe(seconds),
          }),
        });
      },
      { prefix: config.basePath },
    );
    await app.register(
      async (pages) => {
        await pages.register(graphiqlPlugin, { basePath: config.basePath });
        await pages.register(healthPlugin, { handle });
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
