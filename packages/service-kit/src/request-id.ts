// Request ids across both services: an incoming `x-request-id` (set by nginx, forwarded by the REST service to the
// GraphQL service) is kept when it looks like an id and not like an injection attempt, otherwise one is generated in
// the form of a UUID; the id is echoed to the client and appears on every log line (`reqId`).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

// A generated id is this process's random UUID with its last 12 hex digits replaced by a counter: unique within the
// process, and across processes as unlikely to collide as two random UUIDs' first 80 bits. A fresh randomUUID() per
// request cost ~0.3 µs of the point lookup's ~45 (it refills its pool of random bytes with a system call every
// 128 ids, slow on this project's VM; Linux perf, docs/performance.md, thirty-seventh round), a counter ~0.05.
const processIdPrefix = randomUUID().slice(0, 24);
let generatedIds = 0;

/** A new request id, for a request that brings none (or none acceptable), or never reached Fastify. */
export function generatedRequestId(): string {
  generatedIds = (generatedIds + 1) % 0x1000000000000;
  return processIdPrefix + generatedIds.toString(16).padStart(12, '0');
}

/** Fastify's `genReqId`: reuse the caller's id when it is a plain token, else a generated one (UUID-shaped). */
export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  const candidate = Array.isArray(incoming) ? incoming[0] : incoming;
  return candidate !== undefined && ACCEPTABLE_REQUEST_ID.test(candidate) ? candidate : generatedRequestId();
}

async function requestIdPluginBody(app: FastifyInstance): Promise<void> {
  // Set as the answer goes out (onSend runs for every answer: routed, refused, failed or not found), in a phase the
  // services run hooks in anyway. In onRequest it was the only hook of that phase on the GraphQL routes (and on the
  // REST service's without a rate limit), which Fastify then ran for every request.
  // Callback style: the hook never waits, and an async hook costs a promise and a microtask per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done(null, payload);
  });
}

/** Echoes the request's id (see requestIdFor, the app's `genReqId`) on every answer. */
export const requestIdPlugin = fp(requestIdPluginBody, { name: 'request-id', fastify: '5.x' });
