// Load shedding: @fastify/under-pressure answers 503 with Retry-After when the event loop lags or the heap
// is too large, instead of queueing requests until they all time out. Probes and /metrics stay answerable.
import underPressure from '@fastify/under-pressure';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface OverloadOptions {
  maxEventLoopDelayMs: number;
  maxHeapUsedBytes: number;
}

const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

async function overloadPluginBody(app: FastifyInstance, options: OverloadOptions): Promise<void> {
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
      if (PROBES.has(request.url.split('?')[0] ?? '')) return undefined;
      request.log.warn({ type, value }, 'shedding load');
      reply.code(503).header('retry-after', '5').type('application/json; charset=utf-8');
      return {
        data: null,
        errors: [
          {
            message: `the service is overloaded (${type}); retry in a few seconds`,
            extensions: { code: 'OVERLOADED' },
          },
        ],
      };
    }) as unknown as (
      request: FastifyRequest,
      reply: FastifyReply,
      type: string,
      value: number | undefined,
    ) => void,
  });
}

// fastify-plugin: the hooks must apply to every route of the app, not only inside this plugin.
export const overloadPlugin = fp(overloadPluginBody, { name: 'overload', fastify: '5.x' });
