// End to end through the committed deploy/nginx.conf: Debian's nginx on a loopback port in front of the
// built GraphQL and REST services (separate processes, BASE_PATH=/v2, the sample loaded into SQLite), and
// GraphQL, GraphiQL page + assets, REST and probe requests sent through it.
import {
  nginxBinary,
  type ProxiedStack,
  type RunningNginx,
  type ServiceProcess,
  startProxiedStack,
} from '../src';

const nginx = nginxBinary();
if (!nginx)
  console.warn('SKIP nginx.test.ts: nginx is not installed (apt-get install nginx, or set NGINX_BIN)');
const describeWithNginx = nginx ? describe : describe.skip;

describeWithNginx('nginx in front of both services at /v2', () => {
  let graphql: ServiceProcess;
  let rest: ServiceProcess;
  let proxy: RunningNginx;
  let dates: string[];

  let stack: ProxiedStack;

  beforeAll(async () => {
    stack = await startProxiedStack(nginx as string, { name: 'nginx', serviceEnv: { LOG_LEVEL: 'info' } });
    ({ dates, graphql, rest, proxy } = stack);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  async function postGraphql(query: string, variables: Record<string, unknown> = {}) {
    const response = await fetch(`${proxy.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return {
      status: response.status,
      headers: response.headers,
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read arbitrary result shapes
      body: (await response.json()) as { data?: any; errors?: { message: string }[] },
    };
  }

  it('answers GraphQL by POST and GET with the latest loaded month', async () => {
    const posted = await postGraphql('{ datasets(first: 10) { totalCount edges { node { date } } } }');
    expect(posted.status).toBe(200);
    expect(posted.body.errors).toBeUndefined();
    expect(posted.body.data.datasets.totalCount).toBe(dates.length);

    const query = '{ asns(first: 3) { totalCount edges { node { asn rank } } } }';
    const got = await fetch(`${proxy.baseUrl}/graphql?${new URLSearchParams({ query }).toString()}`);
    expect(got.status).toBe(200);
    const body = (await got.json()) as {
      data: { asns: { totalCount: number; edges: { node: { asn: string } }[] } };
    };
    expect(body.data.asns.edges).toHaveLength(3);
    expect(body.data.asns.totalCount).toBeGreaterThan(3);
  });

  it('serves the GraphiQL page and every asset it references', async () => {
    const page = await fetch(`${proxy.baseUrl}/graphiql`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
    expect(assets.length).toBeGreaterThanOrEqual(4);
    for (const asset of assets) {
      expect(asset.startsWith('/v2/graphiql/')).toBe(true);
      const response = await fetch(`${proxy.baseUrl.replace(/\/v2$/, '')}${asset}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/javascript|css/);
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    }
  });

  it('answers REST lists, records and the short /v2/asns/:asn form with the same data GraphQL gives', async () => {
    const graphqlAnswer = await postGraphql(
      '{ asns(first: 2, sort: "rank") { edges { node { asn asnName rank } } } }',
    );
    const expected = graphqlAnswer.body.data.asns.edges.map((edge: { node: unknown }) => edge.node);

    const list = await fetch(`${proxy.baseUrl}/restful/asns?first=2&sort=rank`);
    expect(list.status).toBe(200);
    const listBody = (await list.json()) as {
      data: { asns: { edges: { node: { asn: string; asnName: string; rank: number } }[] } };
    };
    const listed = listBody.data.asns.edges.map(({ node: { asn, asnName, rank } }) => ({
      asn,
      asnName,
      rank,
    }));
    expect(listed).toEqual(expected);

    const asn = expected[0].asn as string;
    for (const url of [`${proxy.baseUrl}/restful/asns/${asn}`, `${proxy.baseUrl}/asns/${asn}`]) {
      const record = await fetch(url);
      expect(record.status).toBe(200);
      expect(((await record.json()) as { data: { asn: { asn: string } } }).data.asn.asn).toBe(asn);
    }

    const datasets = await fetch(`${proxy.baseUrl}/restful/datasets`);
    const datasetBody = (await datasets.json()) as { data: { date: string }[] };
    expect(datasetBody.data.map((dataset) => dataset.date)).toEqual([...dates].sort().reverse());
  });

  it('forwards nginx request ids to REST, which echoes them, and revalidates with ETag through the proxy', async () => {
    const first = await fetch(`${proxy.baseUrl}/restful/asns?first=5`);
    expect(first.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    await first.text();
    const second = await fetch(`${proxy.baseUrl}/restful/asns?first=5`, {
      headers: { 'if-none-match': etag as string },
    });
    expect(second.status).toBe(304);
  });

  it('logs JSON lines carrying the nginx request id in both services, and no GraphQL query text', async () => {
    const response = await fetch(`${proxy.baseUrl}/restful/asns?first=1`);
    const requestId = response.headers.get('x-request-id') as string;
    await response.text();
    const secret = `secretMarker${Date.now()}`;
    const query = `{ asns(name: "${secret}") { totalCount } }`;
    await (await fetch(`${proxy.baseUrl}/graphql?${new URLSearchParams({ query }).toString()}`)).text();
    const logged = (service: ServiceProcess) => service.process.output().includes(`"reqId":"${requestId}"`);
    // Log lines are flushed asynchronously: poll briefly.
    for (let attempt = 0; attempt < 40 && !(logged(graphql) && logged(rest)); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(logged(rest)).toBe(true);
    expect(logged(graphql)).toBe(true);
    for (const line of graphql.process.output().trim().split('\n'))
      expect(() => JSON.parse(line)).not.toThrow();
    expect(graphql.process.output()).not.toContain(secret);
  });

  it('answers JSON 404 outside the published routes and does not publish probes or metrics', async () => {
    for (const url of ['/v2/nowhere', '/metrics', '/healthz', '/v2/../etc/passwd']) {
      const response = await fetch(`${proxy.baseUrl.replace(/\/v2$/, '')}${url}`);
      expect(response.status).toBe(404);
      await response.text();
    }
    const unknownRest = await fetch(`${proxy.baseUrl}/restful/nothing-here`);
    expect(unknownRest.status).toBe(404);
    expect(((await unknownRest.json()) as { message: string }).message).toMatch(/no route GET/);
  });

  it("answers nginx's own refusals in JSON, not HTML", async () => {
    const tooLarge = await fetch(`${proxy.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ __typename } # ${'x'.repeat(2 * 1024 * 1024)}` }),
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await tooLarge.json()).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
  });

  it('keeps introspection on but enforces the depth and cost limits through the proxy', async () => {
    const introspection = await postGraphql('{ __schema { queryType { name } types { name } } }');
    expect(introspection.status).toBe(200);
    expect(introspection.body.data.__schema.queryType.name).toBe('Query');

    let deep = 'asn';
    for (let level = 0; level < 30; level += 1)
      deep = `organization { members { asns(first: 1) { edges { node { ${deep} } } } } }`;
    const tooDeep = await postGraphql(`{ asn(asn: "1") { ${deep} } }`);
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.errors?.[0]?.message).toMatch(/depth|exceeds/i);

    const costly = await postGraphql(
      '{ asns(first: 10000) { edges { node { asnLinks(first: 10000) { edges { node { asn1 { asn } } } } } } } }',
    );
    expect(costly.status).toBe(400);
    expect(costly.body.errors?.[0]?.message).toMatch(/cost/);
  });
});
