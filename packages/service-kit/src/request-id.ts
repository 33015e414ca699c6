// Request ids across both services: an incoming `x-request-id` (set by nginx, forwarded by the REST service to the
// GraphQL service) is kept when it looks like an id and not like an injection attempt, otherwise a UUID is generated;
// the id is echoed to the client and appears on every log line (`reqId`).
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

async function requestIdPluginBody(app: FastifyInstance): Promise<void> {
  // Callback style: the hook never waits, and an async hook costs a promise and a microtask per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}

/** Echoes the request's id (see requestIdFor, the app's `genReqId`) on every answer. */
export const requestIdPlugin = fp(requestIdPluginBody, { name: 'request-id', fastify: '5.x' });
