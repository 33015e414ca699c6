// Countries come from one table read per data version (StoreFacts.countries), not a loader batch per request: the
// answers must be those of the table, the table must not be read again while the data version holds, and a change
// of the data (which changes the version in the same transaction) must be seen by the next request.
import { graphql, type ExecutionResult } from 'graphql';
import { type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs } from 'kysely';
import type { DatabaseHandle } from '@asrank/db';
import { createContext, createSchema, createStoreFacts, type StoreFacts } from '../src';
import { LOAD_TIMEOUT_MS, withLoadedStore, STORE_KINDS, type LoadedStore } from './support/store';

jest.setTimeout(LOAD_TIMEOUT_MS);

const schema = createSchema();

/** Counts the statements that read from the countries table. */
class CountryReads implements KyselyPlugin {
  count = 0;
  transformQuery({ node }: PluginTransformQueryArgs) {
    const from = (node as { from?: { froms?: { table?: { identifier?: { name?: string } } }[] } }).from;
    if (from?.froms?.[0]?.table?.identifier?.name === 'countries') this.count += 1;
    return node;
  }
  async transformResult({ result }: PluginTransformResultArgs) {
    return result;
  }
}

type Country = { iso: string; name: string; population: number | null } | null;
type Answer = {
  asns: { edges: { node: { asn: string; country: Country; organization: { country: Country } | null } }[] };
};

const QUERY = `{ asns(first: 200, sort: "asn") { edges { node { asn country { iso name population }
  organization { country { iso name population } } } } } }`;

describe.each(STORE_KINDS)('countries on %s', (kind) => {
  let store: LoadedStore;
  withLoadedStore(kind, (opened) => (store = opened));

  const run = async (handle: DatabaseHandle, facts: StoreFacts): Promise<ExecutionResult> =>
    graphql({ schema, source: QUERY, contextValue: createContext(handle, { facts }) });

  it('answers every ASN and organization country as the countries table has it', async () => {
    const result = await run(store.handle, createStoreFacts(store.handle));
    expect(result.errors).toBeUndefined();
    const latest = store.dates.at(-1)!;
    const stored = await store.handle.db
      .selectFrom('asns as a')
      .leftJoin('countries as c', 'c.iso', 'a.country_iso')
      .select(['a.asn', 'c.iso', 'c.name', 'c.population'])
      .where('a.date', '=', latest)
      .orderBy('a.asn')
      .limit(200)
      .execute();
    const edges = (result.data as Answer).asns.edges;
    expect(edges.map((edge) => edge.node.country)).toEqual(
      stored.map((row) =>
        row.iso == null
          ? null
          : {
              iso: row.iso,
              name: row.name,
              population: row.population == null ? null : Number(row.population),
            },
      ),
    );
    expect(edges.filter((edge) => edge.node.country !== null).length).toBeGreaterThan(10);
    expect(edges.filter((edge) => edge.node.organization?.country != null).length).toBeGreaterThan(10);
  });

  it('reads the table once per data version, and again after the data changed', async () => {
    const reads = new CountryReads();
    const counted: DatabaseHandle = { ...store.handle, db: store.handle.db.withPlugin(reads) };
    const facts = createStoreFacts(counted);
    const first = await run(counted, facts);
    expect(first.errors).toBeUndefined();
    expect(reads.count).toBe(1);
    // Concurrent requests and later ones share the table.
    const again = await Promise.all([run(counted, facts), run(counted, facts), run(counted, facts)]);
    for (const result of again) expect(result).toEqual(first);
    expect(reads.count).toBe(1);

    const renamed = (first.data as Answer).asns.edges.find((edge) => edge.node.country !== null)!.node
      .country!;
    const version = await store.handle.db
      .selectFrom('meta')
      .select('value')
      .where('key', '=', 'data_version')
      .executeTakeFirstOrThrow();
    // What a load does: the data and the data version change in one transaction.
    const change = async (name: string, dataVersion: string) =>
      store.handle.db.transaction().execute(async (trx) => {
        await trx.updateTable('countries').set({ name }).where('iso', '=', renamed.iso).execute();
        await trx.updateTable('meta').set({ value: dataVersion }).where('key', '=', 'data_version').execute();
      });
    await change('Renamed for the test', `${version.value}-countries-test`);
    try {
      const after = await run(counted, facts);
      expect(after.errors).toBeUndefined();
      const countries = (after.data as Answer).asns.edges.map((edge) => edge.node.country);
      expect(countries.filter((country) => country?.iso === renamed.iso).length).toBeGreaterThan(0);
      for (const country of countries)
        if (country?.iso === renamed.iso) expect(country.name).toBe('Renamed for the test');
      expect(reads.count).toBe(2);
    } finally {
      await change(renamed.name, version.value);
    }
  });
});
