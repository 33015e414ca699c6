// Prometheus metrics at /metrics (outside BASE_PATH, so nginx does not publish them): request counts and latency
// histograms by route, method and status (service-kit's routeTiming), process metrics (fastify-metrics, which also
// serves the endpoint), and the latency of every call to the GraphQL service by operation, this service's equivalent
// of database query timings. Each app gets its own registry, so several instances in one process (tests) never
// collide.
import fp from 'fastify-plugin';
import fastifyMetrics from 'fastify-metrics';
import {
  createRouteHistogram,
  routeTiming,
  serveWorkerMetrics,
  SeriesHistogram,
  seriesLookup,
} from '@asrank/service-kit';
import { Registry } from 'prom-client';
import type { FastifyInstance } from 'fastify';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface UpstreamTimer {
  /** Records one GraphQL call: its operation name, outcome ('ok', 'graphql_error', 'unavailable', 'timeout') and duration. */
  observe(operation: string, outcome: string, seconds: number): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    upstreamTimer: UpstreamTimer;
  }
}

async function metricsPlugin(app: FastifyInstance): Promise<void> {
  const registry = new Registry();
  // One worker of several answers /metrics with the sum over all of them, which the primary gathers.
  const clustered = serveWorkerMetrics(app, registry, { rateLimit: false });
  await app.register(fastifyMetrics, {
    endpoint: clustered ? null : ({ url: '/metrics', method: 'GET', config: { rateLimit: false } } as never),
    defaultMetrics: { enabled: true, register: registry },
    // Timed by routeTiming instead (a histogram: quantiles at query time with histogram_quantile).
    routeMetrics: { enabled: false },
  });
  await app.register(routeTiming, {
    histogram: createRouteHistogram('asrank_rest_http_request_duration_seconds', LATENCY_BUCKETS, registry),
  });
  const upstream = new SeriesHistogram({
    name: 'asrank_rest_graphql_call_duration_seconds',
    help: 'Time spent calling the GraphQL service, by GraphQL operation and outcome',
    labelNames: ['operation', 'outcome'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  // Held per (operation, outcome), both this service's own bounded sets (see series-histogram.ts).
  const upstreamSeries = seriesLookup(upstream, ['operation', 'outcome']);
  app.decorate('upstreamTimer', {
    observe: (operation: string, outcome: string, seconds: number) =>
      upstreamSeries(operation, outcome).observe(seconds),
  });
}

export default fp(metricsPlugin, { name: 'metrics', fastify: '5.x' });
