// Prometheus metrics at /metrics (root, not published by nginx): HTTP request counts and latency by route
// (service-kit's routeTiming), GraphQL operations by operation name and outcome, result-cache hits, database query
// timings by statement kind and table (a Kysely plugin on the handle the schema uses), process metrics
// (fastify-metrics, which also serves the endpoint). Each app has its own registry, so several instances in one
// process (tests) never collide.
import fastifyMetrics from 'fastify-metrics';
import { Counter, Registry } from 'prom-client';
import fp from 'fastify-plugin';
import {
  createRouteHistogram,
  routeTiming,
  serveWorkerMetrics,
  SeriesHistogram,
  seriesLookup,
  type HistogramSeries,
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

/** Outcomes of a result-cache lookup (the label of asrank_graphql_result_cache_total). */
export type ResultCacheOutcome = 'hit' | 'miss' | 'not_modified';

export interface ServiceMetrics {
  registry: Registry;
  httpRequests: RouteHistogram;
  graphqlOperations: SeriesHistogram<'operation' | 'outcome'>;
  /**
   * Counts one result-cache lookup. Kept in plain numbers and added to the counter when it is scraped: the
   * counter's inc builds and looks up a key string from its labels on every call.
   */
  countResultCache(outcome: ResultCacheOutcome): void;
  resultCache: Counter<'outcome'>;
  /** The series of a statement kind and table (held per pair: see series-histogram.ts). */
  statementSeries(kind: string, table: string): HistogramSeries;
}

export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  const uncountedResultCache: Record<ResultCacheOutcome, number> = { hit: 0, miss: 0, not_modified: 0 };
  const databaseQueries = new SeriesHistogram({
    name: 'asrank_graphql_db_query_duration_seconds',
    help: 'Database statements by kind and first table',
    labelNames: ['kind', 'table'],
    buckets: BUCKETS,
    registers: [registry],
  });
  return {
    registry,
    httpRequests: createRouteHistogram('asrank_graphql_http_request_duration_seconds', BUCKETS, registry),
    graphqlOperations: new SeriesHistogram({
      name: 'asrank_graphql_operation_duration_seconds',
      help: 'GraphQL requests by operation name (bounded set, else "other") and outcome',
      labelNames: ['operation', 'outcome'],
      buckets: BUCKETS,
      registers: [registry],
    }),
    countResultCache: (outcome) => {
      uncountedResultCache[outcome] += 1;
    },
    resultCache: new Counter({
      name: 'asrank_graphql_result_cache_total',
      help: 'Result cache lookups by outcome (hit, miss, not_modified)',
      labelNames: ['outcome'],
      registers: [registry],
      // prom-client calls this before every read of the counter (/metrics, and the workers' sums).
      collect() {
        for (const outcome of Object.keys(uncountedResultCache) as ResultCacheOutcome[]) {
          if (uncountedResultCache[outcome] === 0) continue;
          this.inc({ outcome }, uncountedResultCache[outcome]);
          uncountedResultCache[outcome] = 0;
        }
      },
    }),
    statementSeries: seriesLookup(databaseQueries, ['kind', 'table']),
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
  constructor(private readonly seriesOf: (kind: string, table: string) => HistogramSeries) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.started.set(args.queryId, { at: process.hrtime.bigint(), ...describeNode(args.node) });
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const start = this.started.get(args.queryId);
    if (start) {
      this.seriesOf(start.kind, start.table).observe(Number(process.hrtime.bigint() - start.at) / 1e9);
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
