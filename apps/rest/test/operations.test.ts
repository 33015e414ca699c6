// Operations endpoints and protections over real HTTP with the real GraphQL service: liveness/readiness
// (readiness follows the GraphQL service), Prometheus metrics, ETag/304 + Cache-Control, load shedding and
// the optional rate limit.
import { LARGE_ANSWER_CHARACTERS } from '@asrank/service-kit';
import { MAX_PAGE_SIZE } from '@asrank/domain';
import { buildRestApp } from '../src/app';
import { UNREACHABLE_GRAPHQL_URL, getJson, listenOnEphemeralPort } from './http';
import { startServices, type Services } from './services';

let services: Services;
let restRoot: string;

beforeAll(async () => {
  services = await startServices({ basePath: '/v2' });
  restRoot = services.restBase.replace(/\/v2$/, '');
}, 120_000);

afterAll(async () => {
  await services?.close();
});

describe('probes', () => {
  it('/healthz answers while the process runs', async () => {
    const answer = await getJson(`${restRoot}/healthz`);
    expect(answer).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('/readyz is 200 with GraphQL up, 503 naming the cause while it is down, 200 again after it returns', async () => {
    const ready = await getJson(`${restRoot}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready' });
    expect((ready.body as { datasets: number }).datasets).toBeGreaterThan(0);

    await services.stopGraphql();
    try {
      const down = await getJson(`${restRoot}/readyz`);
      expect(down.status).toBe(503);
      expect((down.body as { reason: string }).reason).toMatch(/GraphQL service/);
      // Liveness does not depend on the upstream.
      expect((await getJson(`${restRoot}/healthz`)).status).toBe(200);
    } finally {
      await services.startGraphql();
    }
    expect((await getJson(`${restRoot}/readyz`)).status).toBe(200);
  });
});

describe('metrics', () => {
  it('exposes request latency by route and GraphQL call latency by operation', async () => {
    expect((await getJson(`${services.restBase}/restful/asns?first=2`)).status).toBe(200);
    const response = await fetch(`${restRoot}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toMatch(
      /asrank_rest_http_request_duration_seconds_bucket\{[^}]*route="\/v2\/restful\/asns"/,
    );
    expect(text).toMatch(
      /asrank_rest_graphql_call_duration_seconds_count\{operation="RestAsns",outcome="ok"\} [1-9]/,
    );
    expect(text).toMatch(/process_resident_memory_bytes/);
  });
});

describe('HTTP caching', () => {
  it('answers with ETag and Cache-Control, and 304 to a matching If-None-Match', async () => {
    const url = `${services.restBase}/restful/asns?first=3`;
    const first = await fetch(url);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(first.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    await first.text();

    const revalidated = await fetch(url, { headers: { 'if-none-match': etag ?? '' } });
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe('');

    const other = await fetch(`${services.restBase}/restful/asns?first=4`, {
      headers: { 'if-none-match': etag ?? '' },
    });
    expect(other.status).toBe(200);
    expect(other.headers.get('etag')).not.toBe(etag);
    await other.text();
  });

  it.each([
    ['a list that holds the tag', (etag: string) => `"other", ${etag}, W/"third"`],
    ['a list that holds the weak form of the tag', (etag: string) => `W/${etag},"other"`],
    ['*', () => '*'],
  ])('answers 304 to an If-None-Match of %s (RFC 9110 §13.1.2)', async (_label, condition) => {
    const url = `${services.restBase}/restful/asns?first=2`;
    const first = await fetch(url);
    const etag = first.headers.get('etag') ?? '';
    await first.text();
    const revalidated = await fetch(url, { headers: { 'if-none-match': condition(etag) } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('etag')).toBe(etag);
    expect(revalidated.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(await revalidated.text()).toBe('');
    const stale = await fetch(url, { headers: { 'if-none-match': '"other", W/"third"' } });
    expect(stale.status).toBe(200);
    expect(((await stale.json()) as { data: { asns: { edges: unknown[] } } }).data.asns.edges).toHaveLength(
      2,
    );
  });

  it('keeps ETag, Content-Length and 304 for a large answer, which leaves as bytes (largeAnswersAsBytes)', async () => {
    // Every link of the latest sample month: well above the size at which answers are sent as bytes.
    const url = `${services.restBase}/restful/asnLinks?first=${MAX_PAGE_SIZE}`;
    const first = await fetch(url);
    const text = await first.text();
    expect(first.status).toBe(200);
    expect(text.length).toBeGreaterThan(LARGE_ANSWER_CHARACTERS);
    expect(first.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    const links = (JSON.parse(text) as { data: { asnLinks: { edges: unknown[] } } }).data.asnLinks;
    expect(links.edges.length).toBeGreaterThan(0);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);
    const revalidated = await fetch(url, { headers: { 'if-none-match': etag ?? '' } });
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe('');
  });

  it('marks errors as not cacheable', async () => {
    const response = await fetch(`${services.restBase}/restful/asns/not-an-asn`);
    expect(response.status).toBe(400);
    expect(response.headers.get('cache-control')).toBe('no-store');
    await response.text();
  });
});

describe('overload protection', () => {
  it('sheds data requests with 503 + Retry-After under memory pressure, keeping the probes up', async () => {
    const app = await buildRestApp({
      basePath: '',
      graphqlUrl: UNREACHABLE_GRAPHQL_URL,
      logLevel: 'silent',
      maxHeapUsedBytes: 1,
    });
    try {
      const base = await listenOnEphemeralPort(app);
      // under-pressure samples memory on an interval; poll until the first sample has been taken.
      let answer = await fetch(`${base}/restful/datasets`);
      for (let attempt = 0; attempt < 50 && answer.status !== 503; attempt += 1) {
        await answer.text();
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = await fetch(`${base}/restful/datasets`);
      }
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('5');
      expect(await answer.json()).toMatchObject({ statusCode: 503, error: 'Service Unavailable' });
      expect((await getJson(`${base}/healthz`)).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('applies the per-client rate limit only when RATE_LIMIT_MAX is set', async () => {
    const limited = await buildRestApp({
      basePath: '',
      graphqlUrl: services.graphqlUrl,
      logLevel: 'silent',
      rateLimitMax: 3,
    });
    try {
      const base = await listenOnEphemeralPort(limited);
      const statuses: number[] = [];
      for (let index = 0; index < 5; index += 1)
        statuses.push((await getJson(`${base}/restful/datasets`)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      // Probes are never rate limited.
      expect((await getJson(`${base}/healthz`)).status).toBe(200);
    } finally {
      await limited.close();
    }
    const statuses: number[] = [];
    for (let index = 0; index < 5; index += 1)
      statuses.push((await getJson(`${services.restBase}/restful/datasets`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
  });
});
