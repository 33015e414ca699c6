// ETags of GraphQL answers with the result cache off (RESULT_CACHE_MB=0): made with the answer, and a matching
// If-None-Match is answered 304 once the answer is made. Where the data version is known at once (SQLite) the tag
// names it, as with the cache on; on PostgreSQL, where the version costs a round trip, it is the body's digest.
import { contentHash, LARGE_ARRAY_ELEMENTS } from '@asrank/service-kit';
import { buildGraphqlApp, loadConfig } from '../src';
import {
  asnsOfMonth,
  pgAdminUrl,
  postgresWithSample,
  sqliteWithSample,
  type LoadedDatabase,
} from './helpers';

if (!pgAdminUrl) console.warn('SKIP answer tags on PostgreSQL: DATABASE_URL_PG is not set (CI sets it).');

const stores: [string, () => Promise<LoadedDatabase>][] = [['SQLite', sqliteWithSample]];
const pgUrl = pgAdminUrl;
if (pgUrl) stores.push(['PostgreSQL', () => postgresWithSample(pgUrl)]);

const POINT_LOOKUP =
  'query PointLookup($asn: String!) { asn(asn: $asn) { asn asnName rank country { iso } organization { orgId orgName } } }';

describe.each(stores)('ETags with the result cache off on %s', (storeName, openStore) => {
  let store: LoadedDatabase;
  let app: Awaited<ReturnType<typeof buildGraphqlApp>>;
  let asns: string[];
  beforeAll(async () => {
    store = await openStore();
    app = await buildGraphqlApp(
      loadConfig({ DATABASE_URL: store.url, LOG_LEVEL: 'silent', RESULT_CACHE_MB: '0' }),
    );
    const latest = [...store.dates].sort().at(-1)!;
    asns = await asnsOfMonth(store.reader, latest, 2);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await store?.dispose();
  });

  const lookUp = (asn: string, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'POST',
      url: '/graphql',
      headers,
      payload: { query: POINT_LOOKUP, variables: { asn } },
    });

  it('tags an answer with the data version or its body’s digest, and answers a matching If-None-Match 304 without a body', async () => {
    const first = await lookUp(asns[0]!);
    expect(first.statusCode).toBe(200);
    expect(first.json().data.asn.asn).toBe(asns[0]);
    const etag = first.headers['etag'] as string;
    expect(first.headers['cache-control']).toBe('public, max-age=60');
    if (storeName === 'SQLite') expect(etag).toMatch(/^"[^"-]+-[0-9a-f]{16}"$/);
    else expect(etag).toBe(`"${(await contentHash())(first.body)}"`);

    const revalidated = await lookUp(asns[0]!, { 'if-none-match': etag });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.body).toBe('');
    expect(revalidated.headers['content-length']).toBeUndefined();
    expect(revalidated.headers['etag']).toBe(etag);

    // Another answer has another tag, and an old tag does not make it 304.
    const other = await lookUp(asns[1]!, { 'if-none-match': etag });
    expect(other.statusCode).toBe(200);
    expect(other.json().data.asn.asn).toBe(asns[1]);
    expect(other.headers['etag']).not.toBe(etag);
  });

  it('tags a large answer, sent as bytes, the same way', async () => {
    // Every link of every month: a list long enough to be serialized by slices into bytes (plugins/large-answers.ts).
    const request = {
      method: 'POST' as const,
      url: '/graphql',
      payload: {
        query:
          '{ asnLinks(dateStart: "2000-01-01", dateEnd: "2100-01-01", first: 10000) { edges { node { asn0 { asn } asn1 { asn } relationship } } } }',
      },
    };
    const first = await app.inject(request);
    expect(first.statusCode).toBe(200);
    expect(first.json().data.asnLinks.edges.length).toBeGreaterThanOrEqual(LARGE_ARRAY_ELEMENTS);
    const etag = first.headers['etag'] as string;
    if (storeName === 'SQLite') expect(etag).toMatch(/^"[^"-]+-[0-9a-f]{16}"$/);
    else expect(etag).toBe(`"${(await contentHash())(first.rawPayload)}"`);
    const revalidated = await app.inject({ ...request, headers: { 'if-none-match': etag } });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.rawPayload.length).toBe(0);
  });

  it('tags no batch of operations (the REST service tags its own answers)', async () => {
    const batch = await app.inject({
      method: 'POST',
      url: '/graphql',
      payload: asns.map((asn) => ({ query: POINT_LOOKUP, variables: { asn } })),
    });
    expect(batch.statusCode).toBe(200);
    expect(batch.json().map((answer: { data: { asn: { asn: string } } }) => answer.data.asn.asn)).toEqual(
      asns,
    );
    expect(batch.headers['etag']).toBeUndefined();
  });

  it('tags no answer that carries errors', async () => {
    const failing = await lookUp('AS-not-a-number');
    expect(failing.json().errors?.[0]?.message).toMatch(/asn/);
    expect(failing.headers['etag']).toBeUndefined();
    expect(failing.headers['cache-control']).toBe('no-store');
  });
});

describe('ETags of the same request with the result cache off and on (SQLite)', () => {
  let store: LoadedDatabase;
  let apps: Awaited<ReturnType<typeof buildGraphqlApp>>[];
  let asn: string;
  beforeAll(async () => {
    store = await sqliteWithSample();
    apps = await Promise.all(
      ['0', '8'].map((megabytes) =>
        buildGraphqlApp(
          loadConfig({ DATABASE_URL: store.url, LOG_LEVEL: 'silent', RESULT_CACHE_MB: megabytes }),
        ),
      ),
    );
    asn = (await asnsOfMonth(store.reader, [...store.dates].sort().at(-1)!, 1))[0]!;
  }, 120_000);
  afterAll(async () => {
    await Promise.all((apps ?? []).map((app) => app.close()));
    await store?.dispose();
  });

  const tagOf = async (
    app: Awaited<ReturnType<typeof buildGraphqlApp>>,
    payload: { query: string; variables?: unknown; operationName?: string },
  ) => {
    const answer = await app.inject({ method: 'POST', url: '/graphql', payload });
    expect(answer.statusCode).toBe(200);
    return answer.headers['etag'] as string;
  };

  it('names the query text, the operation and the variables, the same way in both modes', async () => {
    const request = { query: POINT_LOOKUP, variables: { asn }, operationName: 'PointLookup' };
    const tags = await Promise.all(apps.map((app) => tagOf(app, request)));
    expect(tags[0]).toMatch(/^"[^"-]+-[0-9a-f]{16}"$/);
    expect(tags[1]).toBe(tags[0]);
    for (const app of apps) {
      // Asked again (the text's hash now kept): the same tag.
      expect(await tagOf(app, request)).toBe(tags[0]);
      const others = [
        await tagOf(app, { ...request, query: `${POINT_LOOKUP} ` }),
        await tagOf(app, { ...request, operationName: undefined }),
        await tagOf(app, { ...request, variables: { asn: `${asn}`, unused: 1 } }),
      ];
      expect(new Set([tags[0], ...others]).size).toBe(4);
    }
  });
});
