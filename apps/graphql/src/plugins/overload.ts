// Load shedding (shared with the REST service, see @asrank/service-kit): a refusal is a GraphQL-shaped
// error body with code OVERLOADED, so GraphQL clients read it like any other error.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { loadShedding } from '@asrank/service-kit';

export interface OverloadOptions {
  maxEventLoopDelayMs: number;
  maxHeapUsedBytes: number;
}

async function overloadPluginBody(app: FastifyInstance, options: OverloadOptions): Promise<void> {
  await app.register(loadShedding, {
    ...options,
    refusalBody: (message: string) => ({
      data: null,
      errors: [{ message, extensions: { code: 'OVERLOADED' } }],
    }),
  });
}

// fastify-plugin: the hooks must apply to every route of the app, not only inside this plugin.
export const overloadPlugin = fp(overloadPluginBody, { name: 'overload', fastify: '5.x' });
