// ASNs and organizations over several months in a client sort that does not start with the month: a shallow page
// reads its keys as one arm per month (listPage.ts, monthArms.ts). The pages are the same as one statement's
// ORDER BY ... OFFSET over the months, for every sort key in both directions, on SQLite and PostgreSQL.
import { SORT_KEYS } from '@asrank/domain';
import pg from 'pg';
import { linkPageTuning } from '../src';
import { monthArmsTuning, servedByIndex } from '../src/monthArms';
import {
  LOAD_TIMEOUT_MS,
  busiestAsns,
  withLoadedStore,
  queryData,
  STORE_KINDS,
  type LoadedStore,
} from './support/store';
import { StatementCounter, throughPlugin } from './support/statementCounter';

jest.setTimeout(LOAD_TIMEOUT_MS);

type ListPage = Record<string, { edges: { node: Record<string, unknown> }[] }>;

describe.each(STORE_KINDS)('lists over several months, one arm per month, on %s', (kind) => {
  let store: LoadedStore;

  withLoadedStore(kind, (opened) => (store = opened), monthArmsTuning, linkPageTuning);

  it.each([
    ['asns', 'asn date rank cone { numberAsns } organization { orgId orgName }'],
    ['organizations', 'orgId date rank asnDegree { total }'],
  ] as const)(
    'pages %s in every sort with one arm per month as with one statement',
    async (list, selection) => {
      const [first, latest] = [store.dates[0]!, store.dates.at(-1)!];
      expect(store.dates.length).toBeGreaterThan(1);
      const sorts = [...SORT_KEYS[list].flatMap((key) => [key, `-${key}`]), 'cone.numberAsns,-date'];
      let compared = 0;
      // A `seen` filter reads arms of the seen records (before, one statement).
      for (const filter of ['', ', seen: true'])
        for (const sort of sorts)
          for (const offset of [0, 7, 95]) {
            const query = `{ ${list}(first: 30, offset: ${offset}, sort: "${sort}"${filter}, dateStart: "${first}", dateEnd: "${latest}") {
          edges { node { ${selection} } } } }`;
            monthArmsTuning.enabled = false;
            const single = await queryData<ListPage>(store.handle, query);
            // Arms whatever the plan: on the small sample a planner may sort a month rather than walk its index.
            Object.assign(monthArmsTuning, { enabled: true, forced: true });
            const armed = await queryData<ListPage>(store.handle, query);
            expect([query, armed[list]!.edges]).toEqual([query, single[list]!.edges]);
            compared += single[list]!.edges.length;
          }
      expect(compared).toBeGreaterThan(2 * sorts.length * 3 * 25);
    },
  );

  it("takes arms where a month's index serves the order", async () => {
    const month = store.dates.at(-1)!;
    const arm = store.handle.db
      .selectFrom('asns')
      .select(['date', 'asn', 'degree_customer'])
      .where('date', '=', month)
      .orderBy('degree_customer', 'desc')
      .orderBy('date')
      .orderBy('asn')
      .limit(30);
    // SQLite walks the (date, degree_customer, asn) index; PostgreSQL may sort a month this small instead.
    if (kind === 'sqlite') expect(await servedByIndex(store.handle.db, store.handle.dialect, arm)).toBe(true);
    const unindexed = store.handle.db
      .selectFrom('asns')
      .select(['date', 'asn'])
      .where('date', '=', month)
      .orderBy('announcing_prefixes')
      .limit(30);
    expect(await servedByIndex(store.handle.db, store.handle.dialect, unindexed)).toBe(false);
  });

  if (kind === 'postgres')
    it("runs a page merged from the months' arms as a named statement on PostgreSQL, planned once per connection", async () => {
      // One connection, so the statements it prepared are the ones pg_prepared_statements lists.
      const pool = new pg.Pool({ connectionString: store.url, max: 1 });
      try {
        const handle = { ...store.handle, postgres: pool, postgresPipelined: undefined };
        const [first, latest] = [store.dates[0]!, store.dates.at(-1)!];
        const months = `dateStart: "${first}", dateEnd: "${latest}"`;
        Object.assign(monthArmsTuning, { enabled: true, forced: true });
        for (const query of [
          `{ asns(first: 20, offset: 3, sort: "-asnDegree.total", ${months}) { edges { node { asn date } } } }`,
          `{ organizations(first: 20, sort: "orgName", ${months}) { edges { node { orgId date } } } }`,
          `{ asnLinks(first: 20, sort: "relationship", ${months}) { edges { node { asn0 { asn } asn1 { asn asnName } } } } }`,
        ]) {
          const page = await queryData<ListPage>(handle, query);
          expect(Object.values(page)[0]!.edges).toHaveLength(20);
        }
        // One AS's links merged from arms by relationship stay planned per call: their plans depend on how many links
        // the AS has. In the default order and by asn1 each arm is a range of an index that starts with (date, asn0),
        // whatever the AS: named. (In the default order, which starts with the month, they are otherwise read month by
        // month, and by relationship block by block.)
        linkPageTuning.keptTotalsMonthByMonth = false;
        linkPageTuning.keptRelationshipBlocks = false;
        const [busiest] = await busiestAsns(store.handle, latest, 1);
        for (const sort of ['relationship', '-asn1', null])
          expect(
            (
              await queryData<ListPage>(
                handle,
                `{ asnLinks(asn: "${busiest!.asn}", first: 20${sort ? `, sort: "${sort}"` : ''}, ${months}) {
                  edges { node { date } } } }`,
              )
            )['asnLinks']!.edges,
          ).toHaveLength(20);
        const prepared = await pool.query<{ statement: string }>(
          "select statement from pg_prepared_statements where name like 'asrank_prepared_%'",
        );
        const merged = prepared.rows.map((row) => row.statement).filter((text) => text.includes('"arm_1"'));
        const ofOneAs = merged.filter((text) => /"asn0" = \$\d/.test(text));
        expect(
          merged
            .filter((text) => !ofOneAs.includes(text))
            .map((text) => /from "(asns|organizations|asn_links)"/.exec(text)?.[1])
            .sort(),
        ).toEqual(['asn_links', 'asns', 'organizations']);
        expect(
          ofOneAs.map((text) => (/order by "date" asc, "rank" asc/.test(text) ? 'rank' : 'asn1')).sort(),
        ).toEqual(['asn1', 'rank']);
        expect(ofOneAs.filter((text) => text.includes('"relationship" = $'))).toEqual([]);
      } finally {
        await pool.end();
      }
    });

  it.each([
    ['asns', '-asnName'],
    ['asns', '-rank'],
    ['organizations', '-orgName'],
    ['organizations', '-rank'],
  ] as const)(
    'reads %s by %s with one arm per month, each month read backwards and only its ties sorted by the key',
    async (list, sort) => {
      // Statements through a fresh Kysely instance (none compiled and kept by another test) that merge arms (a UNION),
      // without the service's statement cache, which runs them past Kysely's plugins.
      const arms = new StatementCounter((statement) => statement.includes('"SetOperationNode"'));
      const handle = { ...throughPlugin(store.handle, arms), readRows: undefined };
      const [first, latest] = [store.dates[0]!, store.dates.at(-1)!];
      const query = `{ ${list}(first: 30, sort: "${sort}", dateStart: "${first}", dateEnd: "${latest}") {
        edges { node { date } } } }`;
      Object.assign(monthArmsTuning, { enabled: true, forced: false });
      const page = await queryData<ListPage>(handle, query);
      expect(page[list]!.edges).toHaveLength(30);
      // Before, the plan's sort of each name's or rank's ties (by the key, against the index's descent) refused arms.
      expect(arms.executed).toBe(1);
    },
  );
});
