// A nested page past the first reads its parents' kept totals before its rows, and builds and reads rows for only the
// parents with more rows than its offset (nestedPageTuning.keptTotalsFirst): the same pages as reading every parent's
// rows, on SQLite and PostgreSQL.
import { sql } from 'kysely';
import { createContext, nestedPageTuning } from '../src';
import { nestedPage, type NestedPageQuery } from '../src/nestedPages';
import { RunStatements, throughPlugin } from './support/statementCounter';
import {
  busiestAsns,
  LOAD_TIMEOUT_MS,
  singleLinkAsns,
  queryData,
  STORE_KINDS,
  withLoadedStore,
  type LoadedStore,
} from './support/store';

jest.setTimeout(LOAD_TIMEOUT_MS);

interface LinkRow {
  parent_key: unknown;
  asn1: unknown;
}

describe.each(STORE_KINDS)('nested pages past the first on %s', (kind) => {
  let store: LoadedStore;
  let latest: string;

  withLoadedStore(kind, (opened) => (store = opened), nestedPageTuning);
  beforeAll(() => {
    latest = store.dates.at(-1)!;
  });

  /** Each ASN's links of the latest month, as its record keeps them. */
  async function linkTotals(asns: readonly number[]): Promise<Map<number, number>> {
    const rows = await store.handle.db
      .selectFrom('asns')
      .select(['asn', 'number_asn_links'])
      .where('date', '=', latest)
      .where('asn', 'in', asns)
      .execute();
    return new Map(rows.map((row) => [Number(row.asn), Number(row.number_asn_links)]));
  }

  it('builds and reads the rows of only the parents whose kept totals pass the offset', async () => {
    const busiest = (await busiestAsns(store.handle, latest, 3)).map((row) => Number(row.asn));
    const fewest = await singleLinkAsns(store.handle, latest, 3);
    const parents = [...busiest, ...fewest];
    const totals = await linkTotals(parents);
    const largest = Math.max(...totals.values());
    const least = Math.min(...busiest.map((asn) => totals.get(asn)!));
    expect(fewest).toHaveLength(3);
    expect(least).toBeGreaterThan(4);

    /** One batch of every parent's page through nestedPage, recording the parents each build is given. */
    const pagesAt = async (offset: number, needs = { nodes: true, total: true }) => {
      const built: number[][] = [];
      const context = createContext(store.handle);
      const build = (batch: number[]): NestedPageQuery<number, LinkRow> => {
        built.push([...batch].sort((a, b) => a - b));
        return {
          partitionColumn: 'parent_key',
          order: sql`asn1`,
          rows: (asns) =>
            context.db
              .selectFrom('asn_links')
              .select(['asn0 as parent_key', 'asn1'])
              .where('date', '=', latest)
              .where('asn0', 'in', asns),
        };
      };
      const loader = nestedPage<number, LinkRow>(
        context,
        'test',
        { first: 3, offset },
        build,
        {
          kept: true,
          counts: (asns) =>
            context.db
              .selectFrom('asns')
              .select(['asn as parent_key', 'number_asn_links as total'])
              .where('date', '=', latest)
              .where('asn', 'in', asns),
        },
        needs,
      );
      const pages = await Promise.all(parents.map((parent) => loader.load(parent)));
      return {
        built,
        pages: pages.map((page) => ({
          total: page.totalCount,
          asn1: page.nodes.map((row) => Number(row.asn1)),
        })),
      };
    };

    const sorted = (asns: number[]) => [...asns].sort((a, b) => a - b);
    let shown = 0;
    for (const offset of [0, 1, 2, least - 1, largest - 1, largest, largest + 5]) {
      nestedPageTuning.keptTotalsFirst = false;
      const everyParent = await pagesAt(offset);
      nestedPageTuning.keptTotalsFirst = true;
      const totalsFirst = await pagesAt(offset);
      expect([offset, totalsFirst.pages]).toEqual([offset, everyParent.pages]);
      expect(everyParent.built).toEqual([sorted(parents)]);
      // A first page builds for every parent; a later one for those with rows past its offset, or not at all.
      const withRows = parents.filter((asn) => offset === 0 || totals.get(asn)! > offset);
      expect([offset, totalsFirst.built]).toEqual([offset, withRows.length > 0 ? [sorted(withRows)] : []]);
      // Each page holds what its kept total leaves past the offset.
      totalsFirst.pages.forEach((page, index) => {
        const total = totals.get(parents[index]!)!;
        expect({ offset, total: page.total, shown: page.asn1.length }).toEqual({
          offset,
          total,
          shown: Math.min(3, Math.max(0, total - offset)),
        });
        shown += page.asn1.length;
      });
    }
    expect(shown).toBeGreaterThan(20);
    // Totals alone build nothing, at any offset.
    for (const offset of [0, 2])
      expect((await pagesAt(offset, { nodes: false, total: true })).built).toEqual([]);
  });

  it("answers ASes' and organizations' pages past every parent with their totals' statement alone", async () => {
    const busiest = (await busiestAsns(store.handle, latest, 4)).map((row) => `"${row.asn}"`);
    const relations = [
      {
        name: 'links of ASes',
        query: (offset: number) => `{ asns(asns: [${busiest.join(', ')}], sort: "asn") { edges { node { asn
          asnLinks(first: 3, offset: ${offset}) { totalCount edges { node { asn1 { asn } } } } } } } }`,
      },
      {
        name: "organizations' links",
        query: (offset: number) => `{ organizations(first: 30) { edges { node { orgId
          asnLinks(first: 3, offset: ${offset}, sort: "-asn1") { totalCount edges { node { asn0 { asn } asn1 { asn } } } } } } } }`,
      },
      {
        name: "organizations' neighbours",
        query: (offset: number) => `{ organizations(first: 30) { edges { node { orgId
          neighbors(first: 3, offset: ${offset}, sort: "-cone.numberAsns") { totalCount edges { node { asn } } } } } } }`,
      },
    ];
    const asked = async (query: string, totalsFirst: boolean) => {
      nestedPageTuning.keptTotalsFirst = totalsFirst;
      const run = new RunStatements(store.handle);
      const data = await queryData(throughPlugin(store.handle, run), query);
      const texts = run.statements.map((statement) => statement.sql);
      return {
        data,
        rowStatements: texts.filter((text) => text.includes('position_in_parent')).length,
        totalStatements: texts.filter(
          (text) =>
            text.includes('parent_key') &&
            text.includes('as "total"') &&
            !text.includes('position_in_parent'),
        ).length,
      };
    };
    for (const relation of relations) {
      // The largest total among the parents: a page there or deeper is past every parent's rows.
      const totals =
        JSON.stringify((await asked(relation.query(0), false)).data).match(/"totalCount":\d+/g) ?? [];
      const past = Math.max(...totals.map((total) => Number(total.split(':')[1])));
      expect([relation.name, past]).toEqual([relation.name, expect.any(Number)]);
      expect(past).toBeGreaterThan(4);
      for (const offset of [1, Math.floor(past / 2), past - 1, past, past + 5]) {
        const everyParent = await asked(relation.query(offset), false);
        const totalsFirst = await asked(relation.query(offset), true);
        const label = `${relation.name} at ${offset}`;
        expect([label, totalsFirst.data]).toEqual([label, everyParent.data]);
        expect([label, everyParent.rowStatements]).toEqual([label, 1]);
        expect([label, totalsFirst.rowStatements]).toEqual([label, offset >= past ? 0 : 1]);
        expect([label, totalsFirst.totalStatements]).toEqual([label, 1]);
      }
    }
  });
});
