// A deep page of links reads its keys from the order's index before its rows, a shallow one over several months one
// arm per month (per relationship, from the links' reversed rows by asn1, split at the corrected links by correctedBy);
// the pages are the same as with one ORDER BY ... OFFSET over whole rows, for every sort, with and without asn1's
// fields, for one month and several, on SQLite and PostgreSQL.
import { sql } from 'kysely';
import { LINK_RELATIONSHIPS } from '@asrank/domain';
import { createStoreFacts, linkPageTuning, monthByMonthTuning } from '../src';
import { pageBookmarksTuning } from '../src/pageBookmarks';
import { mergedArms, monthArmsTuning, planLineSorts, servedByIndex } from '../src/monthArms';
import {
  LOAD_TIMEOUT_MS,
  asnsOfMonth,
  busiestAsns,
  withLoadedStore,
  queryData,
  STORE_KINDS,
  type LoadedStore,
  keepListedLinkParts,
} from './support/store';
import { RunStatements, StatementCounter, throughPlugin } from './support/statementCounter';

jest.setTimeout(LOAD_TIMEOUT_MS);

interface LinkPage {
  asnLinks: { edges: { node: Record<string, unknown> }[] };
}

/** An arm of every link of the store's latest month in `order` (SQL), cut at 30. */
function latestMonthArm(store: LoadedStore, order: string) {
  return store.handle.db
    .selectFrom('asn_links')
    .select(['date', 'asn0', 'asn1'])
    .where('date', '=', store.dates.at(-1)!)
    .where('canonical', '=', 1)
    .orderBy(sql.raw(order))
    .limit(30);
}

/**
 * `handle` with each statement's query tree (as JSON) kept in `trees`, and the relationship values a tree binds (an
 * arm or a part a relationship at a time binds its relationship).
 */
function keepingTrees(handle: LoadedStore['handle']) {
  const trees: string[] = [];
  const kept = throughPlugin(handle, {
    transformQuery: (args) => {
      trees.push(JSON.stringify(args.node));
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  return { handle: kept, trees };
}

/**
 * `handle` counting the statements that read one AS's stretch of links with a value (`is not null`); the month's count
 * of its valued links, on their canonical rows, which says whether there are any, is not one of them.
 */
function countingValuedStretches(handle: LoadedStore['handle']) {
  const stretches = new StatementCounter(
    (tree) => tree.includes('"is not"') && !tree.includes('"canonical"'),
  );
  return { stretches, handle: throughPlugin(handle, stretches) };
}

/** The months a bound value names: one, an array of them (PostgreSQL) or its JSON text (SQLite); none for others. */
function monthsIn(value: unknown): string[] {
  let list = value;
  if (typeof value === 'string' && value.startsWith('[')) list = JSON.parse(value) as unknown;
  const values = Array.isArray(list) ? list : [list];
  return values.filter(
    (item): item is string => typeof item === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(item),
  );
}

/** The statements `run` ran that read links of several months, those reading only the kept counts aside. */
function linkStatementsOverMonths(run: RunStatements): number {
  return run.statements.filter(
    (statement) =>
      !/number_asn_links|number_customer_links/.test(statement.sql) &&
      new Set(statement.parameters.flatMap(monthsIn)).size > 1,
  ).length;
}

/** The asnLinks argument for the links of `parents`: one AS's (`asn`) or a list's (`asns`). */
function linksOfArgument(parents: readonly string[]): string {
  return parents.length === 1
    ? `asn: "${parents[0]}"`
    : `asns: [${parents.map((asn) => `"${asn}"`).join(', ')}]`;
}

/** How many relationship values `tree` binds. */
function relationshipValuesIn(tree: string): number {
  return (tree.match(/"value":"(customer|peer|provider|sibling)"/g) ?? []).length;
}

describe.each(STORE_KINDS)('deep link pages on %s', (kind) => {
  let store: LoadedStore;

  withLoadedStore(kind, (opened) => (store = opened), linkPageTuning, monthByMonthTuning, monthArmsTuning);

  /** Asks `query` with every row skipped and with the keys read first, expects the same page, returns its size. */
  async function expectKeyedPageAsSkipped(query: string): Promise<number> {
    Object.assign(linkPageTuning, {
      keyedPageMinOffset: Number.MAX_SAFE_INTEGER,
      keyedOverSeveralMonths: false,
      keysFromOtherEnd: false,
    });
    monthByMonthTuning.enabled = false;
    monthArmsTuning.enabled = false;
    const skipped = await queryData<LinkPage>(store.handle, query);
    Object.assign(linkPageTuning, {
      keyedPageMinOffset: 0,
      keyedOverSeveralMonths: true,
      keysFromOtherEnd: true,
    });
    monthByMonthTuning.enabled = true;
    monthArmsTuning.enabled = true;
    const keyed = await queryData<LinkPage>(store.handle, query);
    expect([query, keyed.asnLinks.edges]).toEqual([query, skipped.asnLinks.edges]);
    return skipped.asnLinks.edges.length;
  }

  /** The latest month's three busiest ASNs (the busiest first) and its two least as a list, and the busiest's links. */
  async function busyAndQuietList(): Promise<{ listed: string[]; degree: number }> {
    const latest = store.dates.at(-1)!;
    const busiest = await busiestAsns(store.handle, latest, 3);
    return {
      listed: [...busiest.map((row) => String(row.asn)), ...(await asnsOfMonth(store.handle, latest, 2))],
      degree: Number(busiest[0]!.degree_total),
    };
  }

  /** Every link of `month`, each once (asnLinks without `asn`). */
  async function linksIn(month: string): Promise<number> {
    const links = await store.handle.db
      .selectFrom('asn_links')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('date', '=', month)
      .where('canonical', '=', 1)
      .executeTakeFirstOrThrow();
    return Number(links.n);
  }

  it('pages every link the same whether the keys are read first or the rows are skipped', async () => {
    const latest = store.dates.at(-1)!;
    const total = await linksIn(latest);
    expect(total).toBeGreaterThan(300);
    const offsets = [1, 137, Math.floor(total / 2), total - 5, total + 10];
    const interval = `, dateStart: "${store.dates[0]}", dateEnd: "${latest}"`;
    let compared = 0;
    // By asn1 the keys come from the links' reversed rows, and the pages must be those of the canonical rows.
    for (const sort of [
      null,
      '-numberPaths',
      'relationship,-asn1',
      'correctedBy',
      'asn1',
      '-asn1',
      'asn1,-numberPaths',
      '-asn1,-asn0',
      '-relationship',
    ])
      for (const [months, selection] of [
        ['', 'asn0 { asn } asn1 { asn } relationship numberPaths rank date'],
        ['', 'asn1 { asn asnName rank cone { numberAsns } } numberPaths'],
        [interval, 'date asn0 { asn } asn1 { asn } correctedBy'],
      ] as const)
        for (const offset of offsets) {
          const query = `{ asnLinks(first: 40, offset: ${offset}${sort ? `, sort: "${sort}"` : ''}${months}) {
            edges { node { ${selection} } } } }`;
          compared += await expectKeyedPageAsSkipped(query);
        }
    // Most of those pages hold links (the last offset is past the end on purpose).
    expect(compared).toBeGreaterThan(2000);
  });

  it("pages every link of one month by the pair from the month's bookmarks, as the rows skipped order them", async () => {
    const latest = store.dates.at(-1)!;
    const total = await linksIn(latest);
    // Bookmarks every 5 links, so that the sample's pages cross many.
    const facts = createStoreFacts(store.handle, undefined, { step: 5, linkStep: 5, waitedHops: 1e9 });
    let compared = 0;
    for (const sort of ['asn0', 'asn0,asn1'])
      for (const offset of [5, 6, 137, Math.floor(total / 2), total - 5, total + 10]) {
        const query = `{ asnLinks(first: 40, offset: ${offset}, sort: "${sort}") {
          edges { node { asn0 { asn } asn1 { asn } relationship } } } }`;
        linkPageTuning.keyedPageMinOffset = Number.MAX_SAFE_INTEGER;
        const skipped = await queryData<LinkPage>(store.handle, query);
        linkPageTuning.keyedPageMinOffset = 0;
        const bookmarked = await queryData<LinkPage>(store.handle, query, undefined, facts);
        expect([query, bookmarked.asnLinks.edges]).toEqual([query, skipped.asnLinks.edges]);
        compared += skipped.asnLinks.edges.length;
      }
    expect(compared).toBeGreaterThan(300);
    // The pages started from the month's bookmarks (before, none: an OFFSET walked the pair's index every time).
    expect(facts.pageBookmarks.count()).toBeGreaterThan(total / 5 / 2);
  });

  it("pages every link of one month by -asn0, asn1, -asn1 or correctedBy from the month's bookmarks, as the rows skipped order them", async () => {
    const latest = store.dates.at(-1)!;
    const total = await linksIn(latest);
    const facts = createStoreFacts(store.handle, undefined, { step: 5, linkStep: 5, waitedHops: 1e9 });
    let compared = 0;
    // By asn1 the keys come from the links' reversed rows, by asn0 descending from the canonical ones; by correctedBy
    // the uncorrected links (here every link) from the month's bookmarks of those by the pair.
    for (const sort of ['-asn0', 'asn1', '-asn1', 'correctedBy']) {
      const bookmarksBefore = facts.pageBookmarks.count();
      for (const offset of [5, 6, 137, Math.floor(total / 2), total - 5, total + 10]) {
        const query = `{ asnLinks(first: 40, offset: ${offset}, sort: "${sort}") {
          edges { node { asn0 { asn } asn1 { asn } relationship numberPaths } } } }`;
        Object.assign(linkPageTuning, {
          keyedPageMinOffset: Number.MAX_SAFE_INTEGER,
          keysFromOtherEnd: false,
        });
        const skipped = await queryData<LinkPage>(store.handle, query);
        Object.assign(linkPageTuning, { keyedPageMinOffset: 0, keysFromOtherEnd: true });
        const bookmarked = await queryData<LinkPage>(store.handle, query, undefined, facts);
        expect([query, bookmarked.asnLinks.edges]).toEqual([query, skipped.asnLinks.edges]);
        compared += skipped.asnLinks.edges.length;
      }
      // The order's pages started from the month's bookmarks (before, none: an OFFSET walked the index every time).
      const found = facts.pageBookmarks.count() - bookmarksBefore;
      expect([sort, found > total / 5 / 2]).toEqual([sort, true]);
    }
    expect(compared).toBeGreaterThan(4 * 150);
  });

  it('pages every link of several months the same month by month, in orders that start with the month', async () => {
    const months = store.dates;
    expect(months.length).toBeGreaterThan(1);
    const perMonth: number[] = [];
    for (const month of months) perMonth.push(await linksIn(month));
    const total = perMonth.reduce((sum, n) => sum + n, 0);
    // Pages that start in each month, end in the next, start exactly at a month's first link, and lie past the end.
    const offsets = [
      0,
      3,
      perMonth[0]! - 7,
      perMonth[0]!,
      perMonth[0]! + 11,
      total - perMonth.at(-1)! - 2,
      total - 4,
      total,
    ];
    const interval = `, dateStart: "${months[0]}", dateEnd: "${months.at(-1)}"`;
    let compared = 0;
    for (const sort of [
      null,
      'date',
      '-date',
      'date,-numberPaths',
      '-date,relationship,-asn1',
      'date,correctedBy',
    ])
      for (const offset of offsets) {
        const query = `{ asnLinks(first: 25, offset: ${offset}${sort ? `, sort: "${sort}"` : ''}${interval}) {
          totalCount edges { node { date asn0 { asn } asn1 { asn asnName } relationship numberPaths rank } } } }`;
        compared += await expectKeyedPageAsSkipped(query);
      }
    expect(compared).toBeGreaterThan(6 * 6 * 25 - 100);
  });

  it('pages every link by relationship alone block by block as one statement orders them', async () => {
    // Blocks at every offset (no arms), against one statement (no blocks).
    monthArmsTuning.enabled = false;
    const counts = await store.handle.db
      .selectFrom('asn_links')
      .select(['date', 'relationship', (eb) => eb.fn.countAll<number>().as('links')])
      .where('canonical', '=', 1)
      .groupBy(['date', 'relationship'])
      .execute();
    expect(new Set(counts.map((count) => count.relationship)).size).toBeGreaterThan(1);
    let compared = 0;
    for (const months of [store.dates, [store.dates.at(-1)!]]) {
      const interval = months.length > 1 ? `, dateStart: "${months[0]}", dateEnd: "${months.at(-1)}"` : '';
      // Over several months then by the month too, either way (blocks at every depth, no arms).
      const sorts = [
        'relationship',
        '-relationship',
        ...(months.length > 1 ? ['relationship,-date', '-relationship,date'] : []),
      ];
      for (const sort of sorts) {
        // Pages that start at, just before and just after every block's first link, in the sort's order of blocks.
        const monthsDescending = sort.endsWith('-date');
        const blocks = counts
          .filter((count) => months.includes(count.date))
          .sort(
            (a, b) =>
              (sort.startsWith('-') ? -1 : 1) *
                (a.relationship < b.relationship ? -1 : a.relationship > b.relationship ? 1 : 0) ||
              (monthsDescending ? -1 : 1) * (a.date < b.date ? -1 : 1),
          );
        const offsets = [0];
        for (const block of blocks) offsets.push(offsets.at(-1)! + Number(block.links));
        const total = offsets.at(-1)!;
        for (const offset of [...offsets.flatMap((start) => [start - 3, start, start + 2]), total + 5].filter(
          (offset) => offset >= 0,
        )) {
          const query = `{ asnLinks(first: 7, offset: ${offset}, sort: "${sort}"${interval}) {
            totalCount edges { node { date asn0 { asn } asn1 { asn } relationship } } } }`;
          linkPageTuning.relationshipBlocks = false;
          const single = await queryData<LinkPage>(store.handle, query);
          linkPageTuning.relationshipBlocks = true;
          const run = new RunStatements(store.handle);
          const blockwise = await queryData<LinkPage>(throughPlugin(store.handle, run), query);
          expect([query, blockwise]).toEqual([query, single]);
          // Then by the month, every page block by block: no statement sorts links by relationship.
          if (sort.includes(','))
            expect([
              query,
              run.statements.filter((statement) => /order by "relationship"/.test(statement.sql)),
            ]).toEqual([query, []]);
          compared += single.asnLinks.edges.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(100);
  });

  it("pages one ASN's links the same whether the keys are read first or the rows are skipped", async () => {
    const latest = store.dates.at(-1)!;
    const [busiest] = await busiestAsns(store.handle, latest, 1);
    const degree = Number(busiest!.degree_total);
    expect(degree).toBeGreaterThan(20);
    let compared = 0;
    for (const sort of [null, '-numberPaths', 'relationship,-numberPaths'])
      for (const offset of [1, Math.floor(degree / 3), degree - 3, degree + 5]) {
        const query = `{ asnLinks(asn: "${busiest!.asn}", first: 15, offset: ${offset}${sort ? `, sort: "${sort}"` : ''}) {
          edges { node { asn1 { asn asnName } relationship numberPaths } } } }`;
        compared += await expectKeyedPageAsSkipped(query);
      }
    expect(compared).toBeGreaterThan(60);
  });

  it("pages one AS's links and a list's over several months month by month from their kept totals", async () => {
    const months = store.dates;
    expect(months.length).toBeGreaterThan(1);
    const latest = months.at(-1)!;
    const { listed } = await busyAndQuietList();
    let compared = 0;
    for (const parents of [[listed[0]!], listed]) {
      const argument = linksOfArgument(parents);
      const perMonth: number[] = [];
      for (const month of months) {
        const row = await store.handle.db
          .selectFrom('asns')
          .select((eb) => eb.fn.sum<number | string>('number_asn_links').as('links'))
          .where('date', '=', month)
          .where('asn', 'in', parents.map(Number))
          .executeTakeFirstOrThrow();
        perMonth.push(Number(row.links ?? 0));
      }
      const total = perMonth.reduce((sum, links) => sum + links, 0);
      const offsets = [0, 3, perMonth[0]! - 2, perMonth[0]!, perMonth[0]! + 5, total - 3, total + 2];
      for (const sort of [null, 'date', '-date', 'date,-asn1', '-date,numberPaths,relationship'])
        for (const offset of offsets) {
          const query = `{ asnLinks(${argument}, dateStart: "${months[0]}", dateEnd: "${latest}", first: 6,
            offset: ${offset}${sort ? `, sort: "${sort}"` : ''}) { totalCount edges { node { date asn0 { asn }
            asn1 { asn } relationship numberPaths } } } }`;
          // The walk's first month (the latest by a descending date): a page past its links reads none of them.
          const descending = sort?.startsWith('-') === true;
          const [walkFirst, walkFirstLinks] = descending
            ? [latest, perMonth.at(-1)!]
            : [months[0]!, perMonth[0]!];
          const asked = async (byMonth: boolean) => {
            linkPageTuning.keptTotalsMonthByMonth = byMonth;
            const run = new RunStatements(store.handle);
            const data = await queryData<LinkPage & { asnLinks: { totalCount: number } }>(
              throughPlugin(store.handle, run),
              query,
            );
            // Statements that read links of that month (alone or among others), the kept totals aside.
            const readFirst = run.statements.filter(
              (statement) =>
                !statement.sql.includes('number_asn_links') &&
                statement.parameters.some((value) => monthsIn(value).includes(walkFirst)),
            ).length;
            return { data, readFirst };
          };
          const oneStatement = await asked(false);
          const monthByMonth = await asked(true);
          expect([query, monthByMonth.data]).toEqual([query, oneStatement.data]);
          expect([query, oneStatement.data.asnLinks.totalCount]).toEqual([query, total]);
          if (offset >= walkFirstLinks && offset < total)
            expect([query, oneStatement.readFirst > 0, monthByMonth.readFirst]).toEqual([query, true, 0]);
          compared += monthByMonth.data.asnLinks.edges.length;
        }
    }
    expect(compared).toBeGreaterThan(2 * 5 * 5 * 6 - 60);
  });

  it("pages one AS's links and a list's by relationship block by block, each block's size as its rows keep it", async () => {
    const months = store.dates;
    expect(months.length).toBeGreaterThan(1);
    const latest = months.at(-1)!;
    const { listed } = await busyAndQuietList();
    const relationships = [...LINK_RELATIONSHIPS].sort();
    let compared = 0;
    for (const parents of [[listed[0]!], listed]) {
      const argument = linksOfArgument(parents);
      // Each relationship's links of each month, counted from the links: the blocks' bounds by `relationship`.
      const counted = await store.handle.db
        .selectFrom('asn_links')
        .select(['date', 'relationship', (eb) => eb.fn.countAll<number | string>().as('links')])
        .where('asn0', 'in', parents.map(Number))
        .groupBy(['date', 'relationship'])
        .execute();
      const linksOf = new Map(counted.map((row) => [`${row.relationship}|${row.date}`, Number(row.links)]));
      const bounds: number[] = [];
      let total = 0;
      for (const relationship of relationships)
        for (const month of months) {
          const links = linksOf.get(`${relationship}|${month}`) ?? 0;
          if (links > 0) bounds.push((total += links));
        }
      expect(bounds.length).toBeGreaterThan(2);
      const offsets = [0, 3, bounds[0]! - 2, bounds[0]!, bounds[0]! + 5, bounds[1]!, total - 3, total + 2];
      const intervals = [
        {
          months: `dateStart: "${months[0]}", dateEnd: "${latest}"`,
          sorts: [
            'relationship',
            '-relationship',
            'relationship,-date',
            '-relationship,date',
            'relationship,date',
          ],
        },
        // One month deep (every page here, with the keyed pages' offset at 0).
        { months: `dateStart: "${latest}", dateEnd: "${latest}"`, sorts: ['relationship', '-relationship'] },
      ];
      // Every page by blocks, however few links (the sample's ASes have fewer than a generated month's).
      Object.assign(linkPageTuning, { keyedPageMinOffset: 0, keptRelationshipBlocksFrom: 0 });
      for (const interval of intervals)
        for (const sort of interval.sorts)
          for (const offset of offsets) {
            const query = `{ asnLinks(${argument}, ${interval.months}, sort: "${sort}", first: 6, offset: ${offset})
              { totalCount edges { node { date asn0 { asn } asn1 { asn asnName } relationship numberPaths } } } }`;
            const asked = async (blocks: boolean) => {
              linkPageTuning.keptRelationshipBlocks = blocks;
              const run = new RunStatements(store.handle);
              const data = await queryData<LinkPage>(throughPlugin(store.handle, run), query);
              // The kept counts' statements: the blocks' sizes give the months' totals too.
              const keptReads = run.statements.filter((statement) =>
                /number_(asn|customer)_links/.test(statement.sql),
              ).length;
              return { data, overMonths: linkStatementsOverMonths(run), keptReads };
            };
            const arms = await asked(false);
            const blocks = await asked(true);
            expect([query, blocks.data]).toEqual([query, arms.data]);
            expect([query, blocks.keptReads]).toEqual([query, 1]);
            if (interval === intervals[0] && offset < total)
              expect([query, arms.overMonths > 0, blocks.overMonths]).toEqual([query, true, 0]);
            compared += blocks.data.asnLinks.edges.length;
          }
      // A page across the first two blocks, where one block a page is allowed, and of fewer links than the blocks are
      // read from: each read from the arms, the same page.
      const across = `{ asnLinks(${argument}, ${intervals[0]!.months}, sort: "relationship", first: 6,
        offset: ${bounds[0]! - 2}) { edges { node { date asn0 { asn } asn1 { asn } relationship } } } }`;
      const byBlocks = await queryData(store.handle, across);
      for (const tuning of [
        { keptRelationshipBlocksPerPage: 1, keptRelationshipLinksPerBlock: Infinity },
        { keptRelationshipBlocksFrom: total + 1 },
      ]) {
        const kept = { ...linkPageTuning };
        Object.assign(linkPageTuning, tuning);
        const run = new RunStatements(store.handle);
        expect(await queryData(throughPlugin(store.handle, run), across)).toEqual(byBlocks);
        expect(linkStatementsOverMonths(run)).toBeGreaterThan(0);
        Object.assign(linkPageTuning, kept);
      }
    }
    expect(compared).toBeGreaterThan(2 * 7 * 6 * 4);
  });

  it("pages a list's links of one month by ASN first from each AS's own cut, as one statement orders them", async () => {
    const { listed, degree } = await busyAndQuietList();
    let compared = 0;
    for (const sort of [
      'asn0',
      '-asn0',
      'asn0,-asn1',
      '-asn0,numberPaths',
      'asn0,relationship,-asn1',
      'asn1',
    ])
      for (const offset of [0, 4, degree, degree * 3]) {
        const query = `{ asnLinks(asns: [${listed.map((asn) => `"${asn}"`).join(', ')}], first: 7, offset: ${offset},
          sort: "${sort}") { totalCount edges { node { asn0 { asn } asn1 { asn asnName } relationship numberPaths } } } }`;
        const asked = async (cuts: boolean) => {
          linkPageTuning.listAsnCuts = { postgres: cuts, sqlite: cuts };
          const run = new RunStatements(store.handle);
          const data = await queryData<LinkPage>(throughPlugin(store.handle, run), query);
          // perAsnCuts: a LATERAL subquery per AS on PostgreSQL, the links of each listed AS by its cut on SQLite.
          const cut = run.statements.some(
            (statement) =>
              statement.sql.includes('cross join lateral') ||
              statement.sql.includes('cross join asn_links l'),
          );
          return { data, cut };
        };
        const whole = await asked(false);
        const cut = await asked(true);
        expect([sort, offset, cut.data]).toEqual([sort, offset, whole.data]);
        expect({ sort, offset, cut: cut.cut, whole: whole.cut }).toEqual({
          sort,
          offset,
          cut: sort.replace('-', '').startsWith('asn0'),
          whole: false,
        });
        compared += whole.data.asnLinks.edges.length;
      }
    expect(compared).toBeGreaterThan(6 * 2 * 7);
  });

  it("pages a list's links by relationship from each AS's ranges, the same as by relationship arms", async () => {
    const { listed, degree } = await busyAndQuietList();
    let compared = 0;
    for (const sort of ['relationship', '-relationship'])
      for (const offset of [0, 4, degree, degree * 3]) {
        const query = `{ asnLinks(asns: [${listed.map((asn) => `"${asn}"`).join(', ')}], first: 7, offset: ${offset},
          sort: "${sort}") { totalCount edges { node { asn0 { asn } asn1 { asn asnName } relationship } } } }`;
        const asked = async (ranges: boolean, rangeRows = Number.MAX_SAFE_INTEGER) => {
          Object.assign(linkPageTuning, {
            listRelationshipRanges: ranges,
            listRelationshipRangeRows: { postgres: rangeRows, sqlite: rangeRows },
          });
          const { handle, trees } = keepingTrees(store.handle);
          const data = await queryData<LinkPage>(handle, query);
          // Each listed AS's ranges bind its relationships in the statement (eight), the arms one a relationship.
          const page = trees.find((tree) => tree.includes('"limit"') && relationshipValuesIn(tree) > 0) ?? '';
          return { data, ranged: relationshipValuesIn(page) === 8 };
        };
        const arms = await asked(false);
        const ranges = await asked(true);
        expect([sort, offset, ranges.data]).toEqual([sort, offset, arms.data]);
        expect({ offset, ranged: ranges.ranged, arms: arms.ranged }).toEqual({
          offset,
          ranged: true,
          arms: false,
        });
        // More of the list's first links than the ranges read at most: the arms.
        const past = await asked(true, listed.length * (offset + 7) - 1);
        expect(past.ranged).toBe(false);
        expect([sort, offset, past.data]).toEqual([sort, offset, arms.data]);
        compared += arms.data.asnLinks.edges.length;
      }
    expect(compared).toBeGreaterThan(20);
  });

  it('answers the neighbour pages of several ASNs and months alike from the statement compiled for their shape', async () => {
    // On SQLite a shallow page of one ASN's neighbours runs SQL compiled once per shape with the month, ASN and page
    // bound; a keyed page is built every time. One handle, so later pages reuse what the first compiled.
    const [first, latest] = [store.dates[0]!, store.dates.at(-1)!];
    const neighbours = await busiestAsns(store.handle, latest, 3);
    let compared = 0;
    for (const { asn } of neighbours)
      for (const months of ['', `, dateStart: "${first}", dateEnd: "${first}"`])
        // By relationship the compiled page merges each relationship's canonical and reversed links (neighbourPage).
        for (const sort of [null, '-numberPaths', 'relationship', '-relationship'])
          for (const offset of [0, 2, 7]) {
            compared += await expectKeyedPageAsSkipped(
              `{ asnLinks(asn: "${asn}", first: 6, offset: ${offset}${
                sort ? `, sort: "${sort}"` : ''
              }${months}) { edges { node { date asn1 { asn asnName rank cone { numberAsns } } numberPaths } } } }`,
            );
          }
    expect(compared).toBeGreaterThan(200);
  });

  // Before the tests below give links path counts and corrections: the sample's links carry none.
  it("pages one ASN's links by a nullable column alone as by asn1 when no link of the month has a value", async () => {
    const latest = store.dates.at(-1)!;
    const busiest = await busiestAsns(store.handle, latest, 2);
    const [asn, otherAsn] = busiest.map((row) => Number(row.asn)) as [number, number];
    const degree = Number(busiest[0]!.degree_total);
    const { valued } = await store.handle.db
      .selectFrom('asn_links')
      .select((eb) => eb(eb.fn.count('number_paths'), '+', eb.fn.count('corrected_by')).as('valued'))
      .where('date', '=', latest)
      .executeTakeFirstOrThrow();
    expect(Number(valued)).toBe(0);
    const { stretches, handle } = countingValuedStretches(store.handle);
    const node = 'edges { node { asn1 { asn asnName } relationship numberPaths correctedBy } }';
    const queries = (sort: string, offset: number, pageSize: number) => [
      `{ asnLinks(asn: "${asn}", first: ${pageSize}, offset: ${offset}, sort: "${sort}") { ${node} } }`,
      `{ asn(asn: "${asn}") { asnLinks(first: ${pageSize}, offset: ${offset}, sort: "${sort}") { ${node} } } }`,
      `{ asn(asn: "${asn}") { asnLinks(first: ${pageSize}, offset: ${offset}, sort: "${sort}") {
        edges { node { asn1 { asn } } } } } }`,
      `{ asns(asns: ["${asn}", "${otherAsn}"]) { edges { node { asnLinks(first: ${pageSize}, offset: ${offset},
        sort: "${sort}") { ${node} } } } } }`,
    ];
    let compared = 0;
    for (const sort of ['numberPaths', '-numberPaths', 'correctedBy', '-correctedBy'])
      for (const offset of [0, 3, degree - 2, degree + 3])
        for (const pageSize of [4, 60])
          for (const query of queries(sort, offset, pageSize)) {
            linkPageTuning.unvaluedByPair = false;
            const valuedApart = await queryData(handle, query);
            const before = stretches.executed;
            expect(before).toBeGreaterThan(0);
            linkPageTuning.unvaluedByPair = true;
            const byPair = await queryData(handle, query);
            expect([query, byPair]).toEqual([query, valuedApart]);
            // No stretch of valued links read, and the page is the one by asn1.
            expect([query, stretches.executed]).toEqual([query, before]);
            const byAsn1 = await queryData(handle, query.replace(`sort: "${sort}"`, 'sort: "asn1"'));
            expect([query, byPair]).toEqual([query, byAsn1]);
            compared += JSON.stringify(byPair).split('"asn1"').length - 1;
          }
    expect(compared).toBeGreaterThan(500);
  });

  it("reads organizations' links by a nullable column alone by the pair when no link of the month has a value", async () => {
    // A statement that orders links by the column: the sorted cuts of every member's links, which the pair's order
    // reads from each member's range instead. The month's count of valued links names `canonical`.
    const sortedByColumn = new StatementCounter(
      (tree) => /number_paths|corrected_by/.test(tree) && !tree.includes('"canonical"'),
    );
    const handle = throughPlugin(store.handle, sortedByColumn);
    // 40 organizations: on SQLite batches of 16 or more are cut by size class.
    const query = (
      sort: string,
      offset: number,
      pageSize: number,
    ) => `{ organizations(first: 40) { edges { node {
      orgId asnLinks(first: ${pageSize}, offset: ${offset}, sort: "${sort}") { totalCount edges { node {
        asn0 { asn } asn1 { asn asnName } relationship numberPaths correctedBy } } } } } } }`;
    let compared = 0;
    for (const sort of ['numberPaths', '-numberPaths', 'correctedBy', '-correctedBy'])
      for (const [offset, pageSize] of [
        [0, 3],
        [2, 40],
      ] as const) {
        linkPageTuning.unvaluedByPair = false;
        const sortedCuts = await queryData(handle, query(sort, offset, pageSize));
        expect(sortedByColumn.executed).toBeGreaterThan(0);
        sortedByColumn.executed = 0;
        linkPageTuning.unvaluedByPair = true;
        const byPair = await queryData(handle, query(sort, offset, pageSize));
        expect([sort, offset, byPair]).toEqual([sort, offset, sortedCuts]);
        expect([sort, offset, sortedByColumn.executed]).toEqual([sort, offset, 0]);
        const byAsn0 = await queryData(handle, query('asn0', offset, pageSize));
        expect([sort, offset, byPair]).toEqual([sort, offset, byAsn0]);
        compared += JSON.stringify(byPair).split('"asn1"').length - 1;
      }
    expect(compared).toBeGreaterThan(300);
  });

  it("pages one ASN's links by a nullable column alone, valued links then the others, as one statement orders them", async () => {
    const [first, latest] = [store.dates[0]!, store.dates.at(-1)!];
    const busiest = await busiestAsns(store.handle, latest, 2);
    const [asn, otherAsn] = busiest.map((row) => Number(row.asn)) as [number, number];
    const degree = Number(busiest[0]!.degree_total);
    // The sample's links carry no path count or correction: two in three of the busiest ASes' links get a path count
    // with ties, one in four a correction, the same on both of a link's rows (asn0 + asn1 is), in every month.
    const ofBusiest = sql<boolean>`(asn0 in (${asn}, ${otherAsn}) or asn1 in (${asn}, ${otherAsn}))`;
    await store.handle.db
      .updateTable('asn_links')
      .set({
        number_paths: sql<number | null>`case when (asn0 + asn1) % 3 <> 0 then (asn0 + asn1) % 5 + 1 end`,
        corrected_by: sql<number | null>`case when (asn0 + asn1) % 4 = 0 then 64500 + (asn0 + asn1) % 3 end`,
      })
      .where(ofBusiest)
      .execute();
    await keepListedLinkParts(store.handle);
    const valued = Number(
      (
        await store.handle.db
          .selectFrom('asn_links')
          .select((eb) => eb.fn.count<number>('number_paths').as('n'))
          .where('date', '=', latest)
          .where('asn0', '=', asn)
          .executeTakeFirstOrThrow()
      ).n,
    );
    expect(valued).toBeGreaterThan(degree / 2);
    expect(valued).toBeLessThan(degree);
    // None unless the links are read apart.
    const { stretches, handle: counted } = countingValuedStretches(store.handle);
    const nestedForms = new StatementCounter((tree) => tree.includes('position_in_parent'));
    const handle = throughPlugin(counted, nestedForms);
    const node = 'edges { node { date asn1 { asn asnName } numberPaths correctedBy } }';
    const queries = (sort: string, offset: number, pageSize: number) => [
      `{ asnLinks(asn: "${asn}", first: ${pageSize}, offset: ${offset}, sort: "${sort}") { ${node} } }`,
      `{ asnLinks(asn: "${asn}", first: ${pageSize}, offset: ${offset}, sort: "${sort}", dateStart: "${first}",
        dateEnd: "${latest}") { ${node} } }`,
      `{ asn(asn: "${asn}") { asnLinks(first: ${pageSize}, offset: ${offset}, sort: "${sort}") { ${node} } } }`,
      `{ asns(asns: ["${asn}", "${otherAsn}"]) { edges { node { asnLinks(first: ${pageSize}, offset: ${offset},
        sort: "${sort}") { ${node} } } } } }`,
    ];
    let compared = 0;
    for (const sort of ['numberPaths', '-numberPaths', 'correctedBy', '-correctedBy'])
      for (const offset of [0, 2, valued - 3, valued, valued + 1, degree - 2, degree + 3])
        for (const pageSize of [4, 60])
          for (const query of queries(sort, offset, pageSize)) {
            linkPageTuning.oneAsnValuedApart = false;
            const before = stretches.executed;
            const whole = await queryData(handle, query);
            expect(stretches.executed).toBe(before);
            linkPageTuning.oneAsnValuedApart = true;
            const nestedBefore = nestedForms.executed;
            const split = await queryData(handle, query);
            expect([query, split]).toEqual([query, whole]);
            // One parent's page with asn1's fields is two compiled neighbour pages (asn1 joined), not a nested form.
            if (query.startsWith('{ asn('))
              expect([query, nestedForms.executed]).toEqual([query, nestedBefore]);
            compared += JSON.stringify(whole).split('numberPaths').length - 1;
          }
    expect(compared).toBeGreaterThan(1000);
    // Every query above but the one-parent nested page read its valued links apart through Kysely (some pages need the
    // others only, and one statement counts them); that page reads its stretches as compiled neighbour pages, whose runs
    // Kysely's plugins do not see.
    expect(stretches.executed).toBeGreaterThanOrEqual(3 * 7 * 2 * 4);
  });
});

describe.each(STORE_KINDS)('shallow link pages over several months, one arm per month, on %s', (kind) => {
  let store: LoadedStore;

  withLoadedStore(kind, (opened) => (store = opened), linkPageTuning, monthByMonthTuning, monthArmsTuning);

  it('pages every order the same with one arm per month as with one statement over the months', async () => {
    const [first, latest] = [store.dates[0]!, store.dates.at(-1)!];
    expect(store.dates.length).toBeGreaterThan(1);
    const [busiest] = await busiestAsns(store.handle, latest, 1);
    const keys = ['asn0', 'asn1', 'numberPaths', 'relationship', 'correctedBy', 'date'];
    const sorts = [null, ...keys.flatMap((key) => [key, `-${key}`]), 'relationship,-numberPaths'];
    let compared = 0;
    for (const asn of [null, busiest!.asn])
      for (const sort of sorts)
        for (const offset of [0, 7, 95]) {
          const query = `{ asnLinks(first: 30, offset: ${offset}, dateStart: "${first}", dateEnd: "${latest}"${
            asn === null ? '' : `, asn: "${asn}"`
          }${sort ? `, sort: "${sort}"` : ''}) { edges { node { date asn0 { asn } asn1 { asn } numberPaths } } } }`;
          monthArmsTuning.enabled = false;
          linkPageTuning.keysFromOtherEnd = false;
          const single = await queryData<LinkPage>(store.handle, query);
          // Arms whatever the plan: on the small sample a planner may sort a month rather than walk its index. By asn1
          // the arms read the links' reversed rows.
          Object.assign(monthArmsTuning, { enabled: true, forced: true });
          linkPageTuning.keysFromOtherEnd = true;
          const armed = await queryData<LinkPage>(store.handle, query);
          expect([query, armed.asnLinks.edges]).toEqual([query, single.asnLinks.edges]);
          compared += single.asnLinks.edges.length;
        }
    expect(compared).toBeGreaterThan(2 * sorts.length * 3 * 20);
  });

  it('takes arms only where the plan of a month says no sort: for one ASN by asn1, never for every link by asn1', async () => {
    const month = store.dates.at(-1)!;
    const armOf = (order: string) => latestMonthArm(store, order);
    expect(await servedByIndex(store.handle.db, store.handle.dialect, armOf('asn1 asc, asn0 asc'))).toBe(
      false,
    );
    // One ASN's links by asn1 lie in the primary key's order (date, asn0, asn1): both planners walk it, no sort (and
    // a plan that could not be read would count as a sort).
    const [busiest] = await busiestAsns(store.handle, month, 1);
    const oneAsn = store.handle.db
      .selectFrom('asn_links')
      .select(['date', 'asn0', 'asn1'])
      .where('date', '=', month)
      .where('asn0', '=', Number(busiest!.asn))
      .orderBy('asn1')
      .limit(30);
    expect(await servedByIndex(store.handle.db, store.handle.dialect, oneAsn)).toBe(true);
    // The month's index serves the order of links by paths on SQLite, whose planner does not weigh table sizes here.
    if (kind === 'sqlite')
      expect(
        await servedByIndex(
          store.handle.db,
          store.handle.dialect,
          armOf('number_paths asc, asn0 asc, asn1 asc'),
        ),
      ).toBe(true);
  });

  it('takes arms by descending asn0, whose plan sorts only within one AS, and by relationship only one relationship at a time', async () => {
    const armOf = (order: string) => latestMonthArm(store, order);
    const byAsn0Descending = armOf('asn0 desc, date asc, asn1 asc');
    // Both walk an index in descending asn0 (SQLite its primary key, PostgreSQL also the pair's index) and sort each
    // AS's run by asn1.
    expect(await servedByIndex(store.handle.db, store.handle.dialect, byAsn0Descending)).toBe(false);
    expect(await servedByIndex(store.handle.db, store.handle.dialect, byAsn0Descending, 'asn0')).toBe(true);
    // The relationship index serves the first term too, but one relationship's run is a third of the month.
    const byRelationship = armOf('relationship desc, asn0 asc, asn1 asc');
    expect(await servedByIndex(store.handle.db, store.handle.dialect, byRelationship)).toBe(false);
    // Hence an arm per relationship too, where the relationship is one value and the index serves the rest.
    const oneRelationship = byRelationship.where('relationship', '=', 'peer');
    expect(await servedByIndex(store.handle.db, store.handle.dialect, oneRelationship)).toBe(true);
  });

  it('reads every link by -asn0, or by asn1 from the reversed rows, a relationship at a time: the primary key runs against those rows', async () => {
    const [first, latest] = [store.dates[0]!, store.dates.at(-1)!];
    // One relationship's canonical links by descending asn0: its index range, each AS's run sorted by asn1.
    const onePeer = latestMonthArm(store, 'asn0 desc, date asc, asn1 asc').where('relationship', '=', 'peer');
    expect(await servedByIndex(store.handle.db, store.handle.dialect, onePeer, 'asn0')).toBe(true);
    const relationshipArms: Record<string, number> = {};
    // Every link's arms reach where the months' bookmarks start (a link step a month), whatever maxArmRows says: the
    // sample's pages all lie before it.
    monthArmsTuning.maxArmRows = 0;
    for (const sort of ['-asn0', 'asn1', 'asn0', '-asn1']) {
      const { handle, trees } = keepingTrees(store.handle);
      const page = await queryData<LinkPage>(
        handle,
        `{ asnLinks(first: 30, offset: 7, dateStart: "${first}", dateEnd: "${latest}", sort: "${sort}") ` +
          '{ edges { node { date asn0 { asn } asn1 { asn } } } } }',
      );
      expect(page.asnLinks.edges).toHaveLength(30);
      // The page's statement, the largest (Kysely hands its plugins parts of it too).
      const merged = trees.reduce((largest, tree) => (tree.length > largest.length ? tree : largest), '');
      expect(merged).toContain('"asn_links"');
      relationshipArms[sort] = relationshipValuesIn(merged);
    }
    // An arm per month and relationship against the key's run (canonical rows down, reversed rows up), else one a month.
    const split = store.dates.length * LINK_RELATIONSHIPS.length;
    expect(relationshipArms).toEqual({ '-asn0': split, asn1: split, asn0: 0, '-asn1': 0 });
  });

  it("reads a deep page by -asn0 near the order's start a relationship at a time, and deeper the months whole", async () => {
    const [first, latest] = [store.dates[0]!, store.dates.at(-1)!];
    // Bookmarks every 5 links, so that deep pages start early; deep pages only (no arms).
    monthArmsTuning.enabled = false;
    const facts = createStoreFacts(store.handle, undefined, { step: 5, linkStep: 5, waitedHops: 1e9 });
    const relationshipValues = async (offset: number) => {
      const { handle, trees } = keepingTrees(store.handle);
      const query =
        `{ asnLinks(first: 10, offset: ${offset}, dateStart: "${first}", dateEnd: "${latest}", sort: "-asn0") ` +
        '{ edges { node { date asn0 { asn } asn1 { asn } } } } }';
      const split = await queryData<LinkPage>(handle, query, undefined, facts);
      // The same page from one statement over the months (no bookmarks).
      const plain = createStoreFacts(store.handle, undefined, { step: 1e9, linkStep: 1e9 });
      expect(split.asnLinks.edges).toEqual(
        (await queryData<LinkPage>(store.handle, query, undefined, plain)).asnLinks.edges,
      );
      expect(split.asnLinks.edges).toHaveLength(10);
      return trees.reduce((count, tree) => count + relationshipValuesIn(tree), 0);
    };
    // Within pairPartsSteps steps a month of the start: the brackets and arms a relationship at a time; further, none.
    const months = store.dates.length;
    const steps = linkPageTuning.pairPartsSteps[kind];
    expect(await relationshipValues(2 * 5 * months)).toBeGreaterThan(0);
    expect(await relationshipValues((steps - 1) * 5 * months)).toBeGreaterThan(0);
    expect(await relationshipValues((steps + 1) * 5 * months)).toBe(0);
  });

  // On SQLite a month's bookmarks by -asn0 (or by -asn1 from the reversed rows) come from each AS's count of them.
  if (kind === 'sqlite')
    it("places every month's bookmarks by -asn0 and -asn1 from the counts the ASes' rows keep, else from the links counted", async () => {
      const [first, latest] = [store.dates[0]!, store.dates.at(-1)!];
      monthArmsTuning.enabled = false;
      const countedMinHops = pageBookmarksTuning.countedMinHops;
      pageBookmarksTuning.countedMinHops = 1;
      const months = store.dates.length;
      const offset = (linkPageTuning.pairPartsSteps[kind] + 3) * 5 * months;
      /** The page, and the statements that counted a month's links by asn0 (none where the rows' counts served). */
      const pageOf = async (sort: string) => {
        const facts = createStoreFacts(store.handle, undefined, { step: 5, linkStep: 5, waitedHops: 1e9 });
        const run = new RunStatements(store.handle);
        const query =
          `{ asnLinks(first: 10, offset: ${offset}, dateStart: "${first}", dateEnd: "${latest}", sort: "${sort}") ` +
          '{ edges { node { date asn0 { asn } asn1 { asn } relationship } } } }';
        const page = await queryData<LinkPage>(throughPlugin(store.handle, run), query, undefined, facts);
        const plain = createStoreFacts(store.handle, undefined, { step: 1e9, linkStep: 1e9 });
        expect([sort, page.asnLinks.edges]).toEqual([
          sort,
          (await queryData<LinkPage>(store.handle, query, undefined, plain)).asnLinks.edges,
        ]);
        expect(page.asnLinks.edges).toHaveLength(10);
        return run.statements.filter((statement) => /group by "asn0"/.test(statement.sql)).length;
      };
      try {
        for (const sort of ['-asn0', '-asn1']) expect([sort, await pageOf(sort)]).toEqual([sort, 0]);
        // A count that does not add up to the month's links (as where a link's lesser end has no record): counted.
        const [asn] = await busiestAsns(store.handle, first, 1);
        await store.handle.db
          .updateTable('asns')
          .set({ number_canonical_links: sql<number>`number_canonical_links + 1` })
          .where('date', '=', first)
          .where('asn', '=', Number(asn!.asn))
          .execute();
        try {
          for (const sort of ['-asn0', '-asn1']) expect([sort, await pageOf(sort)]).toEqual([sort, 1]);
        } finally {
          await store.handle.db
            .updateTable('asns')
            .set({ number_canonical_links: sql<number>`number_canonical_links - 1` })
            .where('date', '=', first)
            .where('asn', '=', Number(asn!.asn))
            .execute();
        }
      } finally {
        monthArmsTuning.enabled = true;
        pageBookmarksTuning.countedMinHops = countedMinHops;
      }
    });

  // SQLite's table is its primary key, rows and all: there `canonical` costs nothing more, and a hop is a statement.
  if (kind === 'postgres')
    it("finds every month's bookmarks by the pair from the primary key alone, a link's row told by its ends", async () => {
      const [first, latest] = [store.dates[0]!, store.dates.at(-1)!];
      monthArmsTuning.enabled = false;
      const months = store.dates.length;
      // Past pairPartsSteps steps a month, where the months are read whole rather than a relationship at a time.
      const offset = (linkPageTuning.pairPartsSteps[kind] + 3) * 5 * months;
      for (const sort of ['asn0', '-asn0', 'asn1', '-asn1']) {
        const facts = createStoreFacts(store.handle, undefined, { step: 5, linkStep: 5, waitedHops: 1e9 });
        const run = new RunStatements(store.handle);
        const query =
          `{ asnLinks(first: 10, offset: ${offset}, dateStart: "${first}", dateEnd: "${latest}", sort: "${sort}") ` +
          '{ edges { node { date asn0 { asn } asn1 { asn } relationship } } } }';
        const bookmarked = await queryData<LinkPage>(
          throughPlugin(store.handle, run),
          query,
          undefined,
          facts,
        );
        const plain = createStoreFacts(store.handle, undefined, { step: 1e9, linkStep: 1e9 });
        expect([sort, bookmarked.asnLinks.edges]).toEqual([
          sort,
          (await queryData<LinkPage>(store.handle, query, undefined, plain)).asnLinks.edges,
        ]);
        expect(bookmarked.asnLinks.edges).toHaveLength(10);
        // The statements that found the months' bookmarks: hops from the start, or the records numbered.
        const finding = run.statements
          .map((statement) => statement.sql)
          .filter((text) => /with recursive hops|row_number\(\)/.test(text) && !text.startsWith('explain'));
        expect([sort, finding.length]).toEqual([sort, months]);
        // By asn1 the reversed rows (asn0 > asn1) are walked, by asn0 the canonical ones.
        const ends = sort.endsWith('asn1') ? /"asn0" > "asn1"/ : /"asn0" < "asn1"/;
        for (const text of finding)
          expect([sort, ends.test(text), text.includes('"canonical"')]).toEqual([sort, true, false]);
      }
    });

  if (kind === 'sqlite')
    it('merges the arms on SQLite as members of one compound, each walked in the order, none read whole and sorted', async () => {
      const arms = store.dates.map((date) =>
        store.handle.db
          .selectFrom('asn_links')
          .select(['date', 'asn0', 'asn1'])
          .where('date', '=', date)
          .where('canonical', '=', 1)
          .where('relationship', '=', 'peer')
          .orderBy(sql.raw('asn0 desc, date asc, asn1 asc'))
          .limit(37),
      );
      const order = sql.raw('asn0 desc, date asc, asn1 asc');
      const merged = mergedArms(
        store.handle.db,
        'sqlite',
        arms as never,
        [
          { column: 'date', as: 'date' },
          { column: 'asn0', as: 'asn0' },
          { column: 'asn1', as: 'asn1' },
        ],
        order,
        30,
        7,
      ).compile();
      const plan = store.handle
        .sqlite!.prepare(`explain query plan ${merged.sql}`)
        .all(...merged.parameters)
        .map((row) => String((row as { detail: string }).detail));
      // One merge step between each two months' members, and no member sorted whole (only each AS's few links).
      expect(plan.filter((line) => line === 'MERGE (UNION ALL)')).toHaveLength(store.dates.length - 1);
      expect(plan.filter((line) => planLineSorts('sqlite', line, 'asn0'))).toEqual([]);
      // The page is the page of the arms read whole and sorted.
      const page = await store.handle.db.executeQuery<{ date: string; asn0: number; asn1: number }>(merged);
      const everyPeerLink = await store.handle.db
        .selectFrom('asn_links')
        .select(['date', 'asn0', 'asn1'])
        .where('canonical', '=', 1)
        .where('relationship', '=', 'peer')
        .orderBy(order)
        .limit(30)
        .offset(7)
        .execute();
      expect(page.rows.map((row) => [row.date, Number(row.asn0), Number(row.asn1)])).toEqual(
        everyPeerLink.map((row) => [row.date, Number(row.asn0), Number(row.asn1)]),
      );
      expect(page.rows).toHaveLength(30);
    });

  // Last: it gives the store's links corrections.
  it('pages the corrected links, then the others, as one statement over all links orders them', async () => {
    const [first, latest] = [store.dates[0]!, store.dates.at(-1)!];
    // Loads write no correction: give a few links in every month one, ties included, on both of each link's rows.
    const corrected = await store.handle.db
      .selectFrom('asn_links')
      .select(['date', 'asn0', 'asn1'])
      .where('canonical', '=', 1)
      .orderBy('date')
      .orderBy('asn1')
      .orderBy('asn0')
      .limit(40 * store.dates.length)
      .execute();
    expect(corrected.length).toBeGreaterThan(30);
    for (const [index, link] of corrected.entries()) {
      const correctedBy = 64500 + (index % 7);
      for (const [asn0, asn1] of [
        [link.asn0, link.asn1],
        [link.asn1, link.asn0],
      ])
        await store.handle.db
          .updateTable('asn_links')
          .set({ corrected_by: correctedBy })
          .where('date', '=', link.date)
          .where('asn0', '=', asn0!)
          .where('asn1', '=', asn1!)
          .execute();
    }
    await keepListedLinkParts(store.handle);
    let compared = 0;
    for (const sort of ['correctedBy', '-correctedBy'])
      for (const months of ['', `, dateStart: "${first}", dateEnd: "${latest}"`])
        for (const offset of [
          0,
          5,
          25,
          38,
          45,
          corrected.length - 3,
          corrected.length + 4,
          corrected.length + 90,
          400,
        ]) {
          const query = `{ asnLinks(first: 12, offset: ${offset}, sort: "${sort}"${months}) {
            edges { node { date asn0 { asn } asn1 { asn } correctedBy } } } }`;
          linkPageTuning.splitByCorrection = false;
          const whole = await queryData<LinkPage>(store.handle, query);
          linkPageTuning.splitByCorrection = true;
          const split = await queryData<LinkPage>(store.handle, query);
          expect([query, split.asnLinks.edges]).toEqual([query, whole.asnLinks.edges]);
          compared += whole.asnLinks.edges.filter((edge) => edge.node['correctedBy'] !== null).length;
        }
    // Pages of corrected links, of the others, and across the boundary were compared.
    expect(compared).toBeGreaterThan(40);
  });

  // After the corrections above; it gives most links path counts.
  it('pages every link over several months by a nullable column, valued links then the others month by month', async () => {
    const [first, latest] = [store.dates[0]!, store.dates.at(-1)!];
    // The sample's links carry no path count (its as-rel files have none): four in five get one, with many ties, the
    // same on both of a link's rows (asn0 + asn1 is), so both ranges span every month.
    await store.handle.db
      .updateTable('asn_links')
      .set({ number_paths: sql<number>`(asn0 + asn1) % 13 + 1` })
      .where(sql<boolean>`(asn0 + asn1) % 5 <> 0`)
      .execute();
    await keepListedLinkParts(store.handle);
    const [{ links, counted }] = (await store.handle.db
      .selectFrom('asn_links')
      .select((eb) => [
        eb.fn.countAll<number>().as('links'),
        eb.fn.count<number>('number_paths').as('counted'),
      ])
      .where('canonical', '=', 1)
      .execute()) as [{ links: number | string; counted: number | string }];
    const [total, withPaths] = [Number(links), Number(counted)];
    expect(withPaths).toBeGreaterThan(total / 2);
    expect(withPaths).toBeLessThan(total);
    // Deep pages only (no arms), with bookmarks small enough to be crossed.
    monthArmsTuning.enabled = false;
    const facts = createStoreFacts(store.handle, undefined, { step: 5, linkStep: 5, waitedHops: 1e9 });
    let compared = 0;
    for (const sort of ['numberPaths', '-numberPaths', 'correctedBy', '-correctedBy'])
      for (const offset of [
        0,
        17,
        31,
        45,
        withPaths - 4,
        withPaths,
        withPaths + 3,
        total - 200,
        total - 2,
        total + 1,
      ]) {
        const query = `{ asnLinks(first: 9, offset: ${offset}, sort: "${sort}", dateStart: "${first}",
          dateEnd: "${latest}") { edges { node { date asn0 { asn } asn1 { asn } numberPaths correctedBy } } } }`;
        Object.assign(linkPageTuning, { nullsByMonth: false, splitByCorrection: false });
        const whole = await queryData<LinkPage>(store.handle, query, undefined, facts);
        Object.assign(linkPageTuning, { nullsByMonth: true, splitByCorrection: true });
        const split = await queryData<LinkPage>(store.handle, query, undefined, facts);
        expect([query, split.asnLinks.edges]).toEqual([query, whole.asnLinks.edges]);
        compared += whole.asnLinks.edges.length;
      }
    expect(compared).toBeGreaterThan(4 * 9 * 8);
    // The links with a path count were paged from every month's bookmarks, either way (a month's last step may hold
    // none), and the links without one from their month's bookmarks by the pair too.
    const withoutPaths = total - withPaths;
    expect(facts.pageBookmarks.count()).toBeGreaterThan(
      2 * (withPaths / 5 - store.dates.length) + withoutPaths / 5,
    );
  });
});

describe("the month arms' plan check", () => {
  it('reads a plan line as a sort unless it sorts only within runs of the first key, when that is allowed', () => {
    const sqliteRuns = [
      'USE TEMP B-TREE FOR RIGHT PART OF ORDER BY',
      'USE TEMP B-TREE FOR LAST TERM OF ORDER BY',
      'USE TEMP B-TREE FOR LAST 2 TERMS OF ORDER BY',
    ];
    for (const line of sqliteRuns) {
      expect([line, planLineSorts('sqlite', line, null)]).toEqual([line, true]);
      expect([line, planLineSorts('sqlite', line, 'asn0')]).toEqual([line, false]);
    }
    expect(planLineSorts('sqlite', 'USE TEMP B-TREE FOR ORDER BY', 'asn0')).toBe(true);
    expect(planLineSorts('sqlite', 'SEARCH asn_links USING PRIMARY KEY (date=?)', null)).toBe(false);
    const incremental = '  ->  Incremental Sort  (cost=13.06..278272.49 rows=514387 width=27)';
    expect(planLineSorts('postgres', incremental, null)).toBe(true);
    expect(planLineSorts('postgres', incremental, 'asn0')).toBe(false);
    expect(planLineSorts('postgres', '        Presorted Key: asn0', 'asn0')).toBe(false);
    expect(planLineSorts('postgres', '        Presorted Key: asn_links.asn0', 'asn0')).toBe(false);
    // Presorted on another key: every run of it is sorted, which may be the whole month.
    expect(planLineSorts('postgres', '        Presorted Key: asn0s', 'asn0')).toBe(true);
    expect(planLineSorts('postgres', '        Presorted Key: relationship', 'asn0')).toBe(true);
    expect(planLineSorts('postgres', '  ->  Sort  (cost=16601.36..16620.87 rows=100 width=33)', 'asn0')).toBe(
      true,
    );
    expect(planLineSorts('postgres', 'Sort  (cost=1.36..1.87 rows=100 width=33)', null)).toBe(true);
    expect(planLineSorts('postgres', '        Sort Key: asn0 DESC, asn1', 'asn0')).toBe(false);
  });
});
