// The scalars' fast paths must answer exactly as graphql-js's serializers do, for every value a resolver might
// return, errors included: through Mercurius' graphql-jit with and without them, the answers are the same.
import Fastify from 'fastify';
import mercurius from 'mercurius';
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLString,
  type GraphQLScalarType,
} from 'graphql';
import { leafSerializers } from '../src/leaf-serializers';

const SCALARS: GraphQLScalarType[] = [GraphQLString, GraphQLID, GraphQLInt, GraphQLFloat, GraphQLBoolean];

// Values of the right type, of a convertible type, and of none.
const VALUES: Record<string, unknown> = {
  text: 'AS3356',
  empty: '',
  numeric: '42',
  integer: 7,
  negative: -3,
  negativeZero: -0,
  fraction: 2.5,
  int32Max: 2147483647,
  int32Over: 2147483648,
  int32Min: -2147483648,
  int32Under: -2147483649,
  notANumber: Number.NaN,
  infinite: Number.POSITIVE_INFINITY,
  yes: true,
  no: false,
  withValueOf: { valueOf: () => 12 },
  withToJSON: { toJSON: () => 'json' },
  plainObject: { a: 1 },
  list: [1, 2],
  big: BigInt(5),
};

function outcome(
  serialize: (value: unknown) => unknown,
  value: unknown,
): { value?: unknown; error?: string } {
  try {
    return { value: serialize(value) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('leaf serializers', () => {
  it.each(SCALARS.map((scalar) => [scalar.name, scalar] as const))(
    '%s answers as graphql-js does for every kind of value',
    (name, scalar) => {
      const fast = leafSerializers[name];
      expect(fast).toBeDefined();
      for (const [label, value] of Object.entries(VALUES)) {
        const expected = outcome((input) => scalar.serialize(input), value);
        const actual = outcome(fast!, value);
        expect({ label, ...actual }).toEqual({ label, ...expected });
        if ('value' in expected) expect(Object.is(actual.value, expected.value)).toBe(true);
      }
    },
  );

  it('gives the same answers through Mercurius and graphql-jit as without them', async () => {
    const fields = Object.keys(VALUES).filter((label) => label !== 'big');
    const schema = `type Values { ${fields.map((label) => `${label}S: String ${label}I: Int ${label}F: Float ${label}B: Boolean ${label}D: ID`).join(' ')} }
      type Query { values: [Values] }`;
    const row = Object.fromEntries(
      fields.flatMap((label) => ['S', 'I', 'F', 'B', 'D'].map((suffix) => [label + suffix, VALUES[label]])),
    );
    const query = `{ values { ${Object.keys(row).join(' ')} } }`;
    const answers: unknown[] = [];
    for (const compilerOptions of [undefined, { customSerializers: leafSerializers }]) {
      const app = Fastify();
      await app.register(mercurius, {
        schema,
        resolvers: { Query: { values: () => [row, row] } },
        jit: 1,
        ...(compilerOptions ? { compilerOptions } : {}),
      });
      // The first request counts the query; the second runs graphql-jit's compiled query.
      await app.inject({ method: 'POST', url: '/graphql', payload: { query } });
      const answer = await app.inject({ method: 'POST', url: '/graphql', payload: { query } });
      answers.push(answer.json());
      await app.close();
    }
    const [plain, fast] = answers as { data: { values: Record<string, unknown>[] }; errors: unknown[] }[];
    expect(plain!.errors.length).toBeGreaterThan(0);
    expect(plain!.data.values[1]!.integerS).toBe('7');
    expect(fast).toEqual(plain);
  });
});
