// patches/mercurius@16.10.1.patch (with graphql-jit's patch, which gives a compiled query its operation name and
// variablesAreValid):
// - a document of several operations, once Mercurius has compiled one of them, answered every other operation of the
//   same text with the compiled one's data; each request now gets the operation it names;
// - a GET naming an operation the document lacks (or none, in a document of several) crashed with a TypeError (a
//   500); it is now answered with graphql-js's message, as the same POST is;
// - variables a compiled query accepts are no longer coerced by graphql-js as well (the compiled query coerces them
//   itself); variables it refuses still get graphql-js's 400 and messages;
// - preExecution hooks marked to run at once (the service's cost check) are called without the async hook runner;
// - the GraphQL routes carry the CSRF check's onRequest hook only where CSRF prevention is on.
import Fastify from 'fastify';
import mercurius from 'mercurius';
import {
  buildSchema,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  parse,
  type GraphQLError,
  type OperationDefinitionNode,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { graphql, graphqlData, graphqlJsRequestErrors, sqliteWithSample, startService } from './helpers';
import type { LoadedDatabase, RunningService } from './helpers';

/** A schema of one field, `echo(value: <valueType>!)`, answered by `resolve`. */
function echoSchema(valueType: GraphQLScalarType, resolve: (value: string) => string): GraphQLSchema {
  return new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: {
        echo: {
          type: GraphQLString,
          args: { value: { type: new GraphQLNonNull(valueType) } },
          resolve: (_root, args: { value: string }) => resolve(args.value),
        },
      },
    }),
  });
}

describe('Mercurius as patched, through the service', () => {
  let store: LoadedDatabase;
  let service: RunningService;
  let asns: string[];

  beforeAll(async () => {
    store = await sqliteWithSample();
    // Compiled from the second request of a text on (the default is the first; either shows the same).
    service = await startService(store.url, { GRAPHQL_JIT_AFTER: '1' });
    const page = await graphqlData<{ asns: { edges: { node: { asn: string } }[] } }>(
      service.baseUrl,
      '{ asns(first: 3, sort: "rank") { edges { node { asn } } } }',
    );
    asns = page.asns.edges.map((edge) => edge.node.asn);
  }, 120_000);

  afterAll(async () => {
    await service?.close();
    await store?.dispose();
  });

  const twoOperations =
    'query One($asn: String!) { asn(asn: $asn) { asn rank } } query Two { asns(first: 2, sort: "rank") { totalCount edges { node { asn } } } }';

  it.each(['POST', 'GET'] as const)(
    'answers the operation a %s names after another operation of the same text was compiled',
    async (method) => {
      const text = `${twoOperations} # ${method}`;
      const expectedOne = await graphqlData(
        service.baseUrl,
        'query ($asn: String!) { asn(asn: $asn) { asn rank } }',
        {
          variables: { asn: asns[0] },
        },
      );
      const expectedTwo = await graphqlData(
        service.baseUrl,
        '{ asns(first: 2, sort: "rank") { totalCount edges { node { asn } } } }',
      );
      expect(expectedOne).not.toEqual(expectedTwo);
      // Enough requests for One that Mercurius compiles it (and runs the compiled query).
      for (let round = 0; round < 4; round += 1) {
        const one = await graphql(service.baseUrl, text, {
          method,
          operationName: 'One',
          variables: { asn: asns[0]! },
        });
        expect(one).toEqual({ status: 200, body: { data: expectedOne } });
      }
      const two = await graphql(service.baseUrl, text, { method, operationName: 'Two' });
      expect(two).toEqual({ status: 200, body: { data: expectedTwo } });
      // And One again: still its own answer.
      const again = await graphql(service.baseUrl, text, {
        method,
        operationName: 'One',
        variables: { asn: asns[1]! },
      });
      expect(again.body.data).toEqual(
        await graphqlData(service.baseUrl, 'query ($asn: String!) { asn(asn: $asn) { asn rank } }', {
          variables: { asn: asns[1] },
        }),
      );
    },
  );

  it.each([
    ['an operation name the document lacks', 'Nope'],
    ['no operation name in a document of several', undefined],
  ])('answers a GET with %s as the POST is answered, not with a 500', async (_label, operationName) => {
    const text = `${twoOperations} # ${operationName ?? 'unnamed'}`;
    const variables = { asn: asns[0]! };
    const expected = graphqlJsRequestErrors(text, variables, operationName);
    expect(expected).toHaveLength(1);
    for (let round = 0; round < 3; round += 1) {
      const viaGet = await graphql(service.baseUrl, text, { method: 'GET', operationName, variables });
      const viaPost = await graphql(service.baseUrl, text, { method: 'POST', operationName, variables });
      expect(viaGet.status).toBe(400);
      expect(viaGet.body.errors?.map((error) => error.message)).toEqual(expected);
      expect(viaPost).toEqual(viaGet);
    }
  });

  const typed =
    'query Typed($asn: String!, $asns: [String!], $first: Int, $withRank: Boolean!) { asn(asn: $asn) { asn rank @include(if: $withRank) } asns(asns: $asns, first: $first) { totalCount } }';

  it.each([
    ['a missing non-null variable', { asns: ['1'], withRank: true }],
    ['null for a non-null variable', { asn: null, withRank: true }],
    ['a number for a String', { asn: 5, withRank: true }],
    ['a list for a String', { asn: ['5'], withRank: true }],
    ['null inside a list of non-null items', { asn: '1', asns: ['1', null], withRank: true }],
    ['a fractional Int', { asn: '1', first: 2.5, withRank: true }],
    ['an Int beyond 32 bits', { asn: '1', first: 2 ** 31, withRank: true }],
    ['a string for a Boolean', { asn: '1', withRank: 'true' }],
    ['several faults at once', { asn: 7, asns: [null], first: 'x' }],
  ])(
    'refuses %s with graphql-js messages before, while and after the query is compiled',
    async (label, bad) => {
      const text = `${typed} # ${label}`;
      const good = { asn: asns[0], asns: [asns[1]], first: 2, withRank: true };
      const expected = graphqlJsRequestErrors(text, bad);
      expect(expected.length).toBeGreaterThan(0);
      const refuse = async () => {
        const refused = await graphql(service.baseUrl, text, { variables: bad });
        expect(refused.body.errors?.map((error) => error.message)).toEqual(expected);
        // A refused request is 400 with one error or several (Mercurius alone answers several with 200).
        expect(refused.status).toBe(400);
        expect(refused.body.data).toBeNull();
      };
      // The first request parses the text; the second compiles it (and was let through unchecked before the patch);
      // from the third on the compiled query answers. Good answers in between come from the result cache or the query.
      await refuse();
      await refuse();
      const answer = await graphql(service.baseUrl, text, { variables: good });
      expect(answer.status).toBe(200);
      for (let round = 0; round < 2; round += 1) {
        await refuse();
        expect(
          await graphql(service.baseUrl, text, { variables: { ...good, first: 3 + round } }),
        ).toMatchObject({
          status: 200,
        });
      }
    },
  );
});

describe("graphql-jit's variable check agrees with graphql-js on this schema's argument types", () => {
  const types = [
    'String',
    'String!',
    'Int',
    'Int!',
    'Float',
    'Boolean!',
    'ID',
    '[String!]',
    '[String!]!',
    '[Int]',
  ];
  const values: unknown[] = [
    undefined,
    null,
    '',
    'a',
    '5',
    0,
    -0,
    5,
    2147483647,
    2147483648,
    -2147483649,
    1.5,
    1e300,
    true,
    [],
    ['a'],
    [null],
    ['a', null],
    [1, 2],
    [1.5],
    [['a']],
    {},
    { a: 1 },
  ];
  const probe = buildSchema(
    'type Query { f(s: String, i: Int, fl: Float, b: Boolean, id: ID, ls: [String!], li: [Int]): String }',
  );

  it.each(types)('accepts exactly what graphql-js accepts for $v: %s, coerced alike', (type) => {
    const document = parse(`query Q($v: ${type}) { f }`);
    const operation = document.definitions[0] as OperationDefinitionNode;
    const compiled = compileQuery(probe, document, 'Q');
    if (!isCompiledQuery(compiled)) throw new Error(`not compiled: ${JSON.stringify(compiled)}`);
    expect(compiled.operationName).toBe('Q');
    let refused = 0;
    for (const value of values) {
      const inputs = value === undefined ? {} : { v: value };
      const byGraphqlJs = getVariableValues(probe, operation.variableDefinitions ?? [], inputs);
      expect([value, compiled.variablesAreValid(inputs)]).toEqual([value, byGraphqlJs.errors === undefined]);
      if (byGraphqlJs.errors) refused += 1;
    }
    // Each type refuses some of the values and accepts others: the comparison covers both answers.
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThan(values.length);
  });
});

describe('Mercurius as patched, with a scalar that tells who parsed it', () => {
  /** Who parsed each value: graphql-js's coercion (coerceInputValue) or graphql-jit's compiled parser. */
  const parsedBy: string[] = [];
  const Tagged = new GraphQLScalarType({
    name: 'Tagged',
    parseValue(value) {
      if (typeof value !== 'string') throw new TypeError('Tagged must be a string');
      parsedBy.push(new Error().stack?.includes('coerceInputValue') ? 'graphql-js' : 'graphql-jit');
      return value;
    },
    serialize: (value) => value,
  });
  const schema = echoSchema(Tagged, (value) => value);
  const query = 'query Echo($value: Tagged!) { echo(value: $value) }';
  const app = Fastify();

  beforeAll(async () => {
    await app.register(mercurius, { schema, jit: 1 });
    await app.ready();
  });

  afterAll(() => app.close());

  const echo = (value: unknown) =>
    app.inject({ method: 'POST', url: '/graphql', payload: { query, variables: { value } } });

  it('leaves accepted variables of a compiled query to graphql-jit alone, and refused ones to graphql-js', async () => {
    for (const value of ['a', 'b', 'c'])
      expect((await echo(value)).json()).toEqual({ data: { echo: value } });
    parsedBy.length = 0;
    for (const value of ['d', 'e', 'f'])
      expect((await echo(value)).json()).toEqual({ data: { echo: value } });
    // Compiled: each value is parsed by graphql-jit twice (its check, then its query), never by graphql-js.
    expect(parsedBy).toEqual(Array(6).fill('graphql-jit'));
    const refused = await echo(5);
    const operation = parse(query).definitions[0] as OperationDefinitionNode;
    const expected = getVariableValues(schema, operation.variableDefinitions ?? [], { value: 5 }).errors;
    expect(expected).toHaveLength(1);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors.map((error: GraphQLError) => error.message)).toEqual([
      expected![0]!.message,
    ]);
  });
});

describe('Mercurius as patched, with preExecution hooks marked to run at once', () => {
  const RUNS_AT_ONCE = Symbol.for('mercurius.preExecution.runsAtOnce');
  /** Per request: whether a microtask queued by the hooks had run when the resolver ran. */
  const seen: { hookRan: boolean; microtaskBeforeResolver: boolean }[] = [];
  let pending: { hookRan: boolean; microtaskBeforeResolver: boolean } | undefined;
  const schema = echoSchema(GraphQLString, (value) => {
    // A copy: the microtask may still change the note afterwards.
    if (pending) seen.push({ ...pending });
    pending = undefined;
    return value;
  });
  /** A hook that finishes at once: it notes that it ran, and refuses the value "refuse" as the cost check does. */
  const noting = (_schema: unknown, _document: unknown, _context: unknown, variables: unknown) => {
    const note = { hookRan: true, microtaskBeforeResolver: false };
    pending = note;
    queueMicrotask(() => {
      note.microtaskBeforeResolver = true;
    });
    if ((variables as { value?: unknown } | undefined)?.value === 'refuse') {
      const refusal = Object.assign(new Error('refused by the hook'), { message: 'refused by the hook' });
      throw Object.assign(new Error('GraphQL query refused'), { statusCode: 400, errors: [refusal] });
    }
  };

  async function appWith(hooks: ((...args: unknown[]) => unknown)[]) {
    const app = Fastify();
    await app.register(mercurius, { schema, jit: 1 });
    for (const hook of hooks) app.graphql.addHook('preExecution', hook as never);
    await app.ready();
    return app;
  }
  const echo = (app: Awaited<ReturnType<typeof appWith>>, value: string) =>
    app.inject({
      method: 'POST',
      url: '/graphql',
      payload: { query: 'query Echo($value: String!) { echo(value: $value) }', variables: { value } },
    });

  it('runs marked hooks without the async runner: the resolver runs before any microtask they queued', async () => {
    const app = await appWith([Object.assign(noting, { [RUNS_AT_ONCE]: true })]);
    seen.length = 0;
    for (const value of ['a', 'b'])
      expect((await echo(app, value)).json()).toEqual({ data: { echo: value } });
    expect(seen).toEqual([
      { hookRan: true, microtaskBeforeResolver: false },
      { hookRan: true, microtaskBeforeResolver: false },
    ]);
    const refused = await echo(app, 'refuse');
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors.map((error: GraphQLError) => error.message)).toEqual([
      'refused by the hook',
    ]);
    await app.close();
  });

  it('runs every hook through the runner when one is not marked, and keeps its modifications', async () => {
    const unmarked = (...args: unknown[]) => noting(...(args as Parameters<typeof noting>));
    const replacing = async () => ({ variables: { value: 'replaced' } });
    const app = await appWith([unmarked, replacing]);
    seen.length = 0;
    expect((await echo(app, 'a')).json()).toEqual({ data: { echo: 'replaced' } });
    // Awaited by the runner: the microtask the hook queued ran before the resolver.
    expect(seen).toEqual([{ hookRan: true, microtaskBeforeResolver: true }]);
    expect((await echo(app, 'refuse')).statusCode).toBe(400);
    await app.close();
  });
});

describe("Mercurius as patched: the CSRF check's hook only where CSRF prevention is on", () => {
  const schema = buildSchema('type Query { hello: String }');
  async function appWith(csrfPrevention: boolean) {
    const app = Fastify();
    const onRequestHooks: Record<string, number> = {};
    app.addHook('onRoute', (route) => {
      const hooks = route.onRequest;
      onRequestHooks[`${String(route.method)} ${route.url}`] =
        hooks === undefined ? 0 : Array.isArray(hooks) ? hooks.length : 1;
    });
    await app.register(mercurius, { schema, resolvers: { hello: () => 'world' }, csrfPrevention });
    await app.ready();
    return { app, onRequestHooks };
  }
  // Not a preflighted request: no JSON content type and none of the headers CSRF prevention asks for.
  const simpleGet = { method: 'GET' as const, url: '/graphql?query=%7Bhello%7D' };

  it('adds no onRequest hook to the GraphQL routes when CSRF prevention is off, and answers', async () => {
    const { app, onRequestHooks } = await appWith(false);
    expect(onRequestHooks).toMatchObject({ 'GET /graphql': 0, 'POST /graphql': 0 });
    expect((await app.inject(simpleGet)).json()).toEqual({ data: { hello: 'world' } });
    await app.close();
  });

  it('keeps the hook, and refuses a request that could be forged, when CSRF prevention is on', async () => {
    const { app, onRequestHooks } = await appWith(true);
    expect(onRequestHooks).toMatchObject({ 'GET /graphql': 1, 'POST /graphql': 1 });
    expect((await app.inject(simpleGet)).statusCode).toBe(400);
    const preflighted = await app.inject({
      ...simpleGet,
      headers: { 'mercurius-require-preflight': 'true' },
    });
    expect(preflighted.json()).toEqual({ data: { hello: 'world' } });
    await app.close();
  });
});
