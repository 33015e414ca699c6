// On the service's SQLite handle (statement cache, readRows) a point lookup `asn(asn:)` is answered without waiting
// once the request's data version and its months are known: graphql-js' executeSync, which fails on any promise a
// resolver returns, answers it, with the same data the loaders give. Elsewhere it waits, as before.
import { executeSync, graphql, parse } from 'graphql';
import { openDatabase } from '@asrank/db';
import { createContext, createSchema, createStoreFacts, type AsrankContext } from '@asrank/schema';
import { withStatementCache } from '../src/statement-cache';
import { dataVersionReader } from '../src/data-version';
import { sqliteWithSample, type LoadedDatabase } from './helpers';

const POINT_LOOKUP = parse(`query PointLookup($asn: String!, $date: String) {
  asn(asn: $asn, date: $date) { asn asnName rank organization { orgId orgName rank } cone { numberAsns } asnDegree { total } }
}`);

describe('point lookup without waiting on SQLite', () => {
  let store: LoadedDatabase;
  const schema = createSchema();

  beforeAll(async () => {
    store = await sqliteWithSample();
  }, 120_000);
  afterAll(async () => {
    await store?.dispose();
  });

  /** The service's handle and facts, and a context maker as the GraphQL plugin makes them. */
  function service() {
    const handle = withStatementCache(openDatabase(store.url, { readonly: true }));
    const facts = createStoreFacts(handle, dataVersionReader(handle));
    return {
      handle,
      facts,
      context: (dataVersion?: string): AsrankContext => createContext(handle, { facts, dataVersion }),
    };
  }

  /** Some ASNs of the latest month, with and without an organization, and one no month has. */
  async function someAsns(): Promise<string[]> {
    const rows = await store.reader.db
      .selectFrom('asns')
      .select(['asn', 'org_id'])
      .where('date', '=', [...store.dates].sort().at(-1)!)
      .orderBy('asn')
      .execute();
    const withOrganization = rows.filter((row) => row.org_id !== null).slice(0, 3);
    const without = rows.filter((row) => row.org_id === null).slice(0, 1);
    return [...withOrganization, ...without].map((row) => String(row.asn)).concat(['4294967294']);
  }

  it('answers at once with the data the loaders give, for the latest month and a named one', async () => {
    const { handle, facts, context } = service();
    try {
      const version = await facts.dataVersion();
      // The first request of a version waits while the months are read; later ones need not.
      await context(version).availableDates();
      const oldest = [...store.dates].sort()[0]!;
      for (const asn of await someAsns()) {
        for (const date of [undefined, oldest]) {
          const variableValues = { asn, date };
          const now = executeSync({
            schema,
            document: POINT_LOOKUP,
            contextValue: context(version),
            variableValues,
          });
          expect(now.errors).toBeUndefined();
          // Without the version in hand the context waits for it: the loaders' answer.
          const waited = await graphql({
            schema,
            source: POINT_LOOKUP.loc!.source.body,
            contextValue: context(),
            variableValues,
          });
          expect(waited.errors).toBeUndefined();
          expect(now.data).toEqual(waited.data);
        }
      }
      const known = executeSync({
        schema,
        document: POINT_LOOKUP,
        contextValue: context(version),
        variableValues: { asn: (await someAsns())[0]! },
      });
      expect((known.data as { asn: { organization: unknown } | null }).asn?.organization).not.toBeNull();
    } finally {
      await handle.close();
    }
  });

  it('waits when the months are not known yet, and reports bad arguments as before', async () => {
    const { handle, facts, context } = service();
    try {
      const version = await facts.dataVersion();
      const [asn] = await someAsns();
      // The months of this version were never read in this process: the lookup must wait for them.
      expect(() =>
        executeSync({
          schema,
          document: POINT_LOOKUP,
          contextValue: context(version),
          variableValues: { asn },
        }),
      ).toThrow(/synchronously/);
      const badAsn = executeSync({
        schema,
        document: POINT_LOOKUP,
        contextValue: context(version),
        variableValues: { asn: 'AS12x' },
      });
      expect(badAsn.errors?.[0]?.message).toMatch(/asn/);
      const badDate = executeSync({
        schema,
        document: POINT_LOOKUP,
        contextValue: context(version),
        variableValues: { asn, date: '2017-13-45' },
      });
      expect(badDate.errors?.[0]?.message).toMatch(/date/);
    } finally {
      await handle.close();
    }
  });

  it('is never taken without a synchronous reader: asnNow leaves the lookup to the loaders', async () => {
    const handle = openDatabase(store.url, { readonly: true });
    try {
      const context = createContext(handle, { dataVersion: '1' });
      expect(context.asnNow(null, undefined, store.dates[0]!, 1)).toBeUndefined();
    } finally {
      await handle.close();
    }
  });
});
