// The REST service's calls to the GraphQL service leave in batches: the calls of one event-loop turn travel as
// one POST of a JSON array, each settled as it would be alone. Against the real GraphQL service on the sample
// data; its own /metrics counts the POSTs it received and the operations it ran.
import { ASN_QUERY } from '../src/graphql/queries';
import { createGraphqlClient, GraphqlResponseError, type GraphqlClient } from '../src/plugins/graphql-client';
import { getJson, postGraphql } from './http';
import { startServices, upstreamCounts, type Services } from './services';

interface AsnAnswer {
  asn: { asn: string; asnName: string } | null;
}

describe('batched calls to the GraphQL service', () => {
  let services: Services;
  let asns: string[];
  const clients: GraphqlClient[] = [];

  function client(maxBatch: number): GraphqlClient {
    const created = createGraphqlClient({
      url: services.graphqlUrl,
      connectTimeoutMs: 2000,
      timeoutMs: 10000,
      connections: 4,
      maxBatch,
    });
    clients.push(created);
    return created;
  }

  const lookup = (graphql: GraphqlClient, asn: string, requestId = 'batching-test') =>
    graphql.execute<AsnAnswer>({ query: ASN_QUERY, variables: { asn }, requestId });

  beforeAll(async () => {
    services = await startServices();
    const ranked = (await postGraphql(
      services.graphqlUrl,
      '{ asns(first: 12, sort: "rank") { edges { node { asn } } } }',
    )) as {
      data: { asns: { edges: { node: { asn: string } }[] } };
    };
    asns = ranked.data.asns.edges.map((edge) => edge.node.asn);
    if (asns.length < 12) throw new Error('the sample needs at least 12 ASNs');
  }, 180000);

  afterAll(async () => {
    await Promise.all(clients.map((created) => created.close()));
    await services?.close();
  });

  it('sends the calls of one turn as one POST and settles each with its own answer', async () => {
    const alone = client(1);
    const expected = await Promise.all(asns.map((asn) => lookup(alone, asn)));
    const batching = client(16);
    const before = await upstreamCounts(services.graphqlUrl);
    const answers = await Promise.all(asns.map((asn) => lookup(batching, asn)));
    const after = await upstreamCounts(services.graphqlUrl);
    expect(answers).toEqual(expected);
    expect(answers.map((answer) => answer.data.asn?.asn)).toEqual(asns);
    expect(after.operations - before.operations).toBe(asns.length);
    expect(after.posts - before.posts).toBe(1);
  });

  it('splits a turn of calls into batches of at most maxBatch', async () => {
    const batching = client(5);
    const before = await upstreamCounts(services.graphqlUrl);
    const answers = await Promise.all(asns.map((asn) => lookup(batching, asn)));
    const after = await upstreamCounts(services.graphqlUrl);
    expect(answers.map((answer) => answer.data.asn?.asn)).toEqual(asns);
    expect(after.posts - before.posts).toBe(Math.ceil(asns.length / 5));
  });

  it('queues the calls made while a batch is out and sends them together when it comes back', async () => {
    const batching = client(16);
    const before = await upstreamCounts(services.graphqlUrl);
    const first = lookup(batching, asns[0]!);
    // The next turn: the first call is out (alone), so these wait for it and leave as one batch.
    await new Promise((resolve) => setImmediate(resolve));
    const later = asns.slice(1).map((asn) => lookup(batching, asn));
    const answers = await Promise.all([first, ...later]);
    const after = await upstreamCounts(services.graphqlUrl);
    expect(answers.map((answer) => answer.data.asn?.asn)).toEqual(asns);
    expect(after.posts - before.posts).toBe(2);
  });

  it("fails only the call whose operation has errors, with that operation's error", async () => {
    const batching = client(16);
    const settled = await Promise.allSettled([
      lookup(batching, asns[0]!),
      lookup(batching, 'x'),
      lookup(batching, asns[1]!),
    ]);
    expect(settled.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const refused = (settled[1] as PromiseRejectedResult).reason as GraphqlResponseError;
    expect(refused).toBeInstanceOf(GraphqlResponseError);
    expect(refused.argument).toBe('asn');
    expect(refused.messages[0]).toMatch(/asn must be an ASN written as decimal digits/);
  });

  it('sends a batch the service refuses as a whole again call by call, so the other calls are answered', async () => {
    const batching = client(16);
    const before = await upstreamCounts(services.graphqlUrl);
    // A NUL in a variable makes the GraphQL service refuse the whole batch (input guards).
    const settled = await Promise.allSettled([
      lookup(batching, asns[0]!),
      lookup(batching, 'a\u0000b'),
      lookup(batching, asns[1]!),
    ]);
    const after = await upstreamCounts(services.graphqlUrl);
    expect(settled.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[0] as PromiseFulfilledResult<{ data: AsnAnswer }>).value.data.asn?.asn).toBe(asns[0]);
    const refused = (settled[1] as PromiseRejectedResult).reason as GraphqlResponseError;
    expect(refused.messages[0]).toBe('variable $asn must not contain NUL (\\u0000) characters');
    expect(after.posts - before.posts).toBe(4);
  });

  it('answers concurrent REST requests each with its own record', async () => {
    const expected = await Promise.all(
      asns.map((asn) => getJson(`${services.restBase}/restful/asns/${asn}`)),
    );
    const concurrent = await Promise.all(
      asns.map((asn) => getJson(`${services.restBase}/restful/asns/${asn}`)),
    );
    expect(concurrent.map((answer) => answer.status)).toEqual(asns.map(() => 200));
    expect(concurrent.map((answer) => answer.body)).toEqual(expected.map((answer) => answer.body));
    expect(concurrent.map((answer) => (answer.body as { data: AsnAnswer }).data.asn?.asn)).toEqual(asns);
  });
});

describe('batched calls to a GraphQL service that takes no batches', () => {
  let services: Services;
  let graphql: GraphqlClient;

  beforeAll(async () => {
    services = await startServices({ graphqlEnv: { GRAPHQL_MAX_BATCH: 1 } });
    graphql = createGraphqlClient({
      url: services.graphqlUrl,
      connectTimeoutMs: 2000,
      timeoutMs: 10000,
      connections: 4,
      maxBatch: 16,
    });
  }, 180000);

  afterAll(async () => {
    await graphql?.close();
    await services?.close();
  });

  it('answers every call, each sent again alone', async () => {
    const answers = await Promise.all(
      ['1', '2', '3'].map((asn) =>
        graphql.execute<AsnAnswer>({ query: ASN_QUERY, variables: { asn }, requestId: `t-${asn}` }),
      ),
    );
    expect(answers).toHaveLength(3);
    for (const answer of answers) expect(answer.data).toHaveProperty('asn');
    const viaRest = await getJson(`${services.restBase}/restful/asns/1`);
    expect(viaRest.status).toBe(200);
  });
});
