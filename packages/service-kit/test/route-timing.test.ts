// The request histogram over real HTTP: one observation per answer, labelled by method, route pattern and status;
// requests no route matched share one label; probes (disableMetrics) and HEAD requests are left out.
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { UNKNOWN_ROUTE, createRouteHistogram, routeTiming, type RouteHistogram } from '../src';

describe('routeTiming', () => {
  let app: FastifyInstance;
  let baseUrl: string;
  let registry: Registry;
  let histogram: RouteHistogram;

  beforeAll(async () => {
    registry = new Registry();
    histogram = createRouteHistogram('test_http_request_duration_seconds', [0.001, 0.01, 0.1, 1], registry);
    app = Fastify();
    await app.register(routeTiming, { histogram });
    app.get('/items/:id', async (request, reply) => {
      const { id } = request.params as { id: string };
      if (id === 'missing') return reply.code(404).send({ error: 'no such item' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { id };
    });
    app.get('/healthz', { config: { disableMetrics: true } }, async () => ({ status: 'ok' }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app.close();
  });

  /** The histogram's count and sum for one label set (0 when it was never observed). */
  async function observed(
    labels: Partial<Record<'method' | 'route' | 'status_code', string>>,
  ): Promise<{ count: number; sum: number }> {
    const { values } = await histogram.get();
    const matching = (name: string) =>
      values.find(
        (value) =>
          value.metricName === name &&
          Object.entries(labels).every(
            ([key, label]) => String(value.labels[key as keyof typeof labels]) === label,
          ),
      )?.value ?? 0;
    return {
      count: matching('test_http_request_duration_seconds_count'),
      sum: matching('test_http_request_duration_seconds_sum'),
    };
  }

  it('observes each answer under its route pattern, method and status, with its duration', async () => {
    for (const id of ['1', '2', '3']) expect((await fetch(`${baseUrl}/items/${id}`)).status).toBe(200);
    expect((await fetch(`${baseUrl}/items/missing`)).status).toBe(404);
    const ok = await observed({ method: 'GET', route: '/items/:id', status_code: '200' });
    expect(ok.count).toBe(3);
    // Each of the three waited 20 ms before answering.
    expect(ok.sum).toBeGreaterThanOrEqual(0.055);
    expect(ok.sum).toBeLessThan(30);
    expect((await observed({ method: 'GET', route: '/items/:id', status_code: '404' })).count).toBe(1);
  });

  it('groups requests no route matched under one label, and leaves out probes and HEAD requests', async () => {
    for (const path of ['/nowhere', '/elsewhere?x=1'])
      expect((await fetch(`${baseUrl}${path}`)).status).toBe(404);
    expect((await observed({ route: UNKNOWN_ROUTE, status_code: '404' })).count).toBe(2);
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    expect((await observed({ route: '/healthz' })).count).toBe(0);
    expect((await fetch(`${baseUrl}/items/4`, { method: 'HEAD' })).status).toBe(200);
    expect((await observed({ method: 'HEAD' })).count).toBe(0);
    const text = await registry.metrics();
    expect(text).not.toMatch(/route="\/nowhere"/);
  });
});
