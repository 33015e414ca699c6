// One AS's link totals (root `asnLinks(asn)` and nested `Asn.asnLinks`) and a list's (`asnLinks(asns)`) come from the
// counts their rows keep (migration 020), without counting their links, and equal the links the store holds for them,
// one month or several; an AS without a row in a month has its links of that month counted.
import { linkPageTuning } from '../src';
import {
  LOAD_TIMEOUT_MS,
  asnsOfMonth,
  busiestAsns,
  queryData,
  withLoadedStore,
  STORE_KINDS,
  type LoadedStore,
} from './support/store';
import { StatementCounter, throughPlugin } from './support/statementCounter';

jest.setTimeout(LOAD_TIMEOUT_MS);

interface Total {
  totalCount: number;
}

describe.each(STORE_KINDS)('one AS’s link totals on %s', (kind) => {
  let store: LoadedStore;

  withLoadedStore(kind, (opened) => (store = opened), linkPageTuning);

  /** The links the store holds with asn0 = `asn` in `months`. */
  async function storedLinks(asn: number, months: readonly string[]): Promise<number> {
    const row = await store.handle.db
      .selectFrom('asn_links')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('asn0', '=', asn)
      .where('date', 'in', months)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The totals `asn` gets at the root (its latest month, every month) and nested, in one request. */
  async function totalsOf(asn: number, handle = store.handle) {
    const interval = `dateStart: "${store.dates[0]}", dateEnd: "${store.dates.at(-1)}"`;
    const data = await queryData<{ latest: Total; every: Total; asn: { asnLinks: Total } | null }>(
      handle,
      `{ latest: asnLinks(asn: "${asn}", first: 1) { totalCount }
         every: asnLinks(asn: "${asn}", first: 1, ${interval}) { totalCount }
         asn(asn: "${asn}") { asnLinks(first: 1) { totalCount } } }`,
    );
    return {
      latest: data.latest.totalCount,
      every: data.every.totalCount,
      nested: data.asn?.asnLinks.totalCount,
    };
  }

  /**
   * Statements that count links (the totals' old path), not the kept counts' (which counts an AS's links only in a
   * month where it has no row).
   */
  const linkCounts = () =>
    new StatementCounter(
      (tree) =>
        tree.includes('"asn_links"') && tree.includes('"func":"count"') && !tree.includes('number_asn_links'),
    );
  /** Statements that read the kept counts. */
  const keptCounts = () => new StatementCounter((tree) => tree.includes('number_asn_links'));

  it('reads them from the counts the rows keep, equal to the links stored, for large and small ASes', async () => {
    const latest = store.dates.at(-1)!;
    const busiest = (await busiestAsns(store.handle, latest, 3)).map((row) => Number(row.asn));
    const sampled = (await asnsOfMonth(store.handle, latest, 2)).map(Number);
    for (const asn of [...busiest, ...sampled]) {
      const kept = linkCounts();
      const totals = await totalsOf(asn, throughPlugin(store.handle, kept));
      const expected = {
        latest: await storedLinks(asn, [latest]),
        every: await storedLinks(asn, store.dates),
        nested: await storedLinks(asn, [latest]),
      };
      expect([asn, totals]).toEqual([asn, expected]);
      expect(kept.executed).toBe(0);
      linkPageTuning.keptAsnLinkCounts = false;
      const counted = linkCounts();
      expect(await totalsOf(asn, throughPlugin(store.handle, counted))).toEqual(expected);
      expect(counted.executed).toBeGreaterThan(0);
      linkPageTuning.keptAsnLinkCounts = true;
    }
    // The largest AS has more links than one page of the sample reads, and more over every month than in one.
    const top = await totalsOf(busiest[0]!);
    expect(top.latest).toBeGreaterThan(10);
    expect(top.every).toBeGreaterThan(top.latest);
  });

  it('pages many ASes’ link totals from their rows in one statement', async () => {
    const latest = store.dates.at(-1)!;
    const kept = linkCounts();
    const data = await queryData<{ asns: { edges: { node: { asn: string; asnLinks: Total } }[] } }>(
      throughPlugin(store.handle, kept),
      `{ asns(first: 60, sort: "-asnDegree.total") { edges { node { asn asnLinks(first: 2) { totalCount } } } } }`,
    );
    expect(data.asns.edges).toHaveLength(60);
    for (const { node } of data.asns.edges)
      expect([node.asn, node.asnLinks.totalCount]).toEqual([
        node.asn,
        await storedLinks(Number(node.asn), [latest]),
      ]);
    expect(kept.executed).toBe(0);
  });

  it("reads a list's link totals from its ASes' rows, and counts those of an AS without a row", async () => {
    const latest = store.dates.at(-1)!;
    const busiest = (await busiestAsns(store.handle, latest, 3)).map((row) => Number(row.asn));
    const sampled = (await asnsOfMonth(store.handle, latest, 3)).map(Number);
    // A listed ASN twice, and one that no month has (no row, no link).
    const listed = [...busiest, ...sampled, busiest[0]!, 4_199_999_999];
    const interval = `dateStart: "${store.dates[0]}", dateEnd: "${store.dates.at(-1)}"`;
    const asns = listed.map((asn) => `"${asn}"`).join(', ');
    const totals = async (handle = store.handle) => {
      const data = await queryData<{ latest: Total; every: Total }>(
        handle,
        `{ latest: asnLinks(asns: [${asns}], first: 1) { totalCount }
           every: asnLinks(asns: [${asns}], first: 1, ${interval}) { totalCount } }`,
      );
      return { latest: data.latest.totalCount, every: data.every.totalCount };
    };
    const distinct = [...new Set(listed)];
    const stored = async () => ({
      latest: (await Promise.all(distinct.map((asn) => storedLinks(asn, [latest])))).reduce((a, b) => a + b),
      every: (await Promise.all(distinct.map((asn) => storedLinks(asn, store.dates)))).reduce(
        (a, b) => a + b,
      ),
    });
    const expected = await stored();
    expect(expected.every).toBeGreaterThan(expected.latest);
    // One statement a total (the unknown ASN's months counted in it), no count of the listed ASes' links.
    const counted = linkCounts();
    const kept = keptCounts();
    expect(await totals(throughPlugin(throughPlugin(store.handle, counted), kept))).toEqual(expected);
    expect({ counted: counted.executed, kept: kept.executed }).toEqual({ counted: 0, kept: 2 });
    linkPageTuning.keptAsnLinkCounts = false;
    expect(await totals()).toEqual(expected);
    linkPageTuning.keptAsnLinkCounts = true;
    // A listed AS with links but no row in the latest month: its links there are counted, the same totals.
    const record = await store.handle.db
      .selectFrom('asns')
      .selectAll()
      .where('date', '=', latest)
      .where('asn', '=', busiest[1]!)
      .executeTakeFirstOrThrow();
    await store.handle.db
      .deleteFrom('asns')
      .where('date', '=', latest)
      .where('asn', '=', busiest[1]!)
      .execute();
    try {
      expect(await totals()).toEqual(expected);
    } finally {
      await store.handle.db.insertInto('asns').values(record).execute();
    }
  });

  it('counts the links of an AS in a month where it has no row', async () => {
    const latest = store.dates.at(-1)!;
    const rowless = Number((await busiestAsns(store.handle, latest, 1))[0]!.asn);
    const before = await totalsOf(rowless);
    const neighbour = await store.handle.db
      .selectFrom('asn_links')
      .select('asn1')
      .where('date', '=', latest)
      .where('asn0', '=', rowless)
      .orderBy('asn1')
      .executeTakeFirstOrThrow();
    await store.handle.db.deleteFrom('asns').where('date', '=', latest).where('asn', '=', rowless).execute();
    const links = await storedLinks(rowless, [latest]);
    expect(links).toBeGreaterThan(0);
    expect(await totalsOf(rowless)).toEqual({
      latest: links,
      every: before.every,
      // No record in its latest month: `asn(asn)` answers null.
      nested: undefined,
    });
    // Its pages by relationship over every month walk blocks, whose sizes in that month are counted: the same pages as
    // from the months' relationship arms.
    const interval = `dateStart: "${store.dates[0]}", dateEnd: "${latest}"`;
    let paged = 0;
    linkPageTuning.keptRelationshipBlocksFrom = 0;
    for (const sort of ['relationship', '-relationship,date'])
      for (const offset of [0, 4, Math.floor(before.every / 2), before.every - links - 1, before.every - 3]) {
        const query = `{ asnLinks(asn: "${rowless}", ${interval}, sort: "${sort}", first: 5, offset: ${offset}) {
          edges { node { date asn1 { asn } relationship } } } }`;
        linkPageTuning.keptRelationshipBlocks = false;
        const arms = await queryData<{ asnLinks: { edges: unknown[] } }>(store.handle, query);
        linkPageTuning.keptRelationshipBlocks = true;
        expect([query, await queryData(store.handle, query)]).toEqual([query, arms]);
        paged += arms.asnLinks.edges.length;
      }
    expect(paged).toBe(2 * (4 * 5 + 3));
    // As a link's far end it is a placeholder record, whose own links are counted.
    const linked = await queryData<{
      asnLinks: { edges: { node: { asn1: { asn: string; asnLinks: Total } } }[] };
    }>(
      store.handle,
      `{ asnLinks(asn: "${neighbour.asn1}", asns: ["${rowless}"], first: 1) {
           edges { node { asn1 { asn asnLinks(first: 1) { totalCount } } } } } }`,
    );
    expect(linked.asnLinks.edges.map((edge) => edge.node.asn1)).toEqual([
      { asn: String(rowless), asnLinks: { totalCount: links } },
    ]);
  });
});
