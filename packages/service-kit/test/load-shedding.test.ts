// A real Fastify app under (forced) memory pressure: data routes are refused with 503, Retry-After and the
// service's own body, while the probes still answer.
import Fastify from 'fastify';
import { loadShedding } from '../src';

async function underPressureApp(maxHeapUsedBytes: number) {
  const app = Fastify();
  await app.register(loadShedding, {
    maxEventLoopDelayMs: 0,
    maxHeapUsedBytes,
    refusalBody: (message: string, request) => ({ refused: message, id: request.id }),
  });
  app.get('/data', async () => ({ ok: true }));
  app.get('/healthz', async () => ({ alive: true }));
  await app.ready();
  return app;
}

/** under-pressure samples memory on an interval: poll until the first sample has been taken. */
async function firstRefusal(app: Awaited<ReturnType<typeof underPressureApp>>) {
  let answer = await app.inject({ method: 'GET', url: '/data' });
  for (let attempt = 0; attempt < 50 && answer.statusCode !== 503; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await app.inject({ method: 'GET', url: '/data' });
  }
  return answer;
}

describe('loadShedding', () => {
  it('refuses data routes with 503, Retry-After and the given body, and keeps the probes up', async () => {
    const app = await underPressureApp(1);
    try {
      const answer = await firstRefusal(app);
      expect(answer.statusCode).toBe(503);
      expect(answer.headers['retry-after']).toBe('5');
      expect(answer.json()).toEqual({
        refused: 'the service is overloaded (heapUsedBytes); retry in a few seconds',
        id: expect.any(String),
      });
      const probe = await app.inject({ method: 'GET', url: '/healthz' });
      expect([probe.statusCode, probe.json()]).toEqual([200, { alive: true }]);
    } finally {
      await app.close();
    }
  });

  it('lets requests through when no limit is exceeded', async () => {
    const app = await underPressureApp(0);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const answer = await app.inject({ method: 'GET', url: '/data' });
      expect([answer.statusCode, answer.json()]).toEqual([200, { ok: true }]);
    } finally {
      await app.close();
    }
  });
});
