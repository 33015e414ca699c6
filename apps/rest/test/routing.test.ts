// Routing, validation and error answers that need no data: the GraphQL service here is an address where
// nothing listens, so a request that passes validation and reaches the forwarding step answers 502.
import type { FastifyInstance } from 'fastify';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '@asrank/domain';
import { buildRestApp } from '../src/app';
import { UNREACHABLE_GRAPHQL_URL, getJson, listenOnEphemeralPort } from './http';

interface ErrorAnswer {
  statusCode: number;
  error: string;
  message: string;
  parameter?: string;
  requestId: string;
}

describe.each([
  ['without BASE_PATH', ''],
  ['with BASE_PATH=/v2', '/v2'],
])('REST routing %s', (_label, basePath) => {
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    app = await buildRestApp({ basePath, graphqlUrl: UNREACHABLE_GRAPHQL_URL, logLevel: 'silent' });
    base = `${await listenOnEphemeralPort(app)}${basePath}`;
  });
  afterAll(() => app.close());

  const forwardedRoutes = [
    '/restful/asns',
    '/restful/asns/',
    '/restful/asns/?first=10',
    '/restful/asns/3356',
    '/restful/asns/3356/',
    '/restful/asns/name/level',
    '/restful/asnLinks',
    '/restful/asnLinks/3356',
    '/restful/organizations',
    '/restful/organizations/LPL-141-ARIN',
    '/restful/datasets',
    '/restful/datasets/',
    '/asns/3356',
    '/orgs/LPL-141-ARIN',
    '/restful/asns?first=0&offset=5&sort=-rank,asn&dateStart=20200101&dateEnd=2020-03-01&populate=1',
  ];

  it.each(forwardedRoutes)(
    '%s passes validation and reaches the GraphQL client (502 while it is down)',
    async (route) => {
      const answer = await getJson(`${base}${route}`);
      expect(answer.status).toBe(502);
      const body = answer.body as ErrorAnswer;
      expect(body.error).toBe('Bad Gateway');
      expect(body.message).toBe('the GraphQL service is unreachable');
    },
  );

  const badRequests: [string, string, RegExp][] = [
    ['/restful/asns/abc', 'asn', /digits only/],
    ['/restful/asns/12a', 'asn', /digits only/],
    ['/asns/-1', 'asn', /digits only/],
    ['/restful/asnLinks/AS3356', 'asn0', /digits only/],
    ['/restful/asns?first=abc', 'first', new RegExp(`0 to ${MAX_PAGE_SIZE}`)],
    [`/restful/asns?first=${MAX_PAGE_SIZE + 1}`, 'first', /must be <= 10000/],
    ['/restful/asns?first=-1', 'first', />= 0/],
    ['/restful/asns?first=1.5', 'first', /integer/],
    ['/restful/organizations?offset=-3', 'offset', />= 0/],
    ['/restful/asns?sort=bogus', 'sort', /allowed keys: asn, asnName, rank/],
    ['/restful/asnLinks?sort=rank', 'sort', /allowed keys: asn0, asn1, numberPaths/],
    ['/restful/organizations?sort=-rank,-rank', 'sort', /more than once/],
    ['/restful/asns?dateStart=2020-13-01', 'dateStart', /dateStart/],
    ['/restful/asns?dateEnd=yesterday', 'dateEnd', /dateEnd/],
    ['/restful/asns/3356?date=2019-02-30', 'date', /date/],
    ['/restful/asns/3356?populate=2', 'populate', /equal to one of the allowed values/],
    ['/orgs/X?populate=yes', 'populate', /decimal digits only \(got "yes"\)/],
    // Written as Number() reads them but not as the guide says: decimal digits only.
    ['/restful/asns?first=Infinity', 'first', /decimal digits only \(got "Infinity"\)/],
    ['/restful/asns?first=-Infinity', 'first', /decimal digits only/],
    ['/restful/asnLinks?offset=Infinity', 'offset', /decimal digits only/],
    ['/restful/asns?first=%20', 'first', /decimal digits only \(got " "\)/],
    ['/restful/organizations?first=0x10', 'first', /decimal digits only/],
    ['/restful/asns?first=1e3', 'first', /decimal digits only/],
    ['/restful/asns/3356?populate=%20', 'populate', /decimal digits only/],
    ['/restful/asns?offset=2147483648', 'offset', /must be <= 2147483647/],
    ['/restful/asns?first=2&first=3', 'first', /given 2 times; give it once/],
    ['/restful/asns/3356?populate=1&populate=0', 'populate', /given 2 times/],
    ['/restful/asns?sort=rank&sort=asn', 'sort', /given 2 times/],
    ['/restful/asns/name', 'name', /missing; the name search is \/restful\/asns\/name\/:name/],
    // A parameter another route takes would answer another month or list than asked.
    [
      '/restful/asns?date=2024-01-01',
      'date',
      /this route does not take it; it takes first, offset, sort, dateStart/,
    ],
    ['/restful/asns/3356?dateStart=2024-01-01', 'dateStart', /does not take it; it takes date, populate$/],
    ['/restful/organizations?name=level', 'name', /does not take it/],
    ['/restful/asns/name/', 'name', /missing/],
  ];

  it.each(badRequests)('%s answers 400 naming %s', async (route, parameter, message) => {
    const answer = await getJson(`${base}${route}`);
    expect(answer.status).toBe(400);
    const body = answer.body as ErrorAnswer;
    expect(body.parameter).toBe(parameter);
    expect(body.message).toContain(parameter);
    expect(body.message).toMatch(message);
    expect(body.message).not.toMatch(/\n\s+at /);
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])(
    '%s on a route answers 405 with Allow: GET, HEAD in the JSON error shape',
    async (method) => {
      const response = await fetch(`${base}/restful/asns/3356?populate=1`, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
      const body = (await response.json()) as ErrorAnswer;
      expect(body).toMatchObject({ statusCode: 405, error: 'Method Not Allowed' });
      expect(body.message).toBe(
        `${method} is not answered here: ${basePath}/restful/asns/3356 answers GET, HEAD`,
      );
      expect(body.requestId).toBe(response.headers.get('x-request-id'));
    },
  );

  it('answers OPTIONS on a route with 204 and Allow, and unknown paths stay 404 for any method', async () => {
    const options = await fetch(`${base}/restful/organizations`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, HEAD');
    expect(await options.text()).toBe('');
    const unknown = await fetch(`${base}/restful/nothing-here`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('allow')).toBeNull();
    await unknown.text();
  });

  it('answers unknown paths with a JSON 404 pointing at the guide', async () => {
    const answer = await getJson(`${base}/restful/nothing-here`);
    expect(answer.status).toBe(404);
    expect((answer.body as ErrorAnswer).message).toContain(`${basePath}/restful/doc`);
  });

  it.each([
    [
      'a path that is not percent-encoding',
      '/restful/asns/%E0%A4%A',
      400,
      'Bad Request',
      /^the path .*\/restful\/asns\/%E0%A4%A is not valid percent-encoding/,
    ],
    [
      'a parameter longer than the router reads',
      `/restful/organizations/${'x'.repeat(1001)}`,
      414,
      'URI Too Long',
      /is longer than this service reads/,
    ],
  ])(
    "%s answers in this service's error shape, with its request id",
    async (_label, route, status, error, message) => {
      const answer = await getJson(`${base}${route}`, { 'x-request-id': 'malformed-path' });
      expect(answer.status).toBe(status);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.headers.get('x-request-id')).toBe('malformed-path');
      const body = answer.body as ErrorAnswer;
      expect(body).toMatchObject({ statusCode: status, error, requestId: 'malformed-path' });
      expect(body.message).toMatch(message);
      expect(body.message.length).toBeLessThan(400);
    },
  );

  it("answers a URL over Node's header limit in this service's error shape, with a request id", async () => {
    const answer = await getJson(`${base}/restful/asns?_=${'a'.repeat(20000)}`);
    expect(answer.status).toBe(431);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const body = answer.body as ErrorAnswer;
    expect(body).toMatchObject({ statusCode: 431, error: 'Request Header Fields Too Large' });
    expect(body.message).toMatch(/over 16 KB/);
    expect(body.requestId).toBe(answer.headers.get('x-request-id'));
  });

  it('ignores a query parameter no route takes, such as a cache buster', async () => {
    // Names an object has by inheritance are not parameters either.
    const answer = await getJson(`${base}/restful/asns/3356?_=1700000000&toString=1&constructor=2`);
    // It passes validation and reaches the GraphQL client, which is down here.
    expect(answer.status).toBe(502);
  });

  it('keeps a caller-supplied x-request-id and generates one otherwise', async () => {
    const kept = await getJson(`${base}/restful/asns/1`, { 'x-request-id': 'trace-42' });
    expect(kept.headers.get('x-request-id')).toBe('trace-42');
    expect((kept.body as ErrorAnswer).requestId).toBe('trace-42');
    const generated = await getJson(`${base}/restful/asns/1`, { 'x-request-id': 'bad id with spaces' });
    const id = generated.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((generated.body as ErrorAnswer).requestId).toBe(id);
  });

  it('documents the default page size in the OpenAPI document', async () => {
    const answer = await getJson(`${base}/restful/doc/json`);
    expect(answer.status).toBe(200);
    const document = answer.body as {
      paths: Record<string, { get: { parameters: { name: string; schema: { default?: unknown } }[] } }>;
    };
    const first = document.paths[`${basePath}/restful/asns`]?.get.parameters.find(
      (parameter) => parameter.name === 'first',
    );
    expect(first?.schema.default).toBe(DEFAULT_PAGE_SIZE);
  });
});
