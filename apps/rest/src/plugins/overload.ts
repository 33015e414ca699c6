// Load shedding and the optional per-client rate limit. @fastify/under-pressure answers 503 with
// Retry-After when the event loop lags or memory runs high, instead of queueing until everything times out;
// the probes and /metrics stay answerable. The rate limit (@fastify/rate-limit, per client address) is
// off unless RATE_LIMIT_MAX > 0; behind nginx, set TRUST_PROXY so the client address comes from
// X-Forwarded-For.
import fp from 'fastify-plugin';
import underPressure from '@fastify/under-pressure';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface OverloadOptions {
  maxEventLoopDelayMs: number;
  maxHeapUsedBytes: number;
  rateLimitMax: number;
  rateLimitWindowMs: number;
}

const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

async function overloadPlugin(app: FastifyInstance, options: OverloadOptions): Promise<void> {
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelayMs,
    maxHeapUsedBytes: options.maxHeapUsedBytes,
    retryAfter: 5,
    // Typed as returning void, but under-pressure sends a returned body as the answer (see its handlePressure).
    pressureHandler: ((
      request: FastifyRequest,
      reply: FastifyReply,
      type: string,
      value: number | undefined,
    ) => {
      if (PROBES.has(request.url.split('?')[0] ?? '')) return;
      request.log.warn({ type, value }, 'shedding load');
      // A returned body is sent by under-pressure as the answer; returning nothing lets the request through.
      reply.code(503).header('retry-after', '5').type('application/json; charset=utf-8');
      return {
        statusCode: 503,
        error: 'Service Unavailable',
        message: `the service is overloaded (${type}); retry in a few seconds`,
        requestId: request.id,
      };
    }) as unknown as (
      request: FastifyRequest,
      reply: FastifyReply,
      type: string,
      value: number | undefined,
    ) => void,
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
