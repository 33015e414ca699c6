// On PostgreSQL the record lookups by key run on the handle's pipelined connection (@asrank/db pipelined-postgres.ts),
// and the longer statements (a list's page) on its pool of named-statement connections, which the server runs side by
// side. PostgreSQL only: SQLite has neither.
import { openDatabase, type DatabaseHandle } from '@asrank/db';
import {
  asnsOfMonth,
  LOAD_TIMEOUT_MS,
  openLoadedStore,
  PG_URL,
  queryData,
  type LoadedStore,
} from './support/store';

jest.setTimeout(LOAD_TIMEOUT_MS);

const POINT_LOOKUP = `query PointLookup($asn: String!, $date: String) {
  asn(asn: $asn, date: $date) { asn asnName rank organization { orgId orgName rank } cone { numberAsns } }
}`;

(PG_URL ? describe : describe.skip)('record lookups on PostgreSQL', () => {
  let store: LoadedStore;
  let handle: DatabaseHandle;
  let latest: string;
  let asns: string[];
  beforeAll(async () => {
    store = await openLoadedStore('postgres');
    latest = [...store.dates].sort().at(-1)!;
    asns = await asnsOfMonth(store.handle, latest, 30);
  }, LOAD_TIMEOUT_MS);
  afterAll(async () => {
    await handle?.close();
    await store?.close();
  });

  it('run on the pipelined connection, answered as the lookups of the month named, while a page runs on the pool', async () => {
    // A handle of its own, so that no other test's statement has opened its pool's connections.
    handle = openDatabase(store.url!);
    const pool = handle.postgres!;
    // Requests in flight together, each with its own context, as the service runs them.
    const answers = await Promise.all(
      asns.map((asn) => queryData<{ asn: Record<string, unknown> }>(handle, POINT_LOOKUP, { asn })),
    );
    expect(pool.totalCount).toBe(0);
    const expected = await Promise.all(
      asns.map((asn) =>
        queryData<{ asn: Record<string, unknown> }>(store.handle, POINT_LOOKUP, { asn, date: latest }),
      ),
    );
    expect(answers).toEqual(expected);
    expect(answers.every(({ asn }) => asn !== null && asn.organization !== undefined)).toBe(true);

    await queryData(handle, '{ asns(first: 5, sort: "-cone.numberAsns") { edges { node { asn } } } }');
    expect(pool.totalCount).toBeGreaterThan(0);
  });
});
