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

async function plugin(app: FastifyInstance, { metrics, operationLabel }: RequestIdOptions): Promise<void> {
  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    if (!request.routeOptions.url?.endsWith('/graphql')) return;
    const source = (request.method === 'GET' ? request.query : request.body) as
      { operationName?: unknown } | null | undefined;
    const outcome =
      reply.statusCode === 304
        ? 'not_modified'
        : reply.statusCode < 400
          ? 'ok'
          : reply.statusCode < 500
            ? 'client_error'
            : 'server_error';
    metrics.graphqlOperations.observe(
      { operation: operationLabel(source?.operationName), outcome },
      reply.elapsedTime / 1000,
    );
  });
}

export const requestIdPlugin = fp(plugin, { name: 'request-id', fastify: '5.x' });
