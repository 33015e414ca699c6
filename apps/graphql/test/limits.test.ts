// Abuse limits and error hygiene over real HTTP: too deep, too costly, too big, batched and aliased
// queries are refused with clear errors, internal failures never leak SQL or stacks, and the service
// keeps answering afterwards.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '@asrank/db';
import {
  graphql,
  graphqlData,
  graphqlJsRequestErrors,
  makeTempDir,
  sqliteWithSample,
  startService,
  type LoadedDatabase,
  type RunningService,
} from './helpers';
import { INTERNAL_ERROR_MESSAGE, queryCost } from '../src';
import { MAX_DRAINED_BODY_BYTES } from '../src/plugins/oversized-body';
import { createSchema } from '@asrank/schema';
import { parse } from 'graphql';

let store: LoadedDatabase;
let service: RunningService;
let someAsn: string;

beforeAll(async () => {
  store = await sqliteWithSample();
  service = await startService(store.url);
  const row = await store.reader.db
    .selectFrom('asns')
    .select('asn')
    .orderBy('degree_total', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  someAsn = String(row.asn);
}, 120_000);

afterAll(async () => {
  await service?.close();
  await store?.dispose();
});

async function expectHealthy(): Promise<void> {
  const health = await fetch(`${service.baseUrl}/health`);
  expect(health.status).toBe(200);
  const data = await graphqlData<{ asn: { asn: string } }>(
    service.baseUrl,
    `{ asn(asn: "${someAsn}") { asn } }`,
  );
  expect(data.asn.asn).toBe(someAsn);
}

/** asn { asnLinks { edges { node { asn1 { asnLinks { ... } } } } } } nested `levels` times. */
function nestedLinks(levels: number, first: number): string {
  let selection = 'asn';
  for (let level = 0; level < levels; level += 1)
    selection = `asnLinks(first: ${first}) { edges { node { asn1 { ${selection} } } } }`;
  return `{ asn(asn: "${someAsn}") { ${selection} } }`;
}

describe('query limits', () => {
  it('refuses a query deeper than the limit with a message naming the depth limit', async () => {
    const { status, body } = await graphql(service.baseUrl, nestedLinks(5, 1));
    expect(status).toBe(400);
    expect(body.errors?.[0]?.message).toMatch(
      /^query refused: its depth \d+ exceeds the query depth limit of 15$/,
    );
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', maxDepth: 15 });
    await expectHealthy();
  });

  it('accepts the same shape within the depth limit', async () => {
    const data = await graphqlData<{ asn: { asnLinks: { edges: unknown[] } } }>(
      service.baseUrl,
      nestedLinks(3, 2),
    );
    expect(data.asn.asnLinks.edges.length).toBeGreaterThan(0);
  });

  it('refuses a too costly query (nested large pages) with its cost and the limit', async () => {
    const { status, body } = await graphql(service.baseUrl, nestedLinks(3, 1000));
    expect(status).toBe(400);
    expect(body.errors?.[0]?.message).toMatch(/estimated cost \d+ exceeds the limit of 500000/);
    expect(body.errors?.[0]?.extensions?.['code']).toBe('QUERY_TOO_COMPLEX');
    await expectHealthy();
  });

  it('counts page sizes given through variables, over GET as well as POST', async () => {
    const query = `query Deep($first: Int) { asn(asn: "${someAsn}") { asnLinks(first: $first) { edges { node { asn1 { asnLinks(first: $first) { edges { node { asn1 { asnLinks(first: $first) { edges { node { asn1 { asn } } } } } } } } } } } } } }`;
    for (const method of ['POST', 'GET'] as const) {
      const refused = await graphql(service.baseUrl, query, { variables: { first: 5000 }, method });
      expect(refused.status).toBe(400);
      expect(refused.body.errors?.[0]?.message).toMatch(/exceeds the limit/);
      const accepted = await graphql(service.baseUrl, query, { variables: { first: 2 }, method });
      expect(accepted.status).toBe(200);
      expect(accepted.body.errors).toBeUndefined();
    }
  });

  it('makes aliases pay: many aliased copies of an acceptable page query add up to a refusal', async () => {
    const single = await graphql(
      service.baseUrl,
      '{ a0: asns(first: 10000) { edges { node { asn asnName } } } }',
    );
    expect(single.status).toBe(200);
    // Within the alias limit, so it is the cost that refuses them.
    const aliases = Array.from(
      { length: 50 },
      (_, index) => `a${index}: asns(first: 10000) { edges { node { asn asnName } } }`,
    ).join('\n');
    const { status, body } = await graphql(service.baseUrl, `{ ${aliases} }`);
    expect(status).toBe(400);
    expect(body.errors?.[0]?.message).toMatch(/exceeds the limit/);
    await expectHealthy();
  });

  it('refuses more aliased fields than the alias limit with a message naming the limit, and accepts the limit itself', async () => {
    const aliased = (count: number) =>
      `{ ${Array.from({ length: count }, (_, index) => `a${index}: asn(asn: "${someAsn}") { asn }`).join(' ')} }`;
    const refused = await graphql(service.baseUrl, aliased(51));
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.message).toMatch(/51 aliased fields, more than the alias limit of 50/);
    expect(refused.body.data ?? null).toBeNull();
    const accepted = await graphqlData<Record<string, { asn: string }>>(service.baseUrl, aliased(50));
    expect(Object.keys(accepted)).toHaveLength(50);
    expect(accepted['a49']?.asn).toBe(someAsn);
    await expectHealthy();
  });

  it('counts aliases inside nested selections and fragments too', async () => {
    const inner = Array.from({ length: 60 }, (_, index) => `n${index}: asn`).join(' ');
    const { status, body } = await graphql(
      service.baseUrl,
      `{ top: asn(asn: "${someAsn}") { ...Parts } } fragment Parts on Asn { ${inner} }`,
    );
    expect(status).toBe(400);
    expect(body.errors?.[0]?.message).toMatch(/61 aliased fields, more than the alias limit of 50/);
  });

  it('gives the cost model the multipliers it documents', () => {
    const schema = createSchema();
    const single = queryCost({ schema, document: parse('{ asns(first: 10) { edges { node { asn } } } }') });
    const double = queryCost({ schema, document: parse('{ asns(first: 20) { edges { node { asn } } } }') });
    const byDefault = queryCost({ schema, document: parse('{ asns { edges { node { asn } } } }') });
    expect(double - 1).toBe(2 * (single - 1));
    expect(byDefault - 1).toBe(4 * (single - 1));
    // The cone stream multiplies by its own item budget: `first`, or the default budget of 1000.
    const stream = (first: string) =>
      queryCost({ schema, document: parse(`{ asnConesStream${first} { pages { asns { asn } } } }`) });
    expect(stream('(first: 10)') - 1).toBe(10 * (stream('(first: 1)') - 1));
    expect(stream('(first: 10000)') - 1).toBe(10 * (stream('') - 1));
  });

  it('costs one document anew for each page size and @include switch, though costs are remembered per document', async () => {
    // One query text, so Mercurius hands the cost check the same parsed document every time.
    const query = `query Pages($n: Int, $withLinks: Boolean!, $asn: String!) {
      asns(first: $n) { edges { node { asn asnLinks(first: 10000) @include(if: $withLinks) { totalCount } } } }
      asn(asn: $asn) { asn }
    }`;
    const ask = (variables: Record<string, unknown>) => graphql(service.baseUrl, query, { variables });
    const small = { n: 1, withLinks: true, asn: someAsn };
    expect((await ask(small)).status).toBe(200);
    // Same cost variables, another non-cost variable: still accepted.
    expect((await ask({ ...small, asn: '1' })).status).toBe(200);
    // 10,000 pages of 10,000 links: the remembered cost of n=1 must not be reused.
    const big = await ask({ ...small, n: 10000 });
    expect(big.status).toBe(400);
    expect(big.body.errors?.[0]?.message).toMatch(/exceeds the limit/);
    // The expensive part switched off by @include: accepted again.
    expect((await ask({ ...small, n: 10000, withLinks: false })).status).toBe(200);
    expect((await ask({ ...small, n: 10000 })).status).toBe(400);
  });

  it('refuses a request body over the size limit with HTTP 413 and a clear error', async () => {
    const padding = ' '.repeat(300 * 1024);
    const response = await fetch(`${service.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ asn(asn: "${someAsn}") { asn } }${padding}` }),
    });
    expect(response.status).toBe(413);
    const body = (await response.json()) as { errors: { message: string }[] };
    expect(body.errors[0]?.message).toMatch(/too large/i);
    await expectHealthy();
  });

  it('answers a declared oversized body with its 413 on a connection that stays usable, past any close', async () => {
    // One socket, three requests written back to back: a 1 MB body over the 256 KB limit, then a query, then a
    // body over the drain bound. The first two are answered in order on the same connection (the refused body
    // is read off and discarded instead of the socket being closed under a client still writing).
    const url = new URL(service.baseUrl);
    const graphqlPath = `${url.pathname.replace(/\/$/, '')}/graphql`;
    const request = (body: string) =>
      `POST ${graphqlPath} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const oversized = JSON.stringify({ query: `{ datasets { totalCount } } #${'x'.repeat(1024 * 1024)}` });
    const query = JSON.stringify({ query: `{ asn(asn: "${someAsn}") { asn } }` });
    const huge = `POST ${graphqlPath} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\ncontent-length: ${MAX_DRAINED_BODY_BYTES + 1}\r\n\r\n{`;
    const socket = net.connect(Number(url.port), url.hostname);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => undefined);
    socket.write(request(oversized) + request(query) + huge);
    await closed;
    const text = Buffer.concat(received).toString('utf8');
    const answers = text.split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((answer) => answer.slice(0, 12))).toEqual([
      'HTTP/1.1 413',
      'HTTP/1.1 200',
      'HTTP/1.1 413',
    ]);
    expect(answers[0]).not.toMatch(/^connection: close/im);
    expect(answers[0]).toMatch(/too large/i);
    expect(answers[1]).toContain(`"asn":"${someAsn}"`);
    // Beyond the bound the connection is closed after the answer, as Fastify does.
    expect(answers[2]).toMatch(/^connection: close/im);
    await expectHealthy();
  });

  it('refuses a document with too many tokens before validating it', async () => {
    const fields = Array.from({ length: 25000 }, () => 'asn').join(' ');
    const { status, body } = await graphql(service.baseUrl, `{ asn(asn: "${someAsn}") { ${fields} } }`);
    expect(status).toBe(400);
    expect(body.errors?.[0]?.message).toMatch(/^Syntax Error: Document contains more than \d+ tokens/);
  });

  it('says why when graphql-js gives up checking that many fields of one name agree', async () => {
    const fields = Array.from({ length: 700 }, () => `asn(asn: "${someAsn}") { asn }`).join(' ');
    const { status, body } = await graphql(service.baseUrl, `{ ${fields} }`);
    expect(status).toBe(400);
    expect(body.errors).toEqual([
      {
        message: expect.stringMatching(/^query refused: it has too many fields of the same name/),
        extensions: { code: 'QUERY_TOO_COMPLEX' },
      },
    ]);
  });

  /** POSTs `operations` as one JSON array (a batch). */
  async function postBatch(operations: unknown[]): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${service.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(operations),
    });
    return { status: response.status, body: await response.json() };
  }

  interface Entry {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: Record<string, unknown> }[];
  }

  it('answers a batch (an array body) with each operation answered in its place, as it would be alone', async () => {
    const lookup = 'query One($asn: String!) { asn(asn: $asn) { asn asnName rank } }';
    const operations = [
      { query: lookup, variables: { asn: someAsn } },
      { query: '{ datasets { totalCount } }' },
      { query: lookup, variables: { asn: 'x' } },
      { query: lookup, variables: { asn: '4294967295' } },
      // Each operation is priced and run by its own operation name.
      {
        query: `query A { datasets { totalCount } } query B { asn(asn: "${someAsn}") { asn } }`,
        operationName: 'B',
      },
    ];
    const { status, body } = await postBatch(operations);
    // One operation's bad argument is its own entry's error, not the status of the others' answers.
    expect(status).toBe(200);
    expect(Array.isArray(body)).toBe(true);
    const entries = body as Entry[];
    expect(entries).toHaveLength(5);
    for (const [index, operation] of operations.entries()) {
      const alone = await graphql(service.baseUrl, operation.query, {
        variables: operation.variables,
        operationName: operation.operationName,
      });
      expect(entries[index]!.data).toEqual(alone.body.data);
      expect(entries[index]!.errors?.map((error) => error.message)).toEqual(
        alone.body.errors?.map((error) => error.message),
      );
    }
    expect(entries[2]!.errors?.[0]?.extensions?.['argument']).toBe('asn');
    expect(entries[3]!.data).toEqual({ asn: null });
    expect(entries[4]!.data).toEqual({ asn: { asn: someAsn } });
    await expectHealthy();
  });

  it('prices each operation of a batch on its own: a too costly one is refused in its entry', async () => {
    const { status, body } = await postBatch([
      { query: nestedLinks(3, 1000) },
      { query: `{ asn(asn: "${someAsn}") { asn } }` },
    ]);
    expect(status).toBe(200);
    const [refused, answered] = body as Entry[];
    expect(refused!.errors?.[0]?.message).toMatch(/estimated cost \d+ exceeds the limit of 500000/);
    expect(answered!.data).toEqual({ asn: { asn: someAsn } });
  });

  it('refuses a batch longer than GRAPHQL_MAX_BATCH, an empty one, and one with a refused operation', async () => {
    const tooLong = await postBatch(
      Array.from({ length: 17 }, () => ({ query: '{ datasets { totalCount } }' })),
    );
    expect(tooLong.status).toBe(400);
    expect((tooLong.body as Entry).errors?.[0]?.message).toBe(
      'a batch may hold at most 16 operations (GRAPHQL_MAX_BATCH), got 17',
    );
    const empty = await postBatch([]);
    expect(empty.status).toBe(400);
    expect((empty.body as Entry).errors?.[0]?.message).toBe('a batch must hold at least one operation');
    const withNul = await postBatch([
      { query: '{ datasets { totalCount } }' },
      {
        query: 'query Named($name: String) { asns(name: $name) { totalCount } }',
        variables: { name: 'a\u0000b' },
      },
    ]);
    expect(withNul.status).toBe(400);
    const [error] = (withNul.body as Entry).errors ?? [];
    expect(error?.message).toBe(
      'operation 1 of the batch: variable $name must not contain NUL (\\u0000) characters',
    );
    expect(error?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'name', operation: 1 });
    await expectHealthy();
  });

  it('refuses batches when GRAPHQL_MAX_BATCH is 1', async () => {
    const single = await startService(store.url, { GRAPHQL_MAX_BATCH: '1' });
    try {
      const response = await fetch(`${single.baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([
          { query: '{ datasets { totalCount } }' },
          { query: '{ datasets { totalCount } }' },
        ]),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as Entry).errors?.[0]?.message).toBe(
        'this service takes no batches (GRAPHQL_MAX_BATCH is 1): send one operation as a JSON object, not an array',
      );
    } finally {
      await single.close();
    }
  });

  it('answers introspection (what GraphiQL sends) within the limits', async () => {
    const { getIntrospectionQuery } = await import('graphql');
    const data = await graphqlData<{ __schema: { queryType: { name: string } } }>(
      service.baseUrl,
      getIntrospectionQuery({ inputValueDeprecation: true }),
    );
    expect(data.__schema.queryType.name).toBe('Query');
  });

  it.each(['POST', 'GET'] as const)(
    'reports an operation name the document lacks in graphql-js words by %s, not as a refused cost',
    async (method) => {
      const cases = [
        { query: `{ asn(asn: "${someAsn}") { asn } }`, operationName: 'Nope' },
        { query: `query One { asn(asn: "${someAsn}") { asn } } query Two { asns(first: 1) { totalCount } }` },
        {
          query: 'query One($asn: String!) { asn(asn: $asn) { asn } }',
          operationName: 'Nope',
          variables: { asn: someAsn },
        },
      ];
      for (const request of cases) {
        const expected = graphqlJsRequestErrors(request.query, request.variables, request.operationName);
        expect(expected).toHaveLength(1);
        // The first request runs graphql-js, the second compiles the text, the third runs it compiled (if any).
        for (let round = 0; round < 3; round += 1) {
          const { status, body } = await graphql(service.baseUrl, request.query, { ...request, method });
          expect(status).toBeLessThan(500);
          expect(body.data ?? null).toBeNull();
          expect(body.errors?.map((error) => error.message)).toEqual(expected);
        }
      }
    },
  );

  it('reports syntax errors and unknown fields with graphql-js messages and HTTP 400', async () => {
    const syntax = await graphql(service.baseUrl, '{ asn(asn: "1") { asn ');
    expect(syntax.status).toBe(400);
    expect(syntax.body.errors?.[0]?.message).toMatch(/Syntax Error/);
    const unknown = await graphql(service.baseUrl, '{ asn(asn: "1") { nonsense } }');
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors?.[0]?.message).toMatch(/Cannot query field "nonsense"/);
    // Several reasons to refuse one document: still 400, each reason listed.
    const several = await graphql(service.baseUrl, '{ nonsense asn(asn: "1") { alsoNonsense } }');
    expect(several.status).toBe(400);
    expect(several.body.errors?.map((error) => error.message)).toEqual([
      expect.stringMatching(/Cannot query field "nonsense"/),
      expect.stringMatching(/Cannot query field "alsoNonsense"/),
    ]);
  });
});

describe('internal errors', () => {
  let broken: RunningService;
  let dir: string;

  beforeAll(async () => {
    // A real store whose organizations table is gone: the query fails inside SQLite, as a corrupted or
    // half-migrated database would.
    dir = makeTempDir('broken');
    const file = path.join(dir, 'broken.db');
    fs.copyFileSync(store.url, file);
    const writer = openDatabase(file);
    await sql`drop table organizations`.execute(writer.db);
    await writer.close();
    broken = await startService(file);
  }, 60_000);

  afterAll(async () => {
    await broken?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers with a generic message, never SQL text or a stack trace, and keeps serving', async () => {
    const { status, body } = await graphql(
      broken.baseUrl,
      '{ organizations(first: 1) { totalCount edges { node { orgId } } } }',
    );
    // 500 when nothing could be answered, 200 with a null field when the field is nullable.
    expect(status).toBe(body.data ? 200 : 500);
    // Either the schema's own generic message (naming only the field) or this service's.
    expect(body.errors?.[0]?.message).toMatch(
      new RegExp(`^(internal error while resolving Query\\.organizations|${INTERNAL_ERROR_MESSAGE})$`),
    );
    expect(body.errors?.[0]?.extensions?.['code']).toBe('INTERNAL_SERVER_ERROR');
    const text = JSON.stringify(body);
    expect(text).not.toMatch(/no such table|select |from |sqlite|\.ts:\d+|node_modules/i);
    const data = await graphqlData<{ asn: { asn: string } }>(
      broken.baseUrl,
      `{ asn(asn: "${someAsn}") { asn } }`,
    );
    expect(data.asn.asn).toBe(someAsn);
  });

  it('keeps errors the same once a repeated query runs JIT-compiled', async () => {
    for (let round = 0; round < 4; round += 1) {
      const internal = await graphql(
        broken.baseUrl,
        '{ organizations(first: 1) { totalCount edges { node { orgId } } } }',
      );
      expect(internal.body.errors?.[0]?.extensions?.['code']).toBe('INTERNAL_SERVER_ERROR');
      expect(JSON.stringify(internal.body)).not.toMatch(/no such table|select |sqlite/i);
      const argument = await graphql(broken.baseUrl, '{ asns(first: -5) { totalCount } }');
      expect(argument.body.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        argument: 'first',
      });
      // The compiled query's errors carry their locations, as graphql-js's do.
      expect(argument.body.errors?.[0]).toMatchObject({
        locations: [{ line: 1, column: 3 }],
        path: ['asns'],
      });
      expect(internal.body.errors?.[0]).toMatchObject({ locations: [{ line: 1, column: 3 }] });
    }
  });
});
