// Deep pages read from bookmarks (pageBookmarks.ts) are exactly the pages of the plain ORDER BY ... OFFSET, for the
// default order and one-column sorts, in any order of requests, concurrently, and after the month is reloaded; and
// for a month's links in their default order, whose key has two columns.
// A step of 5 makes the sample month's few hundred ASNs and links cross many bookmarks and ties.
import { graphql } from 'graphql';
import {
  sql,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
} from 'kysely';
import { openDatabase } from '@asrank/db';
import { createContext, createSchema, createStoreFacts, linkPageTuning, type StoreFacts } from '../src';
import { asnColumnTuning } from '../src/asnColumns';
import { monthArmsTuning } from '../src/monthArms';
import { compareByteOrder } from '../src/monthsBookmarks';
import { pageBookmarksTuning, sortsOnlyLimits, type PlanNode } from '../src/pageBookmarks';
import {
  LOAD_TIMEOUT_MS,
  reloadThinned,
  openLoadedStore,
  STORE_KINDS,
  type LoadedStore,
  keepListedLinkParts,
} from './support/store';
import { BuiltStatements, RunStatements, throughPlugin } from './support/statementCounter';

jest.setTimeout(LOAD_TIMEOUT_MS);

const STEP = 5;
/** Bookmark options under which every deep page waits for the bookmarks up to it, so it is read from them. */
const WAITING = { step: STEP, linkStep: STEP, waitedHops: Number.MAX_SAFE_INTEGER };
const schema = createSchema();

interface AsnRecord {
  asn: number;
  rank: number | null;
  cone_asns: number;
  degree_total: number;
  degree_customer: number;
}

/** The orders under test: the sort argument, and the same order as a comparison of stored rows. */
const ORDERS: { sort: string | null; compare: (a: AsnRecord, b: AsnRecord) => number }[] = [
  { sort: null, compare: (a, b) => byRankNullsLast(a, b) || a.asn - b.asn },
  { sort: 'rank', compare: (a, b) => byRankNullsLast(a, b) || a.asn - b.asn },
  { sort: '-cone.numberAsns', compare: (a, b) => b.cone_asns - a.cone_asns || a.asn - b.asn },
  { sort: 'cone.numberAsns,asn', compare: (a, b) => a.cone_asns - b.cone_asns || a.asn - b.asn },
  { sort: 'asnDegree.total', compare: (a, b) => a.degree_total - b.degree_total || a.asn - b.asn },
  { sort: '-asnDegree.customer', compare: (a, b) => b.degree_customer - a.degree_customer || a.asn - b.asn },
  // Descending rank keeps the unranked last: its ranked records, then the unranked ones by ASN.
  { sort: '-rank', compare: (a, b) => byRankDescendingNullsLast(a, b) || a.asn - b.asn },
  { sort: '-rank,asn', compare: (a, b) => byRankDescendingNullsLast(a, b) || a.asn - b.asn },
];

function byRankNullsLast(a: Pick<AsnRecord, 'rank'>, b: Pick<AsnRecord, 'rank'>): number {
  if (a.rank === null || b.rank === null) return a.rank === b.rank ? 0 : a.rank === null ? 1 : -1;
  return a.rank - b.rank;
}

function byRankDescendingNullsLast(a: AsnRecord, b: AsnRecord): number {
  if (a.rank === null || b.rank === null) return byRankNullsLast(a, b);
  return b.rank - a.rank;
}

/** Offsets around every bookmark of the first stretch, then spread to past the end, in a shuffled (seeded) order. */
function offsetsFor(total: number): number[] {
  const offsets = new Set<number>([0, 1, STEP - 1, STEP, STEP + 1, 2 * STEP, total - 1, total, total + 3]);
  for (let offset = 0; offset < total; offset += Math.max(1, Math.floor(total / 40))) offsets.add(offset);
  const list = [...offsets].filter((offset) => offset >= 0);
  let seed = 7;
  for (let index = list.length - 1; index > 0; index -= 1) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const other = seed % (index + 1);
    [list[index], list[other]] = [list[other]!, list[index]!];
  }
  return list;
}

describe.each(STORE_KINDS)('deep list pages from bookmarks on %s', (kind) => {
  let store: LoadedStore;
  let latest: string;

  beforeAll(async () => {
    store = await openLoadedStore(kind);
    latest = store.dates.at(-1)!;
  }, LOAD_TIMEOUT_MS);
  afterAll(() => store?.close());

  const storedRows = async (): Promise<AsnRecord[]> =>
    (
      await store.handle.db
        .selectFrom('asns')
        .select(['asn', 'rank', 'cone_asns', 'degree_total', 'degree_customer'])
        .where('date', '=', latest)
        .execute()
    ).map((row) => ({
      asn: Number(row.asn),
      rank: row.rank === null ? null : Number(row.rank),
      cone_asns: Number(row.cone_asns),
      degree_total: Number(row.degree_total),
      degree_customer: Number(row.degree_customer),
    }));

  const page = async (facts: StoreFacts, sort: string | null, first: number, offset: number) => {
    const sortArgument = sort === null ? '' : `, sort: "${sort}"`;
    const result = await graphql({
      schema,
      source: `{ asns(first: ${first}, offset: ${offset}${sortArgument}) { edges { node { asn } } } }`,
      contextValue: createContext(store.handle, { facts }),
    });
    if (result.errors?.length) throw new Error(result.errors.map((error) => error.message).join('; '));
    return (result.data as { asns: { edges: { node: { asn: string } }[] } }).asns.edges.map((edge) =>
      Number(edge.node.asn),
    );
  };

  /** The organizations' ids of a page of the latest month's organizations in `sort`. */
  const organizationPage = async (facts: StoreFacts, sort: string, first: number, offset: number) => {
    const result = await graphql({
      schema,
      source: `{ organizations(first: ${first}, offset: ${offset}, sort: "${sort}") { edges { node { orgId } } } }`,
      contextValue: createContext(store.handle, { facts }),
    });
    expect(result.errors).toBeUndefined();
    return (
      result.data as { organizations: { edges: { node: { orgId: string } }[] } }
    ).organizations.edges.map((edge) => edge.node.orgId);
  };

  it('answers every page of every order as the plain offset does, wherever the page starts', async () => {
    const rows = await storedRows();
    expect(rows.length).toBeGreaterThan(20 * STEP);
    // Unranked ASNs well past a bookmark step, so the rank orders' pages cross into them deep and shallow.
    expect(rows.filter((row) => row.rank === null).length).toBeGreaterThan(2 * STEP);
    const facts = createStoreFacts(store.handle, undefined, WAITING);
    for (const { sort, compare } of ORDERS) {
      const expected = [...rows].sort(compare).map((row) => row.asn);
      for (const offset of offsetsFor(rows.length)) {
        for (const first of [1, 3, 2 * STEP + 1]) {
          expect({ sort, offset, first, asns: await page(facts, sort, first, offset) }).toEqual({
            sort,
            offset,
            first,
            asns: expected.slice(offset, offset + first),
          });
        }
      }
    }
    // The deep pages really were read from bookmarks: a full month's worth for each of the four one-column sorts.
    expect(facts.pageBookmarks.count()).toBeGreaterThan(4 * Math.floor(rows.length / STEP) - 8);
  });

  if (kind === 'postgres') {
    it.each(['hops', 'numbered'] as const)(
      'reads the bookmarks a far first page leaves to the background %s, as every page then shows',
      async (bulkRead) => {
        const rows = await storedRows();
        try {
          pageBookmarksTuning.bulkRead = bulkRead;
          for (const { sort, compare } of ORDERS) {
            const expected = [...rows].sort(compare).map((row) => row.asn);
            // No page waits for a hop: the first far page leaves every bookmark to one statement.
            const facts = createStoreFacts(store.handle, undefined, { step: STEP, waitedHops: 0 });
            const far = rows.length - 3;
            expect(await page(facts, sort, 3, far)).toEqual(expected.slice(far, far + 3));
            await facts.pageBookmarks.settled();
            expect(facts.pageBookmarks.count()).toBeGreaterThan(0);
            for (const offset of offsetsFor(rows.length))
              expect({ sort, offset, asns: await page(facts, sort, STEP + 1, offset) }).toEqual({
                sort,
                offset,
                asns: expected.slice(offset, offset + STEP + 1),
              });
          }
        } finally {
          pageBookmarksTuning.bulkRead = 'planned';
        }
      },
    );
  }

  /** The latest month's organization ids in byte order (ASCII here), as the store's keys compare. */
  const storedOrgIds = async () =>
    (await store.handle.db.selectFrom('organizations').select('org_id').where('date', '=', latest).execute())
      .map((row) => row.org_id)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  // By the key alone an OFFSET walked PostgreSQL's whole month and sorted it on disk (ASNs at 70,322: 24.7 ms).
  it.each([
    ['ASNs', 'asn', async () => (await storedRows()).map((row) => row.asn).sort((a, b) => a - b), page],
    ['organizations', 'orgId', storedOrgIds, organizationPage],
  ] as const)(
    'reads %s by their key alone, either way, from bookmarks of the key',
    async (_list, key, storedKeys, read) => {
      const ascending: readonly unknown[] = await storedKeys();
      expect(ascending.length).toBeGreaterThan(4 * STEP);
      const facts = createStoreFacts(store.handle, undefined, WAITING);
      for (const [sort, expected] of [
        [key, ascending],
        [`-${key}`, [...ascending].reverse()],
      ] as const)
        for (const offset of offsetsFor(ascending.length))
          expect({ sort, offset, found: await read(facts, sort, 3, offset) }).toEqual({
            sort,
            offset,
            found: expected.slice(offset, offset + 3),
          });
      expect(facts.pageBookmarks.count()).toBeGreaterThan(2 * Math.floor(ascending.length / STEP) - 4);
    },
  );

  it('reads pages by descending rank, of ASNs and organizations, from bookmarks of the ranked and the unranked', async () => {
    const rows = await storedRows();
    const byDescendingRank = ORDERS.find((order) => order.sort === '-rank')!.compare;
    const expected = [...rows].sort(byDescendingRank).map((row) => row.asn);
    const facts = createStoreFacts(store.handle, undefined, WAITING);
    for (const offset of offsetsFor(rows.length))
      expect({ offset, asns: await page(facts, '-rank', 3, offset) }).toEqual({
        offset,
        asns: expected.slice(offset, offset + 3),
      });
    // Both ranges walked from bookmarks: the ranked records in the order, the unranked ones by key.
    const ranked = rows.filter((row) => row.rank !== null).length;
    const bookmarksOfAsns = facts.pageBookmarks.count();
    expect(bookmarksOfAsns).toBeGreaterThanOrEqual(
      Math.floor(ranked / STEP) + Math.floor((rows.length - ranked) / STEP) - 2,
    );

    const organizations = (
      await store.handle.db
        .selectFrom('organizations')
        .select(['org_id', 'rank'])
        .where('date', '=', latest)
        .execute()
    ).map((row) => ({ orgId: row.org_id, rank: row.rank === null ? null : Number(row.rank) }));
    expect(organizations.filter((row) => row.rank === null).length).toBeGreaterThan(0);
    const expectedOrganizations = [...organizations]
      .sort((a, b) => {
        if (a.rank === null || b.rank === null) if (a.rank !== b.rank) return a.rank === null ? 1 : -1;
        if (a.rank !== null && b.rank !== null && a.rank !== b.rank) return b.rank - a.rank;
        // Organization ids compare byte-wise (ASCII here), as the store's keys do.
        return a.orgId < b.orgId ? -1 : a.orgId > b.orgId ? 1 : 0;
      })
      .map((row) => row.orgId);
    for (const offset of offsetsFor(organizations.length))
      expect({ offset, orgIds: await organizationPage(facts, '-rank', 3, offset) }).toEqual({
        offset,
        orgIds: expectedOrganizations.slice(offset, offset + 3),
      });
    expect(facts.pageBookmarks.count()).toBeGreaterThan(
      bookmarksOfAsns + Math.floor(organizations.length / STEP) - 4,
    );
  });

  it('answers pages with their organizations from statements compiled once per form, as from whole rows', async () => {
    const rows = await storedRows();
    /** Counts the statements Kysely builds that read `asns` rows joined to their organizations (a page's rows). */
    class PageStatements implements KyselyPlugin {
      built = 0;
      transformQuery({ node }: PluginTransformQueryArgs) {
        const joins = (node as { joins?: { table: unknown }[] }).joins ?? [];
        if (node.kind === 'SelectQueryNode' && JSON.stringify(joins).includes('"organizations"'))
          this.built += 1;
        return node;
      }
      async transformResult({ result }: PluginTransformResultArgs) {
        return result;
      }
    }
    const counter = new PageStatements();
    // One handle (and so one cache of compiled statements) for every page, as in the service.
    const handle = { ...store.handle, db: store.handle.db.withPlugin(counter) };
    const facts = createStoreFacts(handle, undefined, WAITING);
    const source = (sort: string | null, offset: number) =>
      `{ asns(first: 6, offset: ${offset}${sort === null ? '' : `, sort: "${sort}"`}) { edges { node {
        asn asnName rank cone { numberAsns } organization { orgId orgName } } } } }`;
    const answer = async (sort: string | null, offset: number, prune: boolean) => {
      asnColumnTuning.prune = prune;
      try {
        const result = await graphql({
          schema,
          source: source(sort, offset),
          contextValue: createContext(prune ? handle : store.handle, { facts }),
        });
        expect(result.errors).toBeUndefined();
        return result.data;
      } finally {
        asnColumnTuning.prune = true;
      }
    };
    const offsets = [0, 2, STEP + 1, 3 * STEP, Math.floor(rows.length / 2), rows.length - 4, rows.length - 1];
    let pages = 0;
    for (const sort of [null, '-cone.numberAsns', 'asnDegree.total']) {
      for (const offset of offsets) {
        expect({ sort, offset, page: await answer(sort, offset, true) }).toEqual({
          sort,
          offset,
          page: await answer(sort, offset, false),
        });
        pages += 1;
      }
    }
    const withOrganizations = (await answer('-cone.numberAsns', 0, true)) as {
      asns: { edges: { node: { organization: unknown } }[] };
    };
    expect(withOrganizations.asns.edges.some((edge) => edge.node.organization !== null)).toBe(true);
    // Each page form is built once (offset or after a bookmark, ranked or unranked, per order); on PostgreSQL once
    // per LIMIT too, which its statement carries as a literal (a last page, or one split between the ranked and the
    // unranked range, has a shorter one).
    expect(pages).toBe(21);
    expect(counter.built).toBeLessThanOrEqual(kind === 'sqlite' ? 8 : 14);
  });

  if (kind === 'postgres') {
    it('plans a page statement once, generically, in the sessions of the prepared-statement pool', async () => {
      // One connection per pool, so the statements it prepared are the ones pg_prepared_statements lists.
      const handle = openDatabase(store.url!, { poolSize: 1 });
      try {
        const facts = createStoreFacts(handle, undefined, WAITING);
        const total = (await storedRows()).length;
        const source = (offset: number) =>
          `{ asns(first: 4, offset: ${offset}, sort: "-cone.numberAsns") { edges { node { asn asnName
            organization { orgName } } } } }`;
        // Three shallow pages (plain OFFSET) and three deep ones (after a bookmark).
        for (const offset of [0, 1, 2, total - 30, total - 20, total - 10]) {
          const result = await graphql({
            schema,
            source: source(offset),
            contextValue: createContext(handle, { facts }),
          });
          expect(result.errors).toBeUndefined();
        }
        const prepared = await handle.postgres!.query<{
          statement: string;
          generic_plans: string;
          custom_plans: string;
        }>('select statement, generic_plans, custom_plans from pg_prepared_statements');
        const pagePlans = prepared.rows
          .filter(
            (row) => /"org_name"/.test(row.statement) && /order by "cone_asns" desc/.test(row.statement),
          )
          .map((row) => ({
            afterBookmark: /union all/.test(row.statement),
            limit: /\blimit 4\b/.test(row.statement),
            generic: Number(row.generic_plans),
            custom: Number(row.custom_plans),
          }))
          .sort((a, b) => Number(a.afterBookmark) - Number(b.afterBookmark));
        expect(pagePlans).toEqual([
          { afterBookmark: false, limit: true, generic: 3, custom: 0 },
          { afterBookmark: true, limit: true, generic: 3, custom: 0 },
        ]);
        // The deep page merges its two index ranges as they come: the tie's range keeps the sort column in its order
        // (compared as a closed range, not with `=`), so no Sort of its rows sits under the Merge Append.
        const deepPage = prepared.rows.find(
          (row) => /"org_name"/.test(row.statement) && /union all/.test(row.statement),
        )!.statement;
        const parameters = new Set(deepPage.match(/\$\d+/g)).size;
        const client = await handle.postgres!.connect();
        try {
          await client.query('set plan_cache_mode = force_generic_plan');
          await client.query(`prepare deep_page as ${deepPage.replace(/^prepare [^ ]+ as /i, '')}`);
          const nulls = Array.from({ length: parameters }, () => 'null').join(', ');
          const { rows: plans } = await client.query<{ 'QUERY PLAN': unknown }>(
            `explain (format json) execute deep_page(${nulls})`,
          );
          const nodeTypes = JSON.stringify(plans[0]!['QUERY PLAN']).match(/"Node Type":"[^"]+"/g);
          expect(nodeTypes).toContain('"Node Type":"Merge Append"');
          expect(nodeTypes).not.toContain('"Node Type":"Sort"');
          await client.query('deallocate deep_page');
        } finally {
          client.release();
        }
        // Kysely's own statements keep PostgreSQL's default: planned for their values.
        const { rows: modes } = await sql<{
          mode: string;
        }>`select current_setting('plan_cache_mode') as mode`.execute(handle.db);
        expect(modes[0]!.mode).toBe('auto');
      } finally {
        await handle.close();
      }
    });
  }

  if (kind === 'postgres') {
    it("reads a month's page of organizations by its keys through the primary key, however many it holds", async () => {
      // One connection, so the statement its page prepared is the one pg_prepared_statements lists.
      const handle = openDatabase(store.url!, { poolSize: 1 });
      try {
        const facts = createStoreFacts(handle, undefined, WAITING);
        const { rows: months } = await sql<{
          n: number | string;
        }>`select count(distinct date) as n from organizations`.execute(handle.db);
        const monthRows = await handle.db
          .selectFrom('organizations')
          .select(['org_id', 'rank'])
          .where('date', '=', latest)
          .execute();
        expect(Number(months[0]!.n)).toBeGreaterThan(1);
        const result = await graphql({
          schema,
          source: '{ organizations(first: 1000) { edges { node { orgId orgName } } } }',
          contextValue: createContext(handle, { facts }),
        });
        expect(result.errors).toBeUndefined();
        const ids = (
          result.data as { organizations: { edges: { node: { orgId: string } }[] } }
        ).organizations.edges.map((edge) => edge.node.orgId);
        const expected = monthRows
          .map((row) => ({ orgId: row.org_id, rank: row.rank === null ? null : Number(row.rank) }))
          .sort((a, b) => byRankNullsLast(a, b) || compareByteOrder(a.orgId, b.orgId))
          .map((row) => row.orgId)
          .slice(0, 1000);
        expect(ids).toEqual(expected);
        // The page's rows, planned as the named statement is (generically) and run: every scan of the table outside
        // the key page's own index reads the page's rows only. As `(date, org_id) in (keys)`, PostgreSQL hashed the
        // keys and read every month's organizations (a sequential scan of the real month's 66,931 for 1,000 keys: 44 ms).
        const { rows: prepared } = await handle.postgres!.query<{ statement: string }>(
          'select statement from pg_prepared_statements',
        );
        const page = prepared.find(
          (row) => /from "organizations"/.test(row.statement) && /limit 1000\b/.test(row.statement),
        );
        expect(page).toBeDefined();
        const client = await handle.postgres!.connect();
        try {
          await client.query('set plan_cache_mode = force_generic_plan');
          await client.query(`prepare rows_page as ${page!.statement.replace(/^prepare [^ ]+ as /i, '')}`);
          const parameters = new Set(page!.statement.match(/\$\d+/g)).size;
          const values = [latest, ...Array.from({ length: parameters - 1 }, () => '0')];
          const { rows: plans } = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
            `explain (analyze, format json) execute rows_page(${values.map((value) => `'${value}'`).join(', ')})`,
          );
          await client.query('deallocate rows_page');
          const rowScans: { node: string; index?: string; rows: number }[] = [];
          const walk = (node: PlanNode & Record<string, unknown>) => {
            if (node['Relation Name'] === 'organizations' && node['Node Type'] !== 'Index Only Scan')
              rowScans.push({
                node: String(node['Node Type']),
                index: node['Index Name'] as string | undefined,
                rows: Number(node['Actual Rows']) * Number(node['Actual Loops']),
              });
            for (const child of (node.Plans ?? []) as (PlanNode & Record<string, unknown>)[]) walk(child);
          };
          walk(plans[0]!['QUERY PLAN'][0]!.Plan as PlanNode & Record<string, unknown>);
          expect(rowScans.length).toBeGreaterThan(0);
          expect(rowScans.filter((scan) => scan.rows > ids.length)).toEqual([]);
        } finally {
          client.release();
        }
      } finally {
        await handle.close();
      }
    });
  }

  if (kind === 'postgres') {
    it("reads pages of keys by descending cone size from the order's own index, and the hops' ties in key order", async () => {
      // Every statement built through the handle, run or not (a hop's is compiled once, run per hop).
      const recorder = new BuiltStatements(store.handle);
      const handle = throughPlugin(store.handle, recorder);
      const facts = createStoreFacts(handle, undefined, WAITING);
      const expected = [...(await storedRows())].sort(ORDERS[2]!.compare).map((row) => row.asn);
      // Two steps further each time: every page waits for two hops from the last bookmark, one statement each.
      for (let offset = 2 * STEP; offset < expected.length; offset += 2 * STEP) {
        const result = await graphql({
          schema,
          source: `{ asns(first: 4, offset: ${offset}, sort: "-cone.numberAsns") { edges { node { asn } } } }`,
          contextValue: createContext(handle, { facts }),
        });
        expect(result.errors).toBeUndefined();
        const asns = (result.data as { asns: { edges: { node: { asn: string } }[] } }).asns.edges;
        expect(asns.map((edge) => Number(edge.node.asn))).toEqual(expected.slice(offset, offset + 4));
      }
      const afterBookmark = [...new Set(recorder.statements.map((statement) => statement.sql))].filter(
        (text) => /order by "cone_asns" desc, "asn" asc/.test(text) && /"asn" > \$\d+/.test(text),
      );
      const pages = afterBookmark.filter((text) => /union all/.test(text));
      const hops = afterBookmark.filter(
        (text) => /limit \$\d+ offset \$\d+$/.test(text) && !/union all/.test(text),
      );
      expect(pages.length).toBeGreaterThan(0);
      expect(hops.length).toBeGreaterThan(0);
      // Planned as the compiled page is, for any values, with the order's own index out of the way (a transaction
      // rolled back). On a full month the narrow ascending cone index (migration 002) is a quarter of its size, and the
      // generic plan of a page that it could serve alone read it backwards and sorted the bookmark's whole tie by ASN
      // (27-60 ms for a page of ASNs of cone size 1): a page must need the order's own index to be read from an index
      // alone. A hop's tie, compared by equality, comes in key order from either index, with no sort.
      const client = await store.handle.postgres!.connect();
      const planOf = async (text: string) => {
        await client.query(`prepare after_bookmark as ${text}`);
        const nulls = Array.from({ length: new Set(text.match(/\$\d+/g)).size }, () => 'null').join(', ');
        const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(
          `explain (format json) execute after_bookmark(${nulls})`,
        );
        await client.query('deallocate after_bookmark');
        return JSON.stringify(rows[0]!['QUERY PLAN']);
      };
      try {
        await client.query('begin');
        await client.query('drop index asns_date_cone_asns_desc');
        await client.query('set local plan_cache_mode = force_generic_plan');
        await client.query('set local enable_seqscan = off');
        for (const text of pages)
          expect({ text, indexOnly: /"Node Type":"Index Only Scan"/.test(await planOf(text)) }).toEqual({
            text,
            indexOnly: false,
          });
        for (const text of hops)
          expect({ text, sorts: /"Node Type":"(Incremental )?Sort"/.test(await planOf(text)) }).toEqual({
            text,
            sorts: false,
          });
      } finally {
        await client.query('rollback');
        client.release();
      }
    });
  }

  it('keeps no bookmarks for shallow pages, and answers concurrent deep pages of one order alike', async () => {
    const rows = await storedRows();
    const facts = createStoreFacts(store.handle, undefined, { step: STEP });
    await page(facts, '-cone.numberAsns', 10, STEP - 1);
    expect(facts.pageBookmarks.count()).toBe(0);

    const expected = [...rows].sort(ORDERS[2]!.compare).map((row) => row.asn);
    const offsets = Array.from({ length: 24 }, (_, index) => Math.floor((index * rows.length) / 24));
    const pages = await Promise.all(offsets.map((offset) => page(facts, '-cone.numberAsns', 7, offset)));
    expect(pages).toEqual(offsets.map((offset) => expected.slice(offset, offset + 7)));
    // The far pages left their bookmarks to the background; the same pages read from them answer alike.
    await facts.pageBookmarks.settled();
    expect(facts.pageBookmarks.count()).toBe(Math.floor(offsets.at(-1)! / STEP));
    const again = await Promise.all(offsets.map((offset) => page(facts, '-cone.numberAsns', 7, offset)));
    expect(again).toEqual(pages);
  });

  it('answers a far page from the last bookmark at once and finds the bookmarks up to it in the background', async () => {
    const rows = await storedRows();
    const expected = [...rows].sort(ORDERS[4]!.compare).map((row) => row.asn);
    const facts = createStoreFacts(store.handle, undefined, { step: STEP, waitedHops: 2 });
    const near = 2 * STEP + 3;
    const far = Math.floor(rows.length * 0.8);
    expect(far - near).toBeGreaterThan(10 * STEP);

    // Two hops from the start: the page waits for its bookmarks.
    expect(await page(facts, 'asnDegree.total', 4, near)).toEqual(expected.slice(near, near + 4));
    expect(facts.pageBookmarks.count()).toBe(2);

    // Far past the last bookmark: the page starts from it. On SQLite every statement runs synchronously, so a page
    // answered without a turn of the event loop proves that it did not wait for a single background hop.
    expect(await page(facts, 'asnDegree.total', 4, far)).toEqual(expected.slice(far, far + 4));
    if (kind === 'sqlite') expect(facts.pageBookmarks.count()).toBe(2);

    // A farther page while that extension is under way does not wait either: it moves the extension's target.
    const farther = rows.length - 3;
    expect(await page(facts, 'asnDegree.total', 4, farther)).toEqual(expected.slice(farther, farther + 4));
    if (kind === 'sqlite') expect(facts.pageBookmarks.count()).toBe(2);
    await facts.pageBookmarks.settled();
    expect(facts.pageBookmarks.count()).toBe(Math.floor(farther / STEP));
    expect(await page(facts, 'asnDegree.total', 4, far)).toEqual(expected.slice(far, far + 4));
  });

  it('lets the event loop turn while a page waits for its bookmarks, on SQLite every heldTurnMs', async () => {
    const rows = await storedRows();
    const far = rows.length - 3;
    const expected = [...rows].sort(ORDERS[4]!.compare).map((row) => row.asn);
    // What comes first: the deep page's answer, or a callback queued for the event loop's next turn as it is asked.
    const firstOf = async (heldTurnMs: number) => {
      pageBookmarksTuning.heldTurnMs = heldTurnMs;
      const facts = createStoreFacts(store.handle, undefined, WAITING);
      const events: string[] = [];
      const answered = page(facts, 'asnDegree.total', 2, far).then((asns) => {
        events.push('page');
        return asns;
      });
      setImmediate(() => events.push('turn'));
      expect(await answered).toEqual(expected.slice(far, far + 2));
      expect(facts.pageBookmarks.count()).toBe(Math.floor(far / STEP));
      await new Promise((resolve) => setImmediate(resolve));
      return events;
    };
    const defaults = { ...pageBookmarksTuning };
    try {
      // A turn before every hop: the callback runs while the page still waits.
      expect(await firstOf(0)).toEqual(['turn', 'page']);
      // None: on SQLite the page holds the thread from its first hop to its answer (PostgreSQL's round trips turn the
      // loop anyway).
      if (kind === 'sqlite') expect(await firstOf(Number.POSITIVE_INFINITY)).toEqual(['page', 'turn']);
    } finally {
      Object.assign(pageBookmarksTuning, defaults);
    }
  });

  it('keeps a bookmark every 64 keys of an order on SQLite and every 256 on PostgreSQL', async () => {
    const facts = createStoreFacts(store.handle);
    const rows = await storedRows();
    const deep = rows.length - 4;
    const step = kind === 'sqlite' ? 64 : 256;
    expect(deep).toBeGreaterThan(step);
    const expected = [...rows].sort(ORDERS[2]!.compare).map((row) => row.asn);
    expect(await page(facts, '-cone.numberAsns', 4, deep)).toEqual(expected.slice(deep, deep + 4));
    await facts.pageBookmarks.settled();
    expect(facts.pageBookmarks.step).toBe(step);
    expect(facts.pageBookmarks.count()).toBe(Math.floor(deep / step));
  });

  it('reads a reloaded month from new bookmarks, not those of the data it replaced', async () => {
    const facts = createStoreFacts(store.handle, undefined, { step: STEP });
    const before = await storedRows();
    const deep = Math.floor(before.length / 2);
    const beforePage = await page(facts, 'asnDegree.total', 10, deep);
    expect(beforePage).toEqual(
      [...before]
        .sort(ORDERS[4]!.compare)
        .map((row) => row.asn)
        .slice(deep, deep + 10),
    );

    // Reload the latest month with a third of its links gone: degrees fall, so the order changes.
    await reloadThinned(store.handle, latest, ['asRel']);

    const after = await storedRows();
    const expectedAfter = [...after].sort(ORDERS[4]!.compare).map((row) => row.asn);
    expect(expectedAfter.slice(deep, deep + 10)).not.toEqual(beforePage);
    expect(await page(facts, 'asnDegree.total', 10, deep)).toEqual(expectedAfter.slice(deep, deep + 10));
    await facts.pageBookmarks.settled();
    expect(await page(facts, 'asnDegree.total', 10, deep)).toEqual(expectedAfter.slice(deep, deep + 10));
  });
});

describe.each(STORE_KINDS)('deep link pages from bookmarks on %s', (kind) => {
  let store: LoadedStore;
  let latest: string;
  const defaultTuning = { ...linkPageTuning };

  beforeAll(async () => {
    store = await openLoadedStore(kind);
    latest = store.dates.at(-1)!;
  }, LOAD_TIMEOUT_MS);
  afterAll(() => store?.close());
  afterEach(() => Object.assign(linkPageTuning, defaultTuning));

  const storedLinks = async () =>
    (
      await store.handle.db
        .selectFrom('asn_links')
        .select(['asn0', 'asn1', 'rank', 'number_paths', 'relationship'])
        .where('date', '=', latest)
        .where('canonical', '=', 1)
        .execute()
    ).map((row) => ({
      asn0: Number(row.asn0),
      asn1: Number(row.asn1),
      rank: row.rank === null ? null : Number(row.rank),
      paths: row.number_paths === null ? null : Number(row.number_paths),
      relationship: row.relationship,
    }));

  const linkPage = async (facts: StoreFacts, first: number, offset: number, sort = '') => {
    const result = await graphql({
      schema,
      source: `{ asnLinks(first: ${first}, offset: ${offset}${sort}) { edges { node { asn0 { asn } asn1 { asn } } } } }`,
      contextValue: createContext(store.handle, { facts }),
    });
    if (result.errors?.length) throw new Error(result.errors.map((error) => error.message).join('; '));
    const { edges } = (result.data as { asnLinks: { edges: { node: Record<string, { asn: string }> }[] } })
      .asnLinks;
    return edges.map(({ node }) => `${node.asn0!.asn}-${node.asn1!.asn}`);
  };

  /** Every page of `sort` around the bookmarks and past them, in pages of 1, 3 and two steps and one, as `expected`. */
  const expectEveryLinkPage = async (facts: StoreFacts, expected: readonly string[], sort = '') => {
    for (const offset of offsetsFor(expected.length))
      for (const first of [1, 3, 2 * STEP + 1])
        expect({ sort, offset, first, links: await linkPage(facts, first, offset, sort) }).toEqual({
          sort,
          offset,
          first,
          links: expected.slice(offset, offset + first),
        });
  };

  it('answers every page of the links in rank order as the plain offset does, wherever the page starts', async () => {
    // Every page reads its keys first, so even shallow ones may start from a bookmark.
    linkPageTuning.keyedPageMinOffset = 0;
    const links = await storedLinks();
    expect(links.length).toBeGreaterThan(20 * STEP);
    // Ranks are shared (competition ranking), so pages cross ties that the pair breaks.
    expect(new Set(links.map((link) => link.rank)).size).toBeLessThan(links.length);
    const expected = links
      .map((link) => ({ ...link, rank: link.rank! }))
      .sort((a, b) => a.rank - b.rank || a.asn0 - b.asn0 || a.asn1 - b.asn1)
      .map((link) => `${link.asn0}-${link.asn1}`);
    const facts = createStoreFacts(store.handle, undefined, WAITING);
    await expectEveryLinkPage(facts, expected);
    expect(facts.pageBookmarks.count()).toBeGreaterThan(Math.floor(links.length / STEP) - 2);
  });

  it('answers every page of the links by relationship, either way, from bookmarks of each relationship', async () => {
    linkPageTuning.keyedPageMinOffset = 0;
    // Block by block at every offset: no arms for shallow pages.
    monthArmsTuning.enabled = false;
    try {
      const links = await storedLinks();
      const relationships = new Set(links.map((link) => link.relationship));
      expect(relationships.size).toBeGreaterThan(1);
      for (const relationship of relationships)
        expect(links.filter((link) => link.relationship === relationship).length).toBeGreaterThan(2 * STEP);
      const byRelationship = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      const facts = createStoreFacts(store.handle, undefined, WAITING);
      for (const direction of [1, -1]) {
        const expected = [...links]
          .sort(
            (a, b) =>
              direction * byRelationship(a.relationship, b.relationship) ||
              a.asn0 - b.asn0 ||
              a.asn1 - b.asn1,
          )
          .map((link) => `${link.asn0}-${link.asn1}`);
        const sort = `, sort: "${direction > 0 ? '' : '-'}relationship"`;
        await expectEveryLinkPage(facts, expected, sort);
      }
      // Each relationship's links were read from bookmarks of their own (both directions share them).
      expect(facts.pageBookmarks.count()).toBeGreaterThan(
        Math.floor(links.length / STEP) - 2 * relationships.size,
      );
    } finally {
      monthArmsTuning.enabled = true;
    }
  });

  it('answers every page of the links by path count, either way, those without a count last, as the plain offset does', async () => {
    linkPageTuning.keyedPageMinOffset = 0;
    // Path counts with many ties, and links without one (as a month whose paths file lacks them): every seventh.
    await store.handle.db
      .updateTable('asn_links')
      .set({
        number_paths: sql<
          number | null
        >`case when (asn0 + asn1) % 7 = 0 then null else (asn0 * 31 + asn1) % 40 end`,
      })
      .where('date', '=', latest)
      .execute();
    await keepListedLinkParts(store.handle);
    const links = await storedLinks();
    const withoutPaths = links.filter((link) => link.paths === null).length;
    expect(withoutPaths).toBeGreaterThan(2 * STEP);
    expect(links.length - withoutPaths).toBeGreaterThan(20 * STEP);
    for (const direction of [-1, 1]) {
      const byPathsNullsLast = (a: { paths: number | null }, b: { paths: number | null }) =>
        a.paths === null || b.paths === null
          ? (a.paths === null ? 1 : 0) - (b.paths === null ? 1 : 0)
          : direction * (a.paths - b.paths);
      const expected = [...links]
        .sort((a, b) => byPathsNullsLast(a, b) || a.asn0 - b.asn0 || a.asn1 - b.asn1)
        .map((link) => `${link.asn0}-${link.asn1}`);
      const sort = `, sort: "${direction < 0 ? '-' : ''}numberPaths"`;
      const facts = createStoreFacts(store.handle, undefined, WAITING);
      await expectEveryLinkPage(facts, expected, sort);
      // Both stretches were read from bookmarks.
      expect(facts.pageBookmarks.count()).toBeGreaterThan(Math.floor(links.length / STEP) - 4);
    }
  });

  if (kind === 'postgres') {
    it("reads the links without a path count, and those without a correction, from that column's index", async () => {
      linkPageTuning.keyedPageMinOffset = 0;
      // Every third link without a path count; loads write no correction, so no link of the month has one.
      await store.handle.db
        .updateTable('asn_links')
        .set({
          number_paths: sql<number | null>`case when (asn0 + asn1) % 3 = 0 then null else asn0 % 9 end`,
        })
        .where('date', '=', latest)
        .execute();
      await keepListedLinkParts(store.handle);
      const recorder = new RunStatements(store.handle);
      // Kysely's statements only: the handle's own pools would send the named ones past the recorder.
      const handle = throughPlugin(store.handle, recorder);
      const links = await storedLinks();
      const client = await store.handle.postgres!.connect();
      try {
        // Plans as on a month of full size, where a sequential scan and a sort of every link cost the most: the
        // order must come from an index, and reading the null range by the pair alone took the primary key's.
        await client.query('set enable_seqscan = off');
        await client.query('set enable_sort = off');
        for (const [sort, column] of [
          ['-numberPaths', 'number_paths'],
          ['correctedBy', 'corrected_by'],
        ] as const) {
          recorder.statements.length = 0;
          // A far first page (its bookmarks read in one statement in the background), then one from them.
          const facts = createStoreFacts(handle, undefined, { step: STEP, linkStep: STEP, waitedHops: 0 });
          const deep = links.length - 4;
          for (const offset of [deep, deep - STEP]) {
            const result = await graphql({
              schema,
              source: `{ asnLinks(first: 2, offset: ${offset}, sort: "${sort}") { edges { node { asn0 { asn } } } } }`,
              contextValue: createContext(handle, { facts }),
            });
            expect(result.errors).toBeUndefined();
            await facts.pageBookmarks.settled();
          }
          expect(facts.pageBookmarks.count()).toBeGreaterThan(0);
          // The plain OFFSET, the bookmarks' read from the start (as hops or numbered, whichever its plan allows)
          // and the page after a bookmark; not the read's own plan.
          const nullRange = recorder.statements.filter(
            (statement) => statement.sql.includes(`"${column}" is null`) && !/^explain/.test(statement.sql),
          );
          expect(nullRange.some((statement) => /with recursive|row_number\(\)/.test(statement.sql))).toBe(
            true,
          );
          expect(nullRange.length).toBeGreaterThanOrEqual(3);
          for (const statement of nullRange) {
            const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(
              `explain (format json) ${statement.sql}`,
              statement.parameters as unknown[],
            );
            const plan = JSON.stringify(rows[0]!['QUERY PLAN']);
            expect({ sort, sql: statement.sql, primaryKey: plan.includes('"asn_links_pk"') }).toEqual({
              sort,
              sql: statement.sql,
              primaryKey: false,
            });
            expect(plan).toContain(`"Index Name":"asn_links_date_canonical_${column}`);
          }
        }
      } finally {
        client.release();
      }
    });
  }

  it('keeps the plain offset, and no bookmarks, for a month with an unranked link', async () => {
    const links = await storedLinks();
    const [unranked] = links;
    await store.handle.db
      .updateTable('asn_links')
      .set({ rank: null })
      .where('date', '=', latest)
      .where((eb) =>
        eb.or([
          eb.and([eb('asn0', '=', unranked!.asn0), eb('asn1', '=', unranked!.asn1)]),
          eb.and([eb('asn0', '=', unranked!.asn1), eb('asn1', '=', unranked!.asn0)]),
        ]),
      )
      .execute();
    const facts = createStoreFacts(store.handle, undefined, { step: STEP, linkStep: STEP });
    const offsets = [STEP, 3 * STEP + 2, Math.floor(links.length / 2), links.length - 4];
    linkPageTuning.keyedPageMinOffset = Number.MAX_SAFE_INTEGER;
    const skipped = await Promise.all(offsets.map((offset) => linkPage(facts, 7, offset)));
    linkPageTuning.keyedPageMinOffset = 0;
    const keyed = await Promise.all(offsets.map((offset) => linkPage(facts, 7, offset)));
    expect(keyed).toEqual(skipped);
    expect(facts.pageBookmarks.count()).toBe(0);
  });
});

describe('which plans of a recursive bookmark read sort only a hop at a time', () => {
  const scan: PlanNode = { 'Node Type': 'Index Only Scan' };
  const limited = (...plans: PlanNode[]): PlanNode => ({ 'Node Type': 'Limit', Plans: plans });
  /** A hop as PostgreSQL plans it: the tie's rows sorted under their LIMIT, merged with the range after it. */
  const hop = (after: PlanNode): PlanNode => ({
    'Node Type': 'Merge Append',
    Plans: [{ 'Node Type': 'Sort', Plans: [limited(scan)] }, limited(after)],
  });
  const recursive = (after: PlanNode) =>
    limited({
      'Node Type': 'Recursive Union',
      Plans: [limited(scan), { 'Node Type': 'Nested Loop', Plans: [hop(after)] }],
    });

  it("accepts sorts of a LIMIT's rows, and refuses an Incremental Sort or a sort of a whole scan anywhere", () => {
    expect(sortsOnlyLimits(recursive(scan))).toBe(true);
    expect(sortsOnlyLimits(recursive({ 'Node Type': 'Incremental Sort', Plans: [scan] }))).toBe(false);
    expect(sortsOnlyLimits(recursive({ 'Node Type': 'Sort', Plans: [scan] }))).toBe(false);
    expect(sortsOnlyLimits(limited({ 'Node Type': 'Sort', Plans: [limited(scan)] }))).toBe(true);
  });
});
