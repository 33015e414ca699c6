// Probes for load balancers and orchestrators, outside BASE_PATH so they keep one address whatever the
// public prefix: /healthz answers while the process runs; /readyz answers 200 only when the GraphQL service
// answers a query that reads the loaded datasets, so a REST replica whose upstream is down leaves rotation.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

/** Small on purpose: it proves the GraphQL service and its database answer, and costs one indexed read. */
export const READINESS_QUERY = 'query RestReadiness { datasets(first: 1, sort: "-date") { totalCount } }';

interface ReadinessData {
  datasets: { totalCount: number };
}

async function healthPlugin(app: FastifyInstance): Promise<void> {
  // Probes are polled every few seconds: keep them out of the route metrics and the rate limit.
  const config = { disableMetrics: true, rateLimit: false };
  app.get('/healthz', { config }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config }, async (request, reply) => {
    try {
      const { data } = await app.graphqlClient.execute<ReadinessData>({
        query: READINESS_QUERY,
        variables: {},
        requestId: request.id,
      });
      if (data.datasets.totalCount < 1) {
        return reply
          .code(503)
          .send({ status: 'unavailable', reason: 'the GraphQL service has no dataset loaded' });
      }
      return { status: 'ready', datasets: data.datasets.totalCount };
    } catch (error) {
      request.log.warn({ err: error }, 'not ready');
      return reply.code(503).send({ status: 'unavailable', reason: (error as Error).message });
    }
  });
}

export default fp(healthPlugin, { name: 'health', fastify: '5.x', dependencies: ['graphql-client'] });
