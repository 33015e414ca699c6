// Request ids across both services: an incoming `x-request-id` (set by nginx, forwarded by the REST
// service) is kept when it looks like an id, otherwise a UUID is generated; the id is echoed to the client
// and appears on every log line (`reqId`). The same hook times each GraphQL request by operation name.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { ServiceMetrics } from './metrics';

const REQUEST_ID_HEADER = 'x-request-id';
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  const candidate = Array.isArray(incoming) ? incoming[0] : incoming;
  return candidate !== undefined && ACCEPTABLE_REQUEST_ID.test(candidate) ? candidate : randomUUID();
}

export interface RequestIdOptions {
  metrics: ServiceMetrics;
  operationLabel: (name: unknown) => string;
}

function outcomeOf(statusCode: number): string {
  if (statusCode === 304) return 'not_modified';
  if (statusCode < 400) return 'ok';
  return statusCode < 500 ? 'client_error' : 'server_error';
}

async function plugin(app: FastifyInstance, { metrics, operationLabel }: RequestIdOptions): Promise<void> {
  // Callback-style hooks: an async hook costs a promise and a microtask per request, and these never wait.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (request.routeOptions.url?.endsWith('/graphql')) {
      const source = (request.method === 'GET' ? request.query : request.body) as
        { operationName?: unknown } | null | undefined;
      metrics.graphqlOperations.observe(
        { operation: operationLabel(source?.operationName), outcome: outcomeOf(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
    }
    done();
  });
}

export const requestIdPlugin = fp(plugin, { name: 'request-id', fastify: '5.x' });
