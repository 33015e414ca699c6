// Record lookups of concurrent requests: on PostgreSQL the lookups of every request handled in one turn run as one
// statement per shape and month, each request still answered with its own records (and errors); on SQLite each
// request keeps its own statements.
import { graphql } from 'graphql';
import { createContext, createSchema } from '../src';
import {
  asnsOfMonth,
  LOAD_TIMEOUT_MS,
  openLoadedStore,
  STORE_KINDS,
  type LoadedStore,
} from './support/store';

jest.setTimeout(LOAD_TIMEOUT_MS);

const POINT_LOOKUP = `query PointLookup($asn: String!, $date: String) {
  asn(asn: $asn, date: $date) { asn asnName rank organization { orgId orgName } }
}`;

describe.each(STORE_KINDS)('record lookups of concurrent requests on %s', (kind) => {
  let store: LoadedStore;
  const schema = createSchema();
  beforeAll(async () => {
    store = await openLoadedStore(kind);
  }, LOAD_TIMEOUT_MS);
  afterAll(() => store?.close());

  /** Runs the point lookups of `asns` as concurrent requests; their answers and the ASN statements they ran. */
  async function lookUpTogether(asns: string[], date?: string) {
    let asnStatements = 0;
    const observeStatement = (_kind: string, table: string) => {
      if (table === 'asns') asnStatements += 1;
    };
    const answers = await Promise.all(
      asns.map((asn) =>
        graphql({
          schema,
          source: POINT_LOOKUP,
          contextValue: createContext(store.handle, { observeStatement }),
          variableValues: { asn, date },
        }),
      ),
    );
    return { answers, asnStatements };
  }

  it('answers each request with its own record, as it is answered alone', async () => {
    const latest = [...store.dates].sort().at(-1)!;
    // Unknown ASNs and a bad argument among them: null and an error for those requests only.
    const asns = [...(await asnsOfMonth(store.handle, latest, 6)), '4294967294', 'AS-bad'];
    const together = await lookUpTogether(asns);
    const alone = await Promise.all(asns.map(async (asn) => (await lookUpTogether([asn])).answers[0]!));
    together.answers.forEach((answer, index) => {
      expect(answer.data).toEqual(alone[index]!.data);
      expect(answer.errors?.map((error) => error.message)).toEqual(
        alone[index]!.errors?.map((error) => error.message),
      );
    });
    expect(together.answers.at(-2)!.data).toEqual({ asn: null });
    expect(together.answers.at(-1)!.errors?.[0]?.message).toMatch(/asn/);
    expect((together.answers[0]!.data as { asn: { asn: string } }).asn.asn).toBe(asns[0]);
  });

  it(
    kind === 'postgres'
      ? 'reads the records of requests handled in one turn with one statement'
      : 'reads each request’s record with a statement of its own',
    async () => {
      const latest = [...store.dates].sort().at(-1)!;
      const asns = await asnsOfMonth(store.handle, latest, 8, 'desc');
      const { answers, asnStatements } = await lookUpTogether(asns, latest);
      for (const answer of answers) expect(answer.errors).toBeUndefined();
      expect(asnStatements).toBe(kind === 'postgres' ? 1 : asns.length);
    },
  );
});
