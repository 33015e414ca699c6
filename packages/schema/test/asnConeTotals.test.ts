// An `asnCone`'s member total, its size checked for the walks and its existence come from the count its ASN's row
// keeps (migration 021), without counting cone_members, and equal the member rows the store holds; a row that keeps
// no count has its members counted, and an ASN without member rows has no cone.
import { coneStreamTuning } from '../src';
import {
  LOAD_TIMEOUT_MS,
  asnsOfMonth,
  queryData,
  withLoadedStore,
  STORE_KINDS,
  type LoadedStore,
} from './support/store';
import { StatementCounter, throughPlugin } from './support/statementCounter';
import type { DatabaseHandle } from '@asrank/db';

jest.setTimeout(LOAD_TIMEOUT_MS);

interface ConeAnswer {
  asnCone: { asns: { totalCount: number; edges: { node: { asn: string } }[] } } | null;
}

describe.each(STORE_KINDS)('asnCone member totals on %s', (kind) => {
  let store: LoadedStore;
  let latest: string;

  withLoadedStore(
    kind,
    (opened) => {
      store = opened;
      latest = opened.dates.at(-1)!;
    },
    coneStreamTuning,
  );

  /** The member rows of `asn`'s cone in the latest month, in ASN order. */
  async function storedMembers(asn: number): Promise<number[]> {
    const rows = await store.handle.db
      .selectFrom('cone_members')
      .select('member_asn')
      .where('date', '=', latest)
      .where('asn', '=', asn)
      .orderBy('member_asn')
      .execute();
    return rows.map((row) => Number(row.member_asn));
  }

  /** The ASNs of the latest month with the largest cones, largest first. */
  async function largestCones(count: number): Promise<number[]> {
    const rows = await store.handle.db
      .selectFrom('cone_members')
      .select(['asn', (eb) => eb.fn.countAll().as('members')])
      .where('date', '=', latest)
      .groupBy('asn')
      .orderBy('members', 'desc')
      .orderBy('asn')
      .limit(count)
      .execute();
    return rows.map((row) => Number(row.asn));
  }

  const coneOf = async (asn: number, handle: DatabaseHandle = store.handle) =>
    (
      await queryData<ConeAnswer>(
        handle,
        `{ asnCone(asn: "${asn}") { asns(first: 3) { totalCount edges { node { asn } } } } }`,
      )
    ).asnCone;

  /** Statements that count a cone's member rows (the totals' and the size check's path without the kept count). */
  const memberCounts = () =>
    new StatementCounter((tree) => tree.includes('"cone_members"') && tree.includes('"func":"count"'));

  /** The answer a cone with `members` gives. */
  const answerOf = (members: number[]) => ({
    asns: {
      totalCount: members.length,
      edges: members.slice(0, 3).map((member) => ({ node: { asn: String(member) } })),
    },
  });

  it('reads the totals from the rows, equal to the members stored, for large and small cones', async () => {
    const large = await largestCones(3);
    const small = (await asnsOfMonth(store.handle, latest, 2)).map(Number);
    const sizes = await Promise.all(large.map(async (asn) => (await storedMembers(asn)).length));
    expect(sizes[0]).toBeGreaterThan(3);
    // The sample's cones are small: these bounds make the largest a large cone (its lists kept in memory), the next
    // ones middling (neither large nor read whole), and the small ones few (read whole for their pages).
    coneStreamTuning.largeConeAsns = sizes[0]! - 1;
    coneStreamTuning.fewMembers = Math.min(2, sizes.at(-1)! - 1);
    for (const asn of [...large, ...small]) {
      const members = await storedMembers(asn);
      const counter = memberCounts();
      expect([asn, await coneOf(asn, throughPlugin(store.handle, counter))]).toEqual([
        asn,
        answerOf(members),
      ]);
      expect([asn, counter.executed]).toEqual([asn, 0]);
    }
  });

  it('answers asnCone without reading a member row to find the cone', async () => {
    const [asn] = await largestCones(1);
    const memberReads = new StatementCounter((tree) => tree.includes('"cone_members"'));
    const data = await queryData<{ asnCone: { date: string; asn: { asn: string } } | null }>(
      throughPlugin(store.handle, memberReads),
      `{ asnCone(asn: "${asn}") { date asn { asn } } }`,
    );
    expect(data.asnCone).toEqual({ date: latest, asn: { asn: String(asn) } });
    expect(memberReads.executed).toBe(0);
  });

  it("answers a cone's member and prefix totals alone without reading a page of either", async () => {
    // Middling cones: neither kept in memory nor read whole to check their size, so a statement reads each page.
    coneStreamTuning.fewMembers = 0;
    coneStreamTuning.largeConeAsns = 2 ** 31 - 1;
    let compared = 0;
    for (const asn of await largestCones(2)) {
      const lists = `asns(first: 4, offset: 1) { totalCount LIST_ASNS } prefixes(first: 4, offset: 1) { totalCount LIST_PREFIXES }`;
      const asked = async (withPages: boolean) => {
        const counter = new StatementCounter();
        const source = `{ asnCone(asn: "${asn}") { ${lists
          .replace('LIST_ASNS', withPages ? 'edges { node { asn asnName } }' : '')
          .replace('LIST_PREFIXES', withPages ? 'edges { node { network length } }' : '')} } }`;
        const data = await queryData<{
          asnCone: { asns: { totalCount: number }; prefixes: { totalCount: number } };
        }>(throughPlugin(store.handle, counter), source);
        // Rows of a member page (cone_members), of members' records (their names; not the cone's own ASN's, which
        // asnCone reads) and of a prefix page.
        const pageRows = counter.returned.filter(
          (row) => 'member_asn' in row || ('asn_name' in row && Number(row.asn) !== asn) || 'network' in row,
        ).length;
        return {
          totals: { asns: data.asnCone.asns.totalCount, prefixes: data.asnCone.prefixes.totalCount },
          pageRows,
        };
      };
      const paged = await asked(true);
      const alone = await asked(false);
      expect({ asn, ...alone }).toEqual({ asn, totals: paged.totals, pageRows: 0 });
      expect(paged.pageRows).toBeGreaterThan(4);
      expect(paged.totals.asns).toBeGreaterThan(1);
      compared += paged.totals.asns + paged.totals.prefixes;
    }
    expect(compared).toBeGreaterThan(10);
  });

  // Last: it changes the store's rows.
  it('counts the members of a cone whose row keeps no count, and has no cone for an ASN without members', async () => {
    const [counted, coneless] = await largestCones(2);
    const members = await storedMembers(counted!);
    await store.handle.db
      .updateTable('asns')
      .set({ number_cone_members: 0 })
      .where('date', '=', latest)
      .where('asn', 'in', [counted!, coneless!])
      .execute();
    const counter = memberCounts();
    expect(await coneOf(counted!, throughPlugin(store.handle, counter))).toEqual(answerOf(members));
    expect(counter.executed).toBeGreaterThan(0);

    expect(await coneOf(coneless!)).not.toBeNull();
    await store.handle.db
      .deleteFrom('cone_members')
      .where('date', '=', latest)
      .where('asn', '=', coneless!)
      .execute();
    expect(await coneOf(coneless!)).toBeNull();
  });
});
