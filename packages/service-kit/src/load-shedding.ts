// Load shedding: @fastify/under-pressure answers 503 with Retry-After when the event loop lags or the heap
// is too large, instead of queueing requests until they all time out. Probes and /metrics stay answerable so
// an orchestrator can still tell a busy instance from a dead one. Each service says what a refusal body is.
import underPressure from '@fastify/under-pressure';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface LoadSheddingOptions {
  /** 0 turns event-loop-delay shedding off. */
  maxEventLoopDelayMs: number;
  /** 0 turns heap shedding off. */
  maxHeapUsedBytes: number;
  /** The JSON body of a 503 refusal, in the service's own error shape. */
  refusalBody(message: string, request: FastifyRequest): unknown;
}

const PROBES = new Set(['/healthz', '/readyz', '/metrics']);
const RETRY_AFTER_SECONDS = 5;

type PressureHandler = (
  request: FastifyRequest,
  reply: FastifyReply,
  type: string,
  value: number | undefined,
) => void;

async function loadSheddingPlugin(app: FastifyInstance, options: LoadSheddingOptions): Promise<void> {
  const handler = (request: FastifyRequest, reply: FastifyReply, type: string, value: number | undefined) => {
    if (PROBES.has(request.url.split('?')[0] ?? '')) return undefined;
    request.log.warn({ type, value }, 'shedding load');
    reply
      .code(503)
      .header('retry-after', String(RETRY_AFTER_SECONDS))
      .type('application/json; charset=utf-8');
    return options.refusalBody(`the service is overloaded (${type}); retry in a few seconds`, request);
  };
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelayMs,
    maxHeapUsedBytes: options.maxHeapUsedBytes,
    retryAfter: RETRY_AFTER_SECONDS,
    // Typed as returning void, but under-pressure sends a returned body as the answer (see its handlePressure),
    // and returning nothing lets the request through (the probes).
    pressureHandler: handler as unknown as PressureHandler,
  });
}

// fastify-plugin: the hooks must apply to every route of the app, not only inside this plugin.
export const loadShedding = fp(loadSheddingPlugin, { name: 'load-shedding', fastify: '5.x' });
