// Probes for load balancers and orchestrators, at the root (outside BASE_PATH) so they have fixed
// addresses and nginx does not publish them: /healthz answers while the process runs; /readyz answers 200
// only when the database answers and holds at least one loaded month (503 naming the cause otherwise).
import type { FastifyInstance } from 'fastify';
import type { DatabaseHandle } from '@asrank/db';

export async function probesPlugin(
  app: FastifyInstance,
  { handle }: { handle: DatabaseHandle },
): Promise<void> {
  const config = { disableMetrics: true };
  app.get('/healthz', { config }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config }, async (request, reply) => {
    try {
      const latest = await handle.db
        .selectFrom('datasets')
        .select('date')
        .orderBy('date', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (!latest) return reply.code(503).send({ status: 'unavailable', reason: 'no dataset is loaded' });
      return { status: 'ready', latestDate: latest.date };
    } catch (error) {
      request.log.warn({ err: error }, 'not ready: database unreachable');
      return reply.code(503).send({ status: 'unavailable', reason: 'the database does not answer' });
    }
  });
}
