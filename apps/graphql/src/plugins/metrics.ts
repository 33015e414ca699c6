// Prometheus metrics at /metrics (root, not published by nginx): HTTP request counts and latency by route
// (service-kit's routeTiming), GraphQL operations by operation name and outcome, result-cache hits, database query
// timings by statement kind and table (a Kysely plugin on the handle the schema uses), process metrics
// (fastify-metrics, which also serves the endpoint). Each app has its own registry, so several instances in one
// process (tests) never collide.
import fastifyMetrics from 'fastify-metrics';
import { Counter, Histogram, Registry } from 'prom-client';
import fp from 'fastify-plugin';
import {
  createRouteHistogram,
  routeTiming,
  serveWorkerMetrics,
  type RouteHistogram,
} from '@asrank/service-kit';
import type { FastifyInstance } from 'fastify';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface ServiceMetrics {
  registry: Registry;
  httpRequests: RouteHistogram;
  graphqlOperations: Histogram<'operation' | 'outcome'>;
  resultCache: Counter<'outcome'>;
  databaseQueries: Histogram<'kind' | 'table'>;
}

export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  return {
    registry,
    httpRequests: createRouteHistogram('asrank_graphql_http_request_duration_seconds', BUCKETS, registry),
    graphqlOperations: new Histogram({
      name: 'asrank_graphql_operation_duration_seconds',
      help: 'GraphQL requests by operation name (bounded set, else "other") and outcome',
      labelNames: ['operation', 'outcome'],
      buckets: BUCKETS,
      registers: [registry],
    }),
    resultCache: new Counter({
      name: 'asrank_graphql_result_cache_total',
      help: 'Result cache lookups by outcome (hit, miss, not_modified)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    databaseQueries: new Histogram({
      name: 'asrank_graphql_db_query_duration_seconds',
      help: 'Database statements by kind and first table',
      labelNames: ['kind', 'table'],
      buckets: BUCKETS,
      registers: [registry],
    }),
  };
}

/** Operation names are client text: only this many distinct ones get their own label, so memory is bounded. */
const MAX_OPERATION_LABELS = 200;
const OPERATION_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export function operationLabeler(): (name: unknown) => string {
  const seen = new Set<string>();
  return (name) => {
    if (typeof name !== 'string' || name === '') return 'anonymous';
    // A name seen before passed the pattern then: no regular expression per request for the usual names.
    if (seen.has(name)) return name;
    if (!OPERATION_NAME.test(name)) return 'other';
    if (seen.size >= MAX_OPERATION_LABELS) return 'other';
    seen.add(name);
    return name;
  };
}

function describeNode(node: RootOperationNode): { kind: string; table: string } {
  const kind = node.kind.replace(/QueryNode$/, '').toLowerCase() || 'other';
  const from = (node as { from?: { froms?: { kind: string; table?: { identifier?: { name?: string } } }[] } })
    .from?.froms?.[0];
  const table = from?.table?.identifier?.name ?? (from ? 'derived' : 'none');
  return { kind, table };
}

/** Times every statement from compilation to result (Kysely has no execution hook; this is the closest). */
export class QueryTimingPlugin implements KyselyPlugin {
  private readonly started = new WeakMap<object, { at: bigint; kind: string; table: string }>();
  constructor(private readonly histogram: Histogram<'kind' | 'table'>) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.started.set(args.queryId, { at: process.hrtime.bigint(), ...describeNode(args.node) });
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const start = this.started.get(args.queryId);
    if (start) {
      this.histogram.observe(
        { kind: start.kind, table: start.table },
        Number(process.hrtime.bigint() - start.at) / 1e9,
      );
      this.started.delete(args.queryId);
    }
    return args.result;
  }
}

async function metricsPluginBody(
  app: FastifyInstance,
  { metrics }: { metrics: ServiceMetrics },
): Promise<void> {
  // One worker of several answers /metrics with the sum over all of them, which the primary gathers.
  const clustered = serveWorkerMetrics(app, metrics.registry);
  await app.register(fastifyMetrics, {
    endpoint: clustered ? null : '/metrics',
    defaultMetrics: { enabled: true, register: metrics.registry },
    // Timed by routeTiming instead (a histogram: quantiles at query time with histogram_quantile).
    routeMetrics: { enabled: false },
  });
  await app.register(routeTiming, { histogram: metrics.httpRequests });
}

// fastify-plugin: the hooks must apply to every route of the app, not only inside this plugin.
export const metricsPlugin = fp(metricsPluginBody, { name: 'metrics', fastify: '5.x' });
