// Request ids for tracing across both services: an incoming `x-request-id` is kept (when it looks like an
// id and not like an injection attempt), otherwise a UUID is generated; the id is echoed back to the client
// and forwarded to the GraphQL service by the routes.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** Fastify's `genReqId`: reuse the caller's id when it is a plain token, else a fresh UUID. */
export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  const candidate = Array.isArray(incoming) ? incoming[0] : incoming;
  return candidate !== undefined && ACCEPTABLE_REQUEST_ID.test(candidate) ? candidate : randomUUID();
}

async function requestIdPlugin(app: FastifyInstance): Promise<void> {
  // Callback style: the hook never waits, and an async hook costs a promise and a microtask per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}

export default fp(requestIdPlugin, { name: 'request-id', fastify: '5.x' });
