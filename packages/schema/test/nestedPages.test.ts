// Nested pages of a few parents are read with one limited query per parent, of many parents with one windowed
// query: both forms give the same pages and counts, for one parent and several, every sort and offsets inside and
// past each parent's rows, on SQLite and PostgreSQL.
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  RootOperationNode,
} from 'kysely';
import { sql } from 'kysely';
import { linkPageTuning, nestedPageTuning } from '../src';
import {
  busiestAsns,
  LOAD_TIMEOUT_MS,
  singleLinkAsns,
  withLoadedStore,
  queryData,
  queryError,
  STORE_KINDS,
  type LoadedStore,
  keepListedLinkParts,
} from './support/store';
import { StatementCounter, throughPlugin } from './support/statementCounter';

jest.setTimeout(LOAD_TIMEOUT_MS);

/** Which form each nested page statement took, read from the SQL text Kysely is given. */
class PageFormRecorder implements KyselyPlugin {
  forms: string[] = [];
  /** Statements reading each parent's total (counted, or as its row keeps it). */
  counts = 0;
  /** Windowed statements whose parents' cuts are their pages alone (cutPages). */
  pageCuts = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const text = JSON.stringify(args.node);
    if (text.includes('position_in_parent'))
      this.forms.push(
        !text.includes('partition by')
          ? 'per parent'
          : // Each parent's rows cut by its own range (cutRows) before the window ranks them.
            text.includes('x.asn0 = ')
            ? 'windowed cuts'
            : 'windowed',
      );
    // Past the first page, each parent's cut is its page alone (cutPages).
    if (text.includes('position_in_parent') && text.includes('x.asn0 = ') && text.includes(' offset '))
      this.pageCuts += 1;
    else if (text.includes('"parent_key"') && text.includes('"total"')) this.counts += 1;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs) {
    return args.result;
  }
}

interface LinksOfAsns {
  asns: {
    edges: {
      node: { asn: string; asnLinks: { totalCount: number; edges: { node: Record<string, unknown> }[] } };
    }[];
  };
}

describe.each(STORE_KINDS)('nested link pages on %s', (kind) => {
  let store: LoadedStore;
  const defaultTuning = { ...nestedPageTuning };

  withLoadedStore(kind, (opened) => (store = opened), nestedPageTuning, linkPageTuning);
  // These compare the forms of every parent's rows, past a parent's last too; keptTotalsFirst.test.ts reads the
  // parents' totals first.
  beforeEach(() => {
    nestedPageTuning.keptTotalsFirst = false;
  });

  async function pagesIn(
    query: string,
    maxParents: number,
  ): Promise<{ data: LinksOfAsns; forms: string[]; counts: number; pageCuts: number }> {
    nestedPageTuning.perParentMaxParents = maxParents;
    const recorder = new PageFormRecorder();
    const recorded = throughPlugin(store.handle, recorder);
    const data = await queryData<LinksOfAsns>(recorded, query);
    return { data, forms: recorder.forms, counts: recorder.counts, pageCuts: recorder.pageCuts };
  }

  it('pages the links of one ASN and of several the same in both forms', async () => {
    // One parent's page with asn1's fields is otherwise read as the root list's (the test below).
    linkPageTuning.nestedNeighbourPage = false;
    const latest = store.dates.at(-1)!;
    // The ASNs with the most links, and one with a single link, so that offsets fall inside, at and past the end.
    const busiest = await busiestAsns(store.handle, latest, 4);
    const [single] = await singleLinkAsns(store.handle, latest, 1);
    const largest = Number(busiest[0]!.degree_total);
    expect(largest).toBeGreaterThan(20);
    let compared = 0;
    for (const parents of [[busiest[0]!.asn], [...busiest.map((row) => row.asn), single!]])
      for (const sort of [null, '-numberPaths', 'relationship,-asn1', 'correctedBy', '-asn1,numberPaths'])
        for (const offset of [0, 3, Math.floor(largest / 2), largest - 2, largest + 5]) {
          const query = `{ asns(asns: [${parents.map((asn) => `"${asn}"`).join(', ')}], sort: "asn") { edges { node {
            asn asnLinks(first: 6, offset: ${offset}${sort ? `, sort: "${sort}"` : ''}) {
              totalCount edges { node { asn1 { asn rank } relationship numberPaths rank date } } } } } } }`;
          const windowed = await pagesIn(query, 0);
          // Without the cuts, the per-parent form reads up to perParentMaxParents parents.
          nestedPageTuning.windowedCuts = false;
          const perParent = await pagesIn(query, defaultTuning.perParentMaxParents);
          const uncut = await pagesIn(query, 0);
          nestedPageTuning.windowedCuts = true;
          // Past the first page each parent's page alone (by relationship alone its ranges' cuts, not asked here;
          // the sample's links have no path counts, so `-numberPaths` is read by the pair).
          const pageCuts = offset > 0;
          expect([query, windowed.forms, windowed.pageCuts]).toEqual([
            query,
            ['windowed cuts'],
            pageCuts ? 1 : 0,
          ]);
          expect(uncut.forms).toEqual(['windowed']);
          expect(perParent.forms).toEqual(['per parent']);
          expect([query, perParent.data]).toEqual([query, windowed.data]);
          expect([query, uncut.data]).toEqual([query, windowed.data]);
          const edges = windowed.data.asns.edges;
          expect(edges.map((edge) => edge.node.asn)).toEqual(
            parents.map(String).sort((a, b) => Number(a) - Number(b)),
          );
          compared += edges.reduce((sum, edge) => sum + edge.node.asnLinks.edges.length, 0);
        }
    // Most pages hold links (some offsets are past the end on purpose).
    expect(compared).toBeGreaterThan(200);
  });

  it("reads one parent's page with asn1's fields as the root list does, asn1 joined in the same statement", async () => {
    const latest = store.dates.at(-1)!;
    const [busiest] = await busiestAsns(store.handle, latest, 1);
    const largest = Number(busiest!.degree_total);
    const nodeFields = 'asn1 { asn asnName rank } relationship numberPaths rank date';
    let compared = 0;
    for (const sort of [null, '-asn1', 'relationship,-asn1', 'asn0'])
      for (const offset of [0, 3, largest - 2, largest + 5]) {
        const args = `first: 6, offset: ${offset}${sort ? `, sort: "${sort}"` : ''}`;
        const nested = `{ asn(asn: "${busiest!.asn}") { asnLinks(${args}) { totalCount edges { node { ${nodeFields} } } } } }`;
        const asked = async (joined: boolean) => {
          linkPageTuning.nestedNeighbourPage = joined;
          const statements = new StatementCounter();
          const forms = new PageFormRecorder();
          const data = await queryData<{ asn: { asnLinks: { totalCount: number; edges: unknown[] } } }>(
            throughPlugin(throughPlugin(store.handle, forms), statements),
            nested,
          );
          return { data, statements: statements.executed, forms: forms.forms };
        };
        const joined = await asked(true);
        const loaded = await asked(false);
        expect([nested, joined.data]).toEqual([nested, loaded.data]);
        // The same page as the root list of the AS's links.
        const root = await queryData<{ asnLinks: { edges: unknown[] } }>(
          store.handle,
          `{ asnLinks(asn: "${busiest!.asn}", ${args}) { edges { node { ${nodeFields} } } } }`,
        );
        expect([nested, joined.data.asn.asnLinks.edges]).toEqual([nested, root.asnLinks.edges]);
        // No nested form, and asn1's records not loaded by a statement of their own.
        expect(joined.forms).toEqual([]);
        expect(loaded.forms).toEqual(['windowed cuts']);
        if (joined.data.asn.asnLinks.edges.length > 0)
          expect([nested, joined.statements]).toEqual([nested, loaded.statements - 1]);
        compared += joined.data.asn.asnLinks.edges.length;
      }
    expect(compared).toBeGreaterThan(40);
  });

  it("reads one or a few ASes' links by relationship from its relationships' ranges, the same as sorted", async () => {
    const latest = store.dates.at(-1)!;
    const busiest = await busiestAsns(store.handle, latest, 3);
    const largest = Number(busiest[0]!.degree_total);
    // asn1's key alone, its fields, and no asn1 at all: each was read as one range of the AS and sorted.
    const selections = [
      'asn1 { asn } relationship',
      'asn1 { asn asnName rank } relationship numberPaths',
      'rank date',
    ];
    let compared = 0;
    for (const sort of ['relationship', '-relationship'])
      for (const nodeFields of selections)
        for (const offset of [0, 3, Math.floor(largest / 2), largest - 2, largest + 5]) {
          const args = `first: 6, offset: ${offset}, sort: "${sort}"`;
          const asked = async (query: string, arms: boolean) => {
            linkPageTuning.oneAsnRelationshipArms = arms;
            // Every parent's cut from its ranges too, however few its links.
            linkPageTuning.parentRelationshipRanges = arms;
            linkPageTuning.relationshipRangesFrom = 0;
            linkPageTuning.relationshipRangesPerEnd = 0;
            const forms = new PageFormRecorder();
            const trees: string[] = [];
            const kept = throughPlugin(throughPlugin(store.handle, forms), {
              transformQuery: (transformed) => {
                trees.push(JSON.stringify(transformed.node));
                return transformed.node;
              },
              transformResult: async (transformed) => transformed.result,
            });
            const data = await queryData<Record<string, unknown>>(kept, query);
            // The literal relationships of the per-parent rows' arms (eight a parent).
            const armRelationships = trees
              .filter((tree) => tree.includes('position_in_parent'))
              .reduce(
                (count, tree) =>
                  count + (tree.match(/"value":"(customer|peer|provider|sibling)"/g) ?? []).length,
                0,
              );
            return { data, forms: forms.forms, armRelationships };
          };
          const one = `{ asn(asn: "${busiest[0]!.asn}") { asnLinks(${args}) { totalCount edges { node { ${nodeFields} } } } } }`;
          const several = `{ asns(asns: [${busiest.map((row) => `"${row.asn}"`).join(', ')}], sort: "asn") { edges { node {
            asn asnLinks(${args}) { totalCount edges { node { ${nodeFields} } } } } } } }`;
          const root = `{ asnLinks(asn: "${busiest[0]!.asn}", ${args}) { totalCount edges { node { ${nodeFields} } } } }`;
          for (const query of [one, several, root]) {
            const merged = await asked(query, true);
            const sorted = await asked(query, false);
            expect([query, merged.data]).toEqual([query, sorted.data]);
            compared += JSON.stringify(merged.data).split('"node"').length - 1;
            if (query === one) {
              // One parent's page is the root's neighbour page; sorted, without asn1's fields, it is windowed with
              // its cut.
              expect(merged.forms).toEqual([]);
              if (!nodeFields.includes('asnName')) expect(sorted.forms).toEqual(['windowed cuts']);
            }
            if (query === several) {
              // Per parent where SQLite reads each one's relationships' ranges; PostgreSQL has none, and cuts.
              expect(merged.forms).toEqual([kind === 'sqlite' ? 'per parent' : 'windowed cuts']);
              // Each parent's eight ranges: on SQLite per parent, on PostgreSQL in the cut every parent's lateral reads.
              expect(merged.armRelationships).toBe(kind === 'sqlite' ? busiest.length * 8 : 8);
              expect(sorted.armRelationships).toBe(0);
            }
          }
          // The nested page of one parent is the root's.
          const nested = (await asked(one, true)).data as { asn: { asnLinks: unknown } };
          const rootPage = (await asked(root, true)).data as { asnLinks: unknown };
          expect([one, nested.asn.asnLinks]).toEqual([one, rootPage.asnLinks]);
        }
    expect(compared).toBeGreaterThan(200);
  });

  it("cuts a batch's parents of many links by relationship from their ranges and the others sorted, the same pages", async () => {
    const latest = store.dates.at(-1)!;
    // More parents than read per parent on SQLite, some busy and some of a few links.
    const parents = await store.handle.db
      .selectFrom('asns')
      .select(['asn', 'number_asn_links'])
      .where('date', '=', latest)
      .where('number_asn_links', '>', 0)
      .orderBy('number_asn_links', 'desc')
      .orderBy('asn')
      .execute();
    const chosen = [
      ...parents.slice(0, nestedPageTuning.perParentBesideCuts),
      ...parents.slice(-nestedPageTuning.perParentBesideCuts),
    ];
    const linkCounts = chosen.map((row) => Number(row.number_asn_links));
    const threshold = linkCounts[nestedPageTuning.perParentBesideCuts - 2]!;
    const ranged = linkCounts.filter((links) => links >= threshold).length;
    // Both cuts in the batch.
    expect(ranged).toBeGreaterThan(0);
    expect(ranged).toBeLessThan(chosen.length);
    let compared = 0;
    for (const sort of ['relationship', '-relationship'])
      for (const offset of [0, 2, threshold - 1]) {
        const query = `{ asns(asns: [${chosen.map((row) => `"${row.asn}"`).join(', ')}], sort: "asn") { edges { node {
          asn asnLinks(first: 4, offset: ${offset}, sort: "${sort}") { edges { node { asn1 { asn } relationship } } } } } } }`;
        const asked = async (
          ranges: boolean,
          relationshipRangesFrom = threshold,
          relationshipRangesPerEnd = 0,
        ) => {
          Object.assign(linkPageTuning, {
            parentRelationshipRanges: ranges,
            relationshipRangesFrom,
            relationshipRangesPerEnd,
          });
          const trees: string[] = [];
          const kept = throughPlugin(store.handle, {
            transformQuery: (transformed) => {
              trees.push(JSON.stringify(transformed.node));
              return transformed.node;
            },
            transformResult: async (transformed) => transformed.result,
          });
          const data = await queryData<LinksOfAsns>(kept, query);
          const page = trees.find((tree) => tree.includes('position_in_parent')) ?? '';
          return { data, arms: (page.match(/"value":"(customer|peer|provider|sibling)"/g) ?? []).length };
        };
        const withRanges = await asked(true);
        const sorted = await asked(false);
        // The ranged parents' cut, written once for all of them (eight ranges), beside the others' sorted cut.
        expect([sort, offset, withRanges.data]).toEqual([sort, offset, sorted.data]);
        expect({ sort, offset, arms: withRanges.arms }).toEqual({ sort, offset, arms: 8 });
        expect(sorted.arms).toBe(0);
        // No parent of that many links: no ranges.
        expect((await asked(true, Math.max(...linkCounts) + 1)).arms).toBe(0);
        // On PostgreSQL the threshold also grows with the page's end: past the busiest parent's links, no ranges, and
        // at the threshold's parents' links the same ranges as above. SQLite ranges at every depth.
        const end = offset + 4;
        const pastEveryParent = await asked(true, 0, Math.floor(Math.max(...linkCounts) / end) + 1);
        expect({ offset, arms: pastEveryParent.arms }).toEqual({ offset, arms: kind === 'sqlite' ? 8 : 0 });
        const atThreshold = await asked(true, 0, threshold / end);
        expect({ offset, arms: atThreshold.arms }).toEqual({ offset, arms: 8 });
        for (const asked of [pastEveryParent, atThreshold])
          expect([sort, offset, asked.data]).toEqual([sort, offset, sorted.data]);
        compared += JSON.stringify(sorted.data).split('"asn1"').length - 1;
      }
    expect(compared).toBeGreaterThan(50);
  });

  it('reads a batch larger than the per-parent bound windowed', async () => {
    nestedPageTuning.windowedCuts = false;
    const { forms, data } = await pagesIn(
      `{ asns(first: 30, sort: "asn") { edges { node { asn asnLinks(first: 2) { edges { node { asn1 { asn } } } } } } } }`,
      10,
    );
    expect(data.asns.edges).toHaveLength(30);
    expect(forms).toEqual(['windowed']);
  });

  it('reads with the cuts every batch but a few parents whose rows come in stretches of their own', async () => {
    const latest = store.dates.at(-1)!;
    const busiest = await busiestAsns(store.handle, latest, nestedPageTuning.perParentBesideCuts + 1);
    const pages = (parents: readonly { asn: number | string }[], sort: string) =>
      pagesIn(
        `{ asns(asns: [${parents.map((row) => `"${row.asn}"`).join(', ')}], sort: "asn") { edges { node { asn
          asnLinks(first: 3, offset: 2${sort}) { totalCount edges { node { asn1 { asn } relationship } } } } } } }`,
        defaultTuning.perParentMaxParents,
      );
    const few = busiest.slice(0, 4);
    // By relationship SQLite reads each parent's relationships' ranges (parentRows); PostgreSQL has no such stretches.
    const byRelationship = await pages(few, ', sort: "relationship"');
    expect(byRelationship.forms).toEqual([kind === 'sqlite' ? 'per parent' : 'windowed cuts']);
    // More parents than perParentBesideCuts, or an order without stretches: the cuts.
    const many = await pages(busiest, ', sort: "relationship"');
    expect(many.forms).toEqual(['windowed cuts']);
    const plain = await pages(few, ', sort: "-asn1"');
    expect(plain.forms).toEqual(['windowed cuts']);
    // Each the same pages as windowed without the cuts.
    for (const [asked, parents, sort] of [
      [byRelationship, few, ', sort: "relationship"'],
      [many, busiest, ', sort: "relationship"'],
      [plain, few, ', sort: "-asn1"'],
    ] as const) {
      nestedPageTuning.windowedCuts = false;
      const uncut = await pages(parents, sort);
      nestedPageTuning.windowedCuts = true;
      expect(uncut.forms).toEqual(['per parent']);
      expect([sort, asked.data]).toEqual([sort, uncut.data]);
    }
    expect(JSON.stringify(many.data).split('"asn1"').length - 1).toBeGreaterThan(20);
  });

  it("answers an organization's neighbour and link totals alone from the counts its row keeps", async () => {
    interface Totals {
      organizations: {
        edges: {
          node: { orgId: string; neighbors: { totalCount: number }; asnLinks: { totalCount: number } };
        }[];
      };
    }
    const totalsOf = async (nested: string) => {
      // Statements reading nested totals by parent (keptOrganizationCounts).
      const recorder = new StatementCounter(
        (tree) => tree.includes('"parent_key"') && tree.includes('"total"'),
      );
      const data = await queryData<Totals>(
        throughPlugin(store.handle, recorder),
        `{ organizations(first: 40) { edges { node { orgId neighbors(first: 1) { ${nested} }
          asnLinks(first: 1) { ${nested} } } } } }`,
      );
      const totals = data.organizations.edges.map(({ node }) => [
        node.orgId,
        node.neighbors.totalCount,
        node.asnLinks.totalCount,
      ]);
      return { totals, read: recorder.executed };
    };
    const fromRows = await totalsOf('totalCount');
    const byKey = await totalsOf('totalCount edges { node { __typename } }');
    expect(fromRows.read).toBe(0);
    expect(byKey.read).toBe(2);
    expect(fromRows.totals).toEqual(byKey.totals);
    expect(fromRows.totals.some(([, neighbors, links]) => Number(neighbors) > 0 && Number(links) > 0)).toBe(
      true,
    );
    // The sort is still checked, though no statement reads it.
    const error = await queryError(
      store.handle,
      '{ organizations(first: 1) { edges { node { neighbors(sort: "nope") { totalCount } } } } }',
    );
    expect(error).toMatch(/sort/);
  });

  it('reads only what a nested connection shows: its rows for edges, its counts for totalCount, both for pageInfo', async () => {
    const selections = {
      both: 'totalCount edges { node { asn1 { asn } relationship } }',
      nodes: 'edges { node { asn1 { asn } relationship } }',
      total: 'totalCount',
      pageInfo: 'pageInfo { hasNextPage }',
      fragment: '...Shown',
      typename: '__typename',
    };
    const answers: Record<string, { data: LinksOfAsns; forms: string[]; counts: number }> = {};
    for (const [name, selection] of Object.entries(selections))
      answers[name] = await pagesIn(
        `{ asns(first: 30, sort: "asn") { edges { node { asn asnLinks(first: 2, offset: 1) { ${selection} } } } } }
        fragment Shown on AsnLinkConnection { totalCount edges { node { asn1 { asn } } } }`.replace(
          selection === '...Shown' ? '' : /fragment Shown[^}]*}[^}]*}[^}]*}[^}]*}/,
          '',
        ),
        10,
      );
    const read = Object.fromEntries(
      Object.entries(answers).map(([name, { forms, counts }]) => [name, { forms, counts }]),
    );
    expect(read).toEqual({
      both: { forms: ['windowed cuts'], counts: 1 },
      fragment: { forms: ['windowed cuts'], counts: 1 },
      nodes: { forms: ['windowed cuts'], counts: 0 },
      total: { forms: [], counts: 1 },
      pageInfo: { forms: ['windowed cuts'], counts: 1 },
      typename: { forms: [], counts: 0 },
    });
    const linksOf = (name: string) => answers[name]!.data.asns.edges.map((edge) => edge.node.asnLinks);
    const both = linksOf('both');
    expect(both.some((links) => links.totalCount > 3)).toBe(true);
    expect(linksOf('nodes')).toEqual(both.map(({ edges }) => ({ edges })));
    expect(linksOf('total')).toEqual(both.map(({ totalCount }) => ({ totalCount })));
    expect(linksOf('pageInfo')).toEqual(
      both.map(({ totalCount }) => ({ pageInfo: { hasNextPage: totalCount > 3 } })),
    );
  });

  it("pages several ASes' links by a path count from each one's valued range and the rest by the pair, as uncut", async () => {
    // The sample's links carry no path count: one in eight gets one here, with ties, the same on both of a link's rows
    // (taken back after), so a busy parent's first links by `-numberPaths` hold valued links and then unvalued ones.
    const latest = store.dates.at(-1)!;
    const { db } = store.handle;
    const busiest = await busiestAsns(store.handle, latest, nestedPageTuning.perParentBesideCuts + 2);
    const largest = Number(busiest[0]!.degree_total);
    await db
      .updateTable('asn_links')
      .set({
        number_paths: sql<number | null>`case when (asn0 + asn1) % 8 = 0 then (asn0 + asn1) % 5 + 1 end`,
      })
      .where('date', '=', latest)
      .execute();
    await keepListedLinkParts(store.handle);
    try {
      let compared = 0;
      for (const sort of ['-numberPaths', 'numberPaths'])
        for (const offset of [0, 3, Math.floor(largest / 8), Math.floor(largest / 2)]) {
          const query = `{ asns(asns: [${busiest.map((row) => `"${row.asn}"`).join(', ')}], sort: "asn") { edges {
            node { asn asnLinks(first: 5, offset: ${offset}, sort: "${sort}") { edges { node { asn1 { asn }
            numberPaths } } } } } } }`;
          const cut = await pagesIn(query, 0);
          nestedPageTuning.windowedCuts = false;
          const uncut = await pagesIn(query, 0);
          nestedPageTuning.windowedCuts = true;
          expect(cut.forms).toEqual(['windowed cuts']);
          expect(uncut.forms).toEqual(['windowed']);
          expect([query, cut.data]).toEqual([query, uncut.data]);
          const paths = cut.data.asns.edges.flatMap((edge) =>
            edge.node.asnLinks.edges.map((link) => link.node['numberPaths']),
          );
          // Pages of valued links and of unvalued ones both.
          if (offset === 0 && sort === '-numberPaths')
            expect(paths.some((count) => count !== null)).toBe(true);
          compared += paths.length;
        }
      expect(compared).toBeGreaterThan(100);
    } finally {
      await db.updateTable('asn_links').set({ number_paths: null }).where('date', '=', latest).execute();
      await keepListedLinkParts(store.handle);
    }
  });
});
