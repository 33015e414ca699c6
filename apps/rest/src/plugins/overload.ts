// Load shedding and the optional per-client rate limit. @fastify/under-pressure answers 503 with
// Retry-After when the event loop lags or memory runs high, instead of queueing until everything times out;
// the probes and /metrics stay answerable. The rate limit (@fastify/rate-limit, per client address) is
// off unless RATE_LIMIT_MAX > 0; behind nginx, set TRUST_PROXY so the client address comes from
// X-Forwarded-For.
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { loadShedding } from '@asrank/service-kit';

export interface OverloadOptions {
  maxEventLoopDelayMs: number;
  maxHeapUsedBytes: number;
  rateLimitMax: number;
  rateLimitWindowMs: number;
}

async function overloadPlugin(app: FastifyInstance, options: OverloadOptions): Promise<void> {
  // Shared with the GraphQL service (@asrank/service-kit); the refusal is in this service's JSON error shape.
  await app.register(loadShedding, {
    maxEventLoopDelayMs: options.maxEventLoopDelayMs,
    maxHeapUsedBytes: options.maxHeapUsedBytes,
    refusalBody: (message, request) => ({
      statusCode: 503,
      error: 'Service Unavailable',
      message,
      requestId: request.id,
    }),
  });
  if (options.rateLimitMax > 0) {
    await app.register(rateLimit, {
      max: options.rateLimitMax,
      timeWindow: options.rateLimitWindowMs,
      errorResponseBuilder: (request, context) => ({
        statusCode: 429,
        error: 'Too Many Requests',
        message: `rate limit of ${context.max} requests per ${context.after} exceeded; retry later`,
        requestId: request.id,
      }),
    });
  }
}

export default fp(overloadPlugin, { name: 'overload', fastify: '5.x' });
