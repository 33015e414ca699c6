// Liveness and readiness for load balancers and the tests: answers only when the database answers.
import type { FastifyInstance } from 'fastify';
import type { DatabaseHandle } from '@asrank/db';

export async function healthPlugin(
  app: FastifyInstance,
  { handle }: { handle: DatabaseHandle },
): Promise<void> {
  app.get('/health', async () => {
    const latest = await handle.db
      .selectFrom('datasets')
      .select('date')
      .orderBy('date', 'desc')
      .limit(1)
      .executeTakeFirst();
    return { status: 'ok', latestDate: latest?.date ?? null };
  });
}
