// `asn(asn:)` without a date on PostgreSQL, when no data version is fixed for the request: the lookup's own statement
// finds the latest loaded month (and reads the data version alongside), so the request reads no data version first,
// and its answer is as fresh as the statement. With a version fixed (the result cache's), the months are that
// version's; on SQLite the months are found first, as before.
import { graphql } from 'graphql';
import { sql, type Kysely } from 'kysely';
import type { Database } from '@asrank/db';
import { createContext, createSchema, createStoreFacts, type StoreFacts } from '../src';
import { LOAD_TIMEOUT_MS, openLoadedStore, STORE_KINDS, type LoadedStore } from './support/store';

jest.setTimeout(LOAD_TIMEOUT_MS);

const POINT_LOOKUP = `query PointLookup($asn: String!, $date: String) {
  asn(asn: $asn, date: $date) { asn asnName date country { iso name } organization { orgId orgName } }
}`;

/** A month after every loaded one, which the test loads for one ASN and removes again. */
const NEWER_MONTH = '2999-01-01';

describe.each(STORE_KINDS)('the latest month of a point lookup on %s', (kind) => {
  let store: LoadedStore;
  let latest: string;
  let asn: string;
  const schema = createSchema();
  beforeAll(async () => {
    store = await openLoadedStore(kind);
    latest = [...store.dates].sort().at(-1)!;
    const row = await store.handle.db
      .selectFrom('asns')
      .select('asn')
      .where('date', '=', latest)
      .where('country_iso', 'is not', null)
      .where('org_id', 'is not', null)
      .orderBy('asn')
      .executeTakeFirstOrThrow();
    asn = String(row.asn);
  }, LOAD_TIMEOUT_MS);
  afterAll(() => store?.close());

  /** Store facts whose data-version reads are counted. */
  function countingFacts(): { facts: StoreFacts; versionReads: () => number } {
    let reads = 0;
    const plain = createStoreFacts(store.handle);
    const facts = createStoreFacts(store.handle, () => {
      reads += 1;
      return plain.dataVersion();
    });
    return { facts, versionReads: () => reads };
  }

  async function lookUp(facts: StoreFacts, variables: { asn: string; date?: string }, dataVersion?: string) {
    const answer = await graphql({
      schema,
      source: POINT_LOOKUP,
      contextValue: createContext(store.handle, { facts, dataVersion }),
      variableValues: variables,
    });
    expect(answer.errors).toBeUndefined();
    return (answer.data as { asn: Record<string, unknown> | null }).asn;
  }

  it(
    kind === 'postgres'
      ? 'answers from the latest month, its country and organization included, reading no data version first'
      : 'answers from the latest month, found from the data version',
    async () => {
      const { facts, versionReads } = countingFacts();
      const answer = await lookUp(facts, { asn });
      expect(answer).toEqual(await lookUp(createStoreFacts(store.handle), { asn, date: latest }));
      expect(answer?.date).toBe(latest);
      expect((answer?.country as { iso: string }).iso).toBeTruthy();
      // A second request needs no read either: the countries are kept for the version the first one adopted.
      await lookUp(facts, { asn });
      expect(versionReads()).toBe(kind === 'postgres' ? 0 : 2);
      // An unknown ASN is null, as ever.
      expect(await lookUp(facts, { asn: '4294967294' })).toBeNull();
    },
  );

  it(
    kind === 'postgres'
      ? 'answers organization(orgId:) from the latest month too, reading no data version first'
      : 'answers organization(orgId:) from the latest month, found from the data version',
    async () => {
      const { orgId } = await store.handle.db
        .selectFrom('asns')
        .select('org_id as orgId')
        .where('date', '=', latest)
        .where('asn', '=', Number(asn))
        .executeTakeFirstOrThrow();
      const { facts, versionReads } = countingFacts();
      const source = `query Owner($orgId: String!, $date: String) {
        organization(orgId: $orgId, date: $date) { orgId orgName date country { iso } }
      }`;
      const run = async (variables: { orgId: string; date?: string }, runFacts: StoreFacts) => {
        const answer = await graphql({
          schema,
          source,
          contextValue: createContext(store.handle, { facts: runFacts }),
          variableValues: variables,
        });
        expect(answer.errors).toBeUndefined();
        return (answer.data as { organization: Record<string, unknown> | null }).organization;
      };
      const answer = await run({ orgId: orgId! }, facts);
      expect(answer).toEqual(await run({ orgId: orgId!, date: latest }, createStoreFacts(store.handle)));
      expect(answer?.date).toBe(latest);
      expect(await run({ orgId: 'no-such-organization' }, facts)).toBeNull();
      expect(versionReads()).toBe(kind === 'postgres' ? 0 : 2);
    },
  );

  it(
    kind === 'postgres'
      ? 'reads a month loaded since, even before the data version names it, unless the request has a version'
      : 'reads the months of the data version the request has',
    async () => {
      const version = await createStoreFacts(store.handle).dataVersion();
      const { facts } = countingFacts();
      // Read once at the current version, so the facts know its months.
      expect((await lookUp(facts, { asn }, version))?.date).toBe(latest);
      // A newer month of this ASN, committed without moving the data version: only a statement that finds the
      // latest month itself can see it.
      await store.handle.db.transaction().execute(async (trx) => {
        await copyRow(trx, 'datasets', `date = '${latest}'`, { dataset_id: `newer-${NEWER_MONTH}` });
        await copyRow(trx, 'asns', `date = '${latest}' and asn = ${asn}`);
        await copyRow(
          trx,
          'organizations',
          `date = '${latest}' and org_id = (select org_id from asns where date = '${latest}' and asn = ${asn})`,
        );
      });
      try {
        const fresh = await lookUp(facts, { asn });
        const pinned = await lookUp(facts, { asn }, version);
        expect(pinned?.date).toBe(latest);
        // A request that read the version first (for another field) keeps that version's months.
        const withSibling = await graphql({
          schema,
          source: 'query Both($asn: String!) { datasets { totalCount } asn(asn: $asn) { date } }',
          contextValue: createContext(store.handle, { facts }),
          variableValues: { asn },
        });
        expect(withSibling.errors).toBeUndefined();
        expect((withSibling.data as { asn: { date: string } }).asn.date).toBe(latest);
        if (kind === 'postgres') {
          expect(fresh?.date).toBe(NEWER_MONTH);
          expect((fresh?.organization as { orgId: string } | null)?.orgId).toBe(
            (pinned?.organization as { orgId: string } | null)?.orgId,
          );
        } else {
          expect(fresh?.date).toBe(latest);
        }
      } finally {
        for (const table of ['organizations', 'asns', 'datasets'])
          await sql`delete from ${sql.table(table)} where date = ${NEWER_MONTH}`.execute(store.handle.db);
      }
    },
  );
});

/** Inserts a copy of the rows of `table` matching `where`, dated NEWER_MONTH (`overrides` too; the rest as it is). */
async function copyRow(
  db: Kysely<Database>,
  table: string,
  where: string,
  overrides: Record<string, string> = {},
): Promise<void> {
  const columns = Object.keys(
    (
      await sql<
        Record<string, unknown>
      >`select * from ${sql.table(table)} where ${sql.raw(where)} limit 1`.execute(db)
    ).rows[0] ?? {},
  );
  if (columns.length === 0) throw new Error(`no row of ${table} where ${where}`);
  const values: Record<string, string> = { date: NEWER_MONTH, ...overrides };
  const selected = columns.map((column) =>
    values[column] === undefined ? sql.ref(column) : sql`${values[column]}`,
  );
  await sql`insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))}) select ${sql.join(
    selected,
  )} from ${sql.table(table)} where ${sql.raw(where)}`.execute(db);
}
