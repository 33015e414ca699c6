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

  it('reads the point lookups of requests in flight together in one statement, an ASN asked twice once', async () => {
    const counted = openDatabase(store.url!);
    const pipelined = counted.postgresPipelined!;
    const forward = pipelined.query.bind(pipelined) as (...args: unknown[]) => unknown;
    const asnStatements: unknown[][] = [];
    // Counts the ASN record statements on their way to the connection, and forwards each as it came.
    pipelined.query = ((...args: unknown[]) => {
      const config = args[0] as { text?: string; values?: unknown[] };
      if (config.text?.includes('"asns"')) asnStatements.push(config.values ?? []);
      return forward(...args);
    }) as typeof pipelined.query;
    const TWICE = `query Twice($a: String!, $b: String!) {
      first: asn(asn: $a) { asn asnName rank }
      again: asn(asn: $a) { asn asnName rank }
      other: asn(asn: $b) { asn asnName rank }
      unknown: asn(asn: "4294967294") { asn asnName rank }
    }`;
    type Answer = Record<'first' | 'again' | 'other' | 'unknown', Record<string, unknown> | null>;
    try {
      const pairs = asns.slice(0, 10).map((asn, index) => ({ a: asn, b: asns[index + 10]! }));
      const answers = await Promise.all(pairs.map((pair) => queryData<Answer>(counted, TWICE, pair)));
      expect(asnStatements).toHaveLength(1);
      // One list of keys, each ASN in it once: the ten requests' twenty ASNs and the unknown one.
      const listed = String(asnStatements[0]!.at(-1))
        .replace(/[{}[\]]/g, '')
        .split(',');
      expect(new Set(listed).size).toBe(listed.length);
      expect(listed).toHaveLength(21);
      for (const [index, answer] of answers.entries()) {
        expect(answer.first).toEqual(answer.again);
        expect(answer.first?.asn).toBe(pairs[index]!.a);
        expect(answer.other?.asn).toBe(pairs[index]!.b);
        expect(answer.unknown).toBeNull();
        const dated = await queryData<{ asn: Record<string, unknown> }>(
          store.handle,
          'query Dated($asn: String!, $date: String) { asn(asn: $asn, date: $date) { asn asnName rank } }',
          { asn: pairs[index]!.a, date: latest },
        );
        expect(answer.first).toEqual(dated.asn);
      }
    } finally {
      await counted.close();
    }
  });
});
