// Operations added for deployment (tools/e2e covers them across processes; these pin the app's behaviour):
// probes and metrics at the root, request ids, the result cache with ETag/304, and the input guards that
// turn JSON-as-query and NUL characters into 400s instead of 500s.
import { LARGE_ANSWER_CHARACTERS, LARGE_ARRAY_ELEMENTS } from '@asrank/service-kit';
import { buildGraphqlApp, loadConfig } from '../src';
import { sqliteWithSample, startService, type LoadedDatabase, type RunningService } from './helpers';

let store: LoadedDatabase;
let service: RunningService;
let root: string;

beforeAll(async () => {
  store = await sqliteWithSample();
  service = await startService(store.url, { BASE_PATH: '/v2' });
  root = service.baseUrl.replace(/\/v2$/, '');
}, 120_000);

afterAll(async () => {
  await service?.close();
  await store?.dispose();
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${service.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('probes and metrics', () => {
  it('/healthz and /readyz answer at the root with the latest loaded month', async () => {
    expect(await (await fetch(`${root}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${root}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', latestDate: [...store.dates].sort().at(-1) });
  });

  it('/metrics reports HTTP, GraphQL operation and database query timings', async () => {
    expect(
      (
        await post({
          query: 'query TopAsns { asns(first: 2) { totalCount edges { node { asn } } } }',
          operationName: 'TopAsns',
        })
      ).status,
    ).toBe(200);
    // Metrics are recorded in onResponse, which may run just after the client has the body: poll briefly.
    let text = '';
    for (let attempt = 0; attempt < 40 && !text.includes('route="/v2/graphql"'); attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      text = await (await fetch(`${root}/metrics`)).text();
    }
    expect(text).toMatch(/asrank_graphql_http_request_duration_seconds_bucket\{[^}]*route="\/v2\/graphql"/);
    expect(text).toMatch(
      /asrank_graphql_operation_duration_seconds_count\{operation="TopAsns",outcome="ok"\} [1-9]/,
    );
    expect(text).toMatch(
      /asrank_graphql_db_query_duration_seconds_count\{kind="select",table="asns"\} [1-9]/,
    );
  });

  it('/metrics times the one-record lookups run from SQL compiled once', async () => {
    const listed = await post({
      query: '{ asns(first: 20) { edges { node { asn organization { orgId } } } } }',
    });
    const edges = (
      (await listed.json()) as {
        data: { asns: { edges: { node: { asn: string; organization: { orgId: string } | null } }[] } };
      }
    ).data.asns.edges;
    const owned = edges.find((edge) => edge.node.organization !== null)!.node;
    const countOf = async (table: string) => {
      const text = await (await fetch(`${root}/metrics`)).text();
      const match = new RegExp(
        `asrank_graphql_db_query_duration_seconds_count\\{kind="select",table="${table}"\\} (\\d+)`,
      ).exec(text);
      return Number(match?.[1] ?? 0);
    };
    const asnsBefore = await countOf('asns');
    const organizationsBefore = await countOf('organizations');
    // The point lookup reads the ASN's organization in its own statement: one statement, on asns.
    const answer = await post({ query: `{ asn(asn: "${owned.asn}") { asnName organization { orgId } } }` });
    expect(await answer.json()).toEqual({
      data: { asn: { asnName: expect.any(String), organization: { orgId: owned.organization!.orgId } } },
    });
    expect(await countOf('asns')).toBe(asnsBefore + 1);
    expect(await countOf('organizations')).toBe(organizationsBefore);
    const organization = await post({
      query: `{ organization(orgId: "${owned.organization!.orgId}") { orgName } }`,
    });
    expect(await organization.json()).toEqual({ data: { organization: { orgName: expect.any(String) } } });
    expect(await countOf('organizations')).toBe(organizationsBefore + 1);
  });

  it('keeps a well-formed incoming x-request-id and replaces a hostile one', async () => {
    const kept = await post({ query: '{ __typename }' }, { 'x-request-id': 'abc-123' });
    expect(kept.headers.get('x-request-id')).toBe('abc-123');
    const replaced = await post({ query: '{ __typename }' }, { 'x-request-id': 'bad id\twith spaces' });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('result cache and HTTP caching', () => {
  it('caches clean answers, answers 304 to their ETag, and never caches errors', async () => {
    const body = {
      query: '{ datasets { totalCount } asns(first: 4, sort: "-rank") { edges { node { asn } } } }',
    };
    const first = await post(body);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    const text = await first.text();
    const second = await post(body);
    expect(second.headers.get('x-cache')).toBe('hit');
    expect(await second.text()).toBe(text);
    expect((await post(body, { 'if-none-match': etag as string })).status).toBe(304);
    // The same query by GET shares the entry's ETag logic.
    const params = new URLSearchParams({ query: body.query });
    const viaGet = await fetch(`${service.baseUrl}/graphql?${params.toString()}`);
    expect(viaGet.status).toBe(200);
    expect(viaGet.headers.get('etag')).toMatch(/^"[^"]+"$/);

    const failing = { query: '{ asns(sort: "nope") { totalCount } }' };
    const error = await post(failing);
    expect(error.headers.get('cache-control')).toBe('no-store');
    expect(error.headers.get('etag')).toBeNull();
    expect((await post(failing)).headers.get('x-cache')).toBeNull();

    // Partial data with an error is answered 200, and still never cached.
    const partial = { query: '{ datasets { totalCount } asn(asn: "not-a-number") { asn } }' };
    const partialAnswer = await post(partial);
    expect(partialAnswer.status).toBe(200);
    const partialBody = (await partialAnswer.json()) as { data: unknown; errors?: unknown[] };
    expect(partialBody.errors?.length).toBeGreaterThan(0);
    expect(partialAnswer.headers.get('cache-control')).toBe('no-store');
    expect(partialAnswer.headers.get('etag')).toBeNull();
    // The repeat runs JIT-compiled; its errors must be flagged the same way.
    expect((await post(partial)).headers.get('cache-control')).toBe('no-store');
    expect((await post(partial)).headers.get('x-cache')).toBeNull();

    // The lookups are counted by outcome (kept in plain numbers, added to the counter when /metrics is read).
    const counted = (text: string, outcome: string) =>
      Number(
        new RegExp(`asrank_graphql_result_cache_total\\{outcome="${outcome}"\\} (\\d+)`).exec(text)?.[1] ?? 0,
      );
    const before = await (await fetch(`${root}/metrics`)).text();
    await post(body);
    await post(body, { 'if-none-match': etag as string });
    await post({ query: '{ datasets { totalCount } }', variables: { unique: Date.now() } });
    const after = await (await fetch(`${root}/metrics`)).text();
    expect(counted(before, 'hit')).toBeGreaterThanOrEqual(1);
    expect(counted(after, 'hit') - counted(before, 'hit')).toBe(1);
    expect(counted(after, 'not_modified') - counted(before, 'not_modified')).toBe(1);
    expect(counted(after, 'miss') - counted(before, 'miss')).toBe(1);
  });

  it('caches a large answer too, though it leaves as bytes (service-kit largeAnswersAsBytes)', async () => {
    // Every record of every month: well above the size at which answers are sent as bytes.
    const body = {
      query:
        '{ datasets { totalCount } asns(dateStart: "2000-01-01", dateEnd: "2100-01-01", first: 10000) { edges { node { asn asnName date rank source cone { numberAsns numberPrefixes numberAddresses } asnDegree { provider peer customer sibling total } } } } }',
    };
    const first = await post(body);
    const text = await first.text();
    expect(first.status).toBe(200);
    expect(text.length).toBeGreaterThan(LARGE_ANSWER_CHARACTERS);
    expect(first.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(first.headers.get('etag')).toMatch(/^"[^"]+"$/);
    const second = await post(body);
    expect(second.headers.get('x-cache')).toBe('hit');
    expect(second.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(await second.text()).toBe(text);
  });

  it('serializes a clean answer with a large list by slices, byte for byte, and caches those bytes', async () => {
    // Every link of every month: a list longer than LARGE_ARRAY_ELEMENTS (plugins/large-answers.ts).
    const body = {
      query:
        '{ asnLinks(dateStart: "2000-01-01", dateEnd: "2100-01-01", first: 10000) { totalCount edges { node { asn0 { asn asnName } asn1 { asn } relationship numberPaths } } } }',
    };
    const first = await post(body);
    const bytes = Buffer.from(await first.arrayBuffer());
    const answer = JSON.parse(bytes.toString('utf8')) as { data: { asnLinks: { edges: unknown[] } } };
    expect(first.status).toBe(200);
    expect(answer.data.asnLinks.edges.length).toBeGreaterThanOrEqual(LARGE_ARRAY_ELEMENTS);
    // Exactly what JSON.stringify makes of the answer, however it was written.
    expect(bytes.equals(Buffer.from(JSON.stringify(answer), 'utf8'))).toBe(true);
    expect(first.headers.get('content-length')).toBe(String(bytes.length));
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const second = await post(body);
    expect(second.headers.get('x-cache')).toBe('hit');
    expect(Buffer.from(await second.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('can be turned off with RESULT_CACHE_MB=0 (ETags remain)', async () => {
    const app = await buildGraphqlApp(
      loadConfig({ DATABASE_URL: store.url, LOG_LEVEL: 'silent', RESULT_CACHE_MB: '0' }),
    );
    try {
      const request = {
        method: 'POST' as const,
        url: '/graphql',
        payload: { query: '{ datasets { totalCount } }' },
      };
      await app.inject(request);
      const again = await app.inject(request);
      expect(again.headers['x-cache']).toBeUndefined();
      expect(again.headers['etag']).toBeDefined();
    } finally {
      await app.close();
    }
  });
});

/** The best-ranked ASN of the sample's latest month. */
async function firstAsn(app: Awaited<ReturnType<typeof buildGraphqlApp>>): Promise<string> {
  const answer = await app.inject({
    method: 'POST',
    url: '/graphql',
    payload: { query: '{ asns(first: 1, sort: "rank") { edges { node { asn } } } }' },
  });
  return answer.json().data.asns.edges[0].node.asn;
}

describe("the data path alone (the benchmark's dataPathOnly build)", () => {
  it('answers as the service does, without request ids, metrics, ETags or the result cache', async () => {
    const config = loadConfig({ DATABASE_URL: store.url, LOG_LEVEL: 'silent', MAX_EVENT_LOOP_DELAY_MS: '0' });
    const full = await buildGraphqlApp(config);
    const dataPath = await buildGraphqlApp(config, { dataPathOnly: true });
    try {
      const lookup = {
        method: 'POST' as const,
        url: '/graphql',
        payload: {
          query:
            'query PointLookup($asn: String!) { asn(asn: $asn) { asn asnName rank organization { orgId orgName rank } cone { numberAsns } asnDegree { total } } }',
          variables: { asn: await firstAsn(full) },
        },
      };
      const fromService = await full.inject(lookup);
      const fromDataPath = await dataPath.inject(lookup);
      expect(fromService.statusCode).toBe(200);
      expect(fromDataPath.statusCode).toBe(200);
      expect(fromDataPath.json()).toEqual(fromService.json());
      expect(fromService.json().data.asn.asn).toBe(lookup.payload.variables.asn);
      for (const header of ['etag', 'cache-control', 'x-request-id'])
        expect([header, fromService.headers[header] !== undefined, fromDataPath.headers[header]]).toEqual([
          header,
          true,
          undefined,
        ]);
      // The cache would answer the repeat; the data path has none.
      expect((await full.inject(lookup)).headers['x-cache']).toBe('hit');
      expect((await dataPath.inject(lookup)).headers['x-cache']).toBeUndefined();
      expect((await full.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
      expect((await dataPath.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
      // Mercurius' limits and the error formatter are part of the answer, so they stay.
      const refused = await dataPath.inject({
        method: 'POST',
        url: '/graphql',
        payload: { query: '{ asns(first: 100000) { totalCount } }' },
      });
      const refusedByService = await full.inject({
        method: 'POST',
        url: '/graphql',
        payload: { query: '{ asns(first: 100000) { totalCount } }' },
      });
      expect(refused.statusCode).toBe(refusedByService.statusCode);
      expect(refused.json()).toEqual(refusedByService.json());
      expect(refused.json().errors[0].message).toMatch(/first/);
    } finally {
      await full.close();
      await dataPath.close();
    }
  });
});

describe('input guards', () => {
  it.each([['"abc"'], ['123'], ['{"kind":"Document","definitions":[{}]}'], ['[]']])(
    'refuses JSON query text %s with a 400 syntax error',
    async (query) => {
      const response = await post({ query });
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { errors: { message: string }[] };
      expect(answer.errors[0]?.message).toMatch(/must be a GraphQL document, not JSON/);
    },
  );

  it('refuses JSON text sent as application/graphql too', async () => {
    const response = await fetch(`${service.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/graphql' },
      body: '"abc"',
    });
    expect(response.status).toBe(400);
  });

  const messageOf = async (response: Response) =>
    ((await response.json()) as { errors: { message: string }[] }).errors[0]?.message;

  it.each([
    [{}, /the request holds no query: send the GraphQL document as "query"/],
    [{ query: null }, /the request holds no query/],
    [{ query: '' }, /the request holds no query/],
    [{ query: 123 }, /^query must be a string holding a GraphQL document, got a number$/],
    [{ query: ['{ __typename }'] }, /^query must be a string holding a GraphQL document, got an array$/],
    [{ query: '{ __typename }', variables: [1] }, /^variables must be a JSON object .*, got an array$/],
    [{ query: '{ __typename }', variables: '{}' }, /^variables must be a JSON object .*, got a string$/],
    [{ query: '{ __typename }', operationName: 5 }, /^operationName must be a string .*, got a number$/],
    [null, /^the body must be one operation .* or a JSON array of them \(a batch\), got null$/],
    [7, /^the body must be one operation .*, got a number$/],
    [[{ query: '{ __typename }' }, {}], /^operation 1 of the batch: the request holds no query/],
    [
      [{ query: '{ __typename }' }, 'x'],
      /^operation 1 of the batch: an operation must be a JSON object .*, got a string$/,
    ],
  ])('refuses the request envelope %j with a 400 naming the field', async (body, message) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(await messageOf(response)).toMatch(message);
  });

  it('refuses a GET without a query, or with variables that are not a JSON object, naming them', async () => {
    const get = (search: string) => fetch(`${service.baseUrl}/graphql?${search}`);
    const noQuery = await get('');
    expect(noQuery.status).toBe(400);
    expect(await messageOf(noQuery)).toMatch(
      /the request holds no query: send the GraphQL document as the query parameter/,
    );
    const notJson = await get(`query=${encodeURIComponent('{ __typename }')}&variables=x`);
    expect(notJson.status).toBe(400);
    expect(await messageOf(notJson)).toMatch(
      /^variables must be a JSON object of variable values, got text that is not JSON/,
    );
    const list = await get(
      `query=${encodeURIComponent('{ __typename }')}&variables=${encodeURIComponent('[1]')}`,
    );
    expect(list.status).toBe(400);
    expect(await messageOf(list)).toMatch(/got an array$/);
  });

  it('refuses a POST without a body, and answers a HEAD of a GET query as the GET', async () => {
    const empty = await fetch(`${service.baseUrl}/graphql`, { method: 'POST' });
    expect(empty.status).toBe(400);
    expect(await messageOf(empty)).toMatch(/^the request has no body: POST one operation/);
    const url = `${service.baseUrl}/graphql?query=${encodeURIComponent('{ __typename }')}`;
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe((await fetch(url)).headers.get('content-type'));
  });

  it('still answers envelopes whose optional fields are null, one operation or a batch', async () => {
    const alone = await post({ query: '{ __typename }', variables: null, operationName: null });
    expect(alone.status).toBe(200);
    expect(await alone.json()).toEqual({ data: { __typename: 'Query' } });
    const batch = await post([
      { query: '{ __typename }' },
      { query: 'query Q { __typename }', operationName: 'Q' },
    ]);
    expect(await batch.json()).toEqual([
      { data: { __typename: 'Query' } },
      { data: { __typename: 'Query' } },
    ]);
    const get = await fetch(
      `${service.baseUrl}/graphql?query=${encodeURIComponent('{ __typename }')}&variables=null`,
    );
    expect(await get.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('refuses NUL characters in variables and in literals, naming the argument', async () => {
    const byVariable = await post({
      query: 'query Q($name: String) { asns(name: $name) { totalCount } }',
      variables: { name: 'a\u0000b' },
    });
    expect(byVariable.status).toBe(400);
    const variableAnswer = (await byVariable.json()) as {
      errors: { message: string; extensions: { argument: string } }[];
    };
    expect(variableAnswer.errors[0]?.message).toMatch(/\$name must not contain NUL/);
    expect(variableAnswer.errors[0]?.extensions.argument).toBe('name');

    const byLiteral = await post({ query: '{ asns(name: "a\\u0000b") { totalCount } }' });
    expect(byLiteral.status).toBe(400);
    expect(((await byLiteral.json()) as { errors: { message: string }[] }).errors[0]?.message).toMatch(
      /argument name must not contain NUL/,
    );
  });
});

describe('load shedding', () => {
  it('answers 503 with Retry-After under pressure while the probes stay up', async () => {
    const app = await buildGraphqlApp(
      loadConfig({ DATABASE_URL: store.url, LOG_LEVEL: 'silent', MAX_HEAP_USED_BYTES: '1' }),
    );
    try {
      // under-pressure samples memory on an interval: poll until the first sample has been taken.
      let answer = await app.inject({
        method: 'POST',
        url: '/graphql',
        payload: { query: '{ datasets { totalCount } }' },
      });
      for (let attempt = 0; attempt < 50 && answer.statusCode !== 503; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = await app.inject({
          method: 'POST',
          url: '/graphql',
          payload: { query: '{ datasets { totalCount } }' },
        });
      }
      expect(answer.statusCode).toBe(503);
      expect(answer.headers['retry-after']).toBe('5');
      expect(answer.json()).toMatchObject({ errors: [{ extensions: { code: 'OVERLOADED' } }] });
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
