// A list route's page of VERBATIM_FROM_PAGE_SIZE rows or more (populate=0) is sent to the GraphQL service alone and
// answered with its bytes as they came, when they hold nothing but data; anything else is read as before. Against the
// real GraphQL service on the sample data (the bytes, the calls it received), and against a raw node:http server
// standing in for it where an answer must carry what the real one never does (a string value "errors", extensions).
import type { FastifyInstance } from 'fastify';
import * as queries from '../src/graphql/queries';
import { isDataAlone } from '../src/plugins/graphql-client';
import { VERBATIM_FROM_PAGE_SIZE } from '../src/routes/forward';
import { buildRestApp } from '../src/app';
import { getJson, listenOnEphemeralPort, startUpstream } from './http';
import { startServices, upstreamCounts, type Services } from './services';

const LIST_DEFAULTS = { first: 40, offset: 0, sort: null, dateStart: null, dateEnd: null };

/** The GraphQL service's answer to `query` as it sent it, byte for byte. */
async function graphqlText(graphqlUrl: string, query: string, variables: Record<string, unknown>) {
  const response = await fetch(graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return response.text();
}

describe('isDataAlone', () => {
  it.each([
    ['data alone', '{"data":{"asns":{"totalCount":1}}}', true],
    ['a name holding "errors" in quotes, escaped', '{"data":{"asn":{"asnName":"say \\"errors\\""}}}', true],
    ['errors beside the data', '{"data":{"asn":null},"errors":[{"message":"no"}]}', false],
    ['errors before the data', '{"errors":[{"message":"no"}],"data":{"asn":null}}', false],
    ['extensions beside the data', '{"data":{"asn":null},"extensions":{"cost":3}}', false],
    ['null data', '{"data":null}', false],
    ['a string value "errors" (read, to be sure)', '{"data":{"asn":{"asnName":"errors"}}}', false],
    ['a body spaced out', '{ "data": { "asn": null } }', false],
    ['not an object', '[{"data":{}}]', false],
  ])('%s', (_label, text, expected) => {
    expect(isDataAlone(Buffer.from(text))).toBe(expected);
  });
});

describe('list pages answered with the GraphQL service bytes', () => {
  let services: Services;

  beforeAll(async () => {
    services = await startServices();
  }, 180000);

  afterAll(async () => {
    await services?.close();
  });

  it('answers a page of VERBATIM_FROM_PAGE_SIZE rows or more with the very bytes the GraphQL service answered', async () => {
    const pages: [string, string, Record<string, unknown>][] = [
      ['/restful/asns', queries.ASNS_QUERY, LIST_DEFAULTS],
      [
        `/restful/asns?first=${VERBATIM_FROM_PAGE_SIZE}&offset=2&sort=-cone.numberAsns`,
        queries.ASNS_QUERY,
        { ...LIST_DEFAULTS, first: VERBATIM_FROM_PAGE_SIZE, offset: 2, sort: '-cone.numberAsns' },
      ],
      ['/restful/asnLinks?first=100', queries.ASN_LINKS_QUERY, { ...LIST_DEFAULTS, first: 100 }],
      ['/restful/organizations?first=50', queries.ORGANIZATIONS_QUERY, { ...LIST_DEFAULTS, first: 50 }],
    ];
    for (const [rest, query, variables] of pages) {
      const expected = await graphqlText(services.graphqlUrl, query, variables);
      const response = await fetch(`${services.restBase}${rest}`);
      expect(`${rest} -> ${response.status} ${response.headers.get('content-type')}`).toBe(
        `${rest} -> 200 application/json; charset=utf-8`,
      );
      expect(await response.text()).toBe(expected);
      // Still tagged and cacheable as every REST answer.
      expect(response.headers.get('etag')).toMatch(/^"[0-9a-f]{16}"$/);
      expect(response.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
      const revalidated = await fetch(`${services.restBase}${rest}`, {
        headers: { 'if-none-match': response.headers.get('etag') as string },
      });
      expect(revalidated.status).toBe(304);
    }
  });

  it('sends such pages alone, and smaller ones still in one batch', async () => {
    // Requests made at once: the small pages' calls wait for the batch out and leave together.
    const offsets = Array.from({ length: 24 }, (_, offset) => offset);
    const ask = (first: number) =>
      Promise.all(
        offsets.map((offset) => getJson(`${services.restBase}/restful/asns?first=${first}&offset=${offset}`)),
      );

    let before = await upstreamCounts(services.graphqlUrl);
    const large = await ask(VERBATIM_FROM_PAGE_SIZE);
    let after = await upstreamCounts(services.graphqlUrl);
    expect(large.map((answer) => answer.status)).toEqual(offsets.map(() => 200));
    expect(after.operations - before.operations).toBe(offsets.length);
    expect(after.posts - before.posts).toBe(offsets.length);

    before = await upstreamCounts(services.graphqlUrl);
    const small = await ask(VERBATIM_FROM_PAGE_SIZE - 1);
    after = await upstreamCounts(services.graphqlUrl);
    expect(small.map((answer) => answer.status)).toEqual(offsets.map(() => 200));
    expect(after.operations - before.operations).toBe(offsets.length);
    expect(after.posts - before.posts).toBeLessThan(offsets.length);
    // Both forms answer the same pages.
    const largeRows = large.map(
      (answer) => (answer.body as { data: { asns: { edges: unknown[] } } }).data.asns.edges,
    );
    const smallRows = small.map(
      (answer) => (answer.body as { data: { asns: { edges: unknown[] } } }).data.asns.edges,
    );
    expect(smallRows).toEqual(largeRows.map((edges) => edges.slice(0, VERBATIM_FROM_PAGE_SIZE - 1)));
  });

  it('answers a GraphQL error on such a page as before: 400 naming the REST parameter', async () => {
    const answer = await getJson(`${services.restBase}/restful/asnLinks/9999999999?first=100`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ parameter: 'asn0' });
    expect((answer.body as { message: string }).message).toMatch(/^asn0 must be an ASN written as/);
  });
});

describe('list pages from an answer that holds more than data', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()?.();
  });

  async function restAnsweredBy(body: unknown): Promise<string> {
    const upstream = await startUpstream((response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    cleanups.push(() => new Promise((resolve) => upstream.server.close(resolve)));
    const app: FastifyInstance = await buildRestApp({
      basePath: '',
      graphqlUrl: upstream.url,
      graphqlTimeoutMs: 2000,
      logLevel: 'silent',
      maxEventLoopDelayMs: 0,
    });
    cleanups.push(() => app.close());
    return listenOnEphemeralPort(app);
  }

  const page = {
    asns: { totalCount: 1, edges: [{ cursor: 'b2Zmc2V0OjA=', node: { asn: '7', asnName: 'errors' } }] },
  };

  it('reads an answer whose data holds the string "errors", and answers that data', async () => {
    const base = await restAnsweredBy({ data: page });
    const answer = await getJson(`${base}/restful/asns?first=${VERBATIM_FROM_PAGE_SIZE}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: page });
  });

  it('leaves extensions beside the data out of the REST answer', async () => {
    const base = await restAnsweredBy({ data: page, extensions: { cost: 12 } });
    const answer = await getJson(`${base}/restful/asns?first=${VERBATIM_FROM_PAGE_SIZE}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: page });
  });

  it('answers errors beside data with 400 and their messages, naming the parameter', async () => {
    const base = await restAnsweredBy({
      data: { asns: null },
      errors: [{ message: 'first must be at most 10000', extensions: { argument: 'first' } }],
    });
    const answer = await getJson(`${base}/restful/asns?first=${VERBATIM_FROM_PAGE_SIZE}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ parameter: 'first', message: 'first must be at most 10000' });
  });
});
