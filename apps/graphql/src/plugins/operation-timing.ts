// Times each GraphQL request by operation name and outcome (asrank_graphql_operation_duration_seconds), from
// Fastify's own elapsed time when the answer has gone. Registered with the GraphQL routes, whose every answer it
// times.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { seriesLookup } from '@asrank/service-kit';
import type { ServiceMetrics } from './metrics';

export interface OperationTimingOptions {
  metrics: ServiceMetrics;
  operationLabel: (name: unknown) => string;
}

function outcomeOf(statusCode: number): string {
  if (statusCode === 304) return 'not_modified';
  if (statusCode < 400) return 'ok';
  return statusCode < 500 ? 'client_error' : 'server_error';
}

async function plugin(
  app: FastifyInstance,
  { metrics, operationLabel }: OperationTimingOptions,
): Promise<void> {
  // Series held per (operation, outcome): operation labels are a bounded set (operationLabel).
  const seriesOf = seriesLookup(metrics.graphqlOperations, ['operation', 'outcome']);
  // Callback style: the hook never waits, and an async hook costs a promise and a microtask per request.
  app.addHook('onResponse', (request, reply, done) => {
    const source = request.method === 'GET' ? request.query : request.body;
    const outcome = outcomeOf(reply.statusCode);
    const seconds = reply.elapsedTime / 1000;
    type Operation = { operationName?: unknown } | null | undefined;
    // The operations of a batch run together: each is counted, timed by the batch's answer.
    if (Array.isArray(source)) {
      for (const operation of source as Operation[])
        seriesOf(operationLabel(operation?.operationName), outcome).observe(seconds);
    } else {
      seriesOf(operationLabel((source as Operation)?.operationName), outcome).observe(seconds);
    }
    done();
  });
}

export const operationTimingPlugin = fp(plugin, { name: 'operation-timing', fastify: '5.x' });
