// Request latency by method, route and status for /metrics: one histogram observation per answer, from Fastify's
// own elapsed time, in one onResponse hook. fastify-metrics' route metrics did the same with an onRequest hook that
// started a prom-client timer per request and kept it in a WeakMap until the answer; with them, the point lookup
// cost ~6 µs more a request than without metrics at all (docs/performance.md, thirty-fifth round). fastify-metrics
// still serves /metrics and the process metrics; the histogram keeps its name, labels and buckets. Its series are
// held per (route, method, status) (series-histogram.ts): prom-client's observe builds and looks up a key per call.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { SeriesHistogram, seriesLookup } from './series-histogram';

export type RouteHistogram = SeriesHistogram<'method' | 'route' | 'status_code'>;

export interface RouteTimingOptions {
  histogram: RouteHistogram;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Leaves a route's answers out of the request histogram (the probes). */
    disableMetrics?: boolean;
  }
}

/** The route label of a request no route matched: hostile URLs cannot grow the label set. */
export const UNKNOWN_ROUTE = '__unknown__';
/** Methods left out, as fastify-metrics left them out. */
const UNTIMED_METHODS = new Set(['HEAD', 'OPTIONS', 'TRACE', 'CONNECT']);

/** A service's request histogram, by method, route and status, in its own registry. */
export function createRouteHistogram(name: string, buckets: number[], registry: Registry): RouteHistogram {
  return new SeriesHistogram({
    name,
    help: 'request duration in seconds',
    labelNames: ['method', 'route', 'status_code'],
    buckets,
    registers: [registry],
  });
}

async function routeTimingPlugin(app: FastifyInstance, { histogram }: RouteTimingOptions): Promise<void> {
  const seriesOf = seriesLookup(histogram, ['route', 'method', 'status_code']);
  // Callback style: the hook never waits, and an async hook costs a promise and a microtask per request.
  app.addHook('onResponse', (request, reply, done) => {
    // Read once: Fastify builds a new routeOptions object on every access.
    const route = request.routeOptions;
    if (route.config.disableMetrics !== true && !UNTIMED_METHODS.has(request.method))
      seriesOf(route.url ?? UNKNOWN_ROUTE, request.method, reply.statusCode).observe(
        reply.elapsedTime / 1000,
      );
    done();
  });
}

// fastify-plugin: the hook must apply to every route of the app, not only inside this plugin.
export const routeTiming = fp(routeTimingPlugin, { name: 'route-timing', fastify: '5.x' });
