// The totalCount of a whole month's list is counted once per data version and then taken from the process's
// totals: it always equals a count of the rows, is counted again after a load changes the month, a list over several
// months is the sum of its months' totals, and key lists, one ASN's links, a name over several months and very long
// names are counted on every request. SQLite and PostgreSQL.
import { graphql } from 'graphql';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  RootOperationNode,
} from 'kysely';
import { createContext, createSchema, createStoreFacts, listTotalsTuning, type StoreFacts } from '../src';
import {
  busiestAsns,
  LOAD_TIMEOUT_MS,
  withLoadedStore,
  reloadThinned,
  STORE_KINDS,
  type LoadedStore,
} from './support/store';
import { throughPlugin } from './support/statementCounter';
import { monthArmsTuning } from '../src/monthArms';

jest.setTimeout(LOAD_TIMEOUT_MS);

/** Counts the statements that count rows (`count(*)`), from the query trees Kysely is given. */
class CountStatements implements KyselyPlugin {
  counts = 0;
  /** The turn of the event loop each count statement was built in (`turnNow`'s value). */
  turns: number[] = [];
  constructor(private readonly turnNow: () => number = () => 0) {}
  /** Count statements of a list's total (named `total`; a bookmark's bounded counts name theirs `n`). */
  totals = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const tree = JSON.stringify(args.node);
    if (tree.includes('"count"')) {
      this.counts += 1;
      this.turns.push(this.turnNow());
      if (tree.includes('"name":"total"')) this.totals += 1;
    }
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs) {
    return args.result;
  }
}

describe.each(STORE_KINDS)('list totals on %s', (kind) => {
  let store: LoadedStore;
  const schema = createSchema();

  withLoadedStore(kind, (opened) => (store = opened));
  // The tests below count the lists; the last ones read the totals the store keeps with its months instead.
  beforeEach(() => {
    listTotalsTuning.storedTotals = false;
  });
  afterEach(() => {
    listTotalsTuning.storedTotals = true;
  });

  /** The data of `source` and the number of count statements the request ran (and the turns they ran in). */
  async function countedRun(
    facts: StoreFacts,
    source: string,
    turnNow?: () => number,
  ): Promise<{ data: unknown; counted: number; turns: number[]; totals: number }> {
    const counter = new CountStatements(turnNow);
    const counted = throughPlugin(store.handle, counter);
    const result = await graphql({ schema, source, contextValue: createContext(counted, { facts }) });
    if (result.errors?.length) throw new Error(result.errors.map((error) => error.message).join('; '));
    return { data: result.data, counted: counter.counts, turns: counter.turns, totals: counter.totals };
  }

  /** totalCount of `list(args)` and the number of count statements the request ran. */
  async function totalOf(
    facts: StoreFacts,
    list: string,
    args: string,
  ): Promise<{ total: number; counted: number }> {
    const { data, counted } = await countedRun(
      facts,
      `{ ${list}(first: 2${args}) { totalCount pageInfo { hasNextPage } } }`,
    );
    const connection = (data as Record<string, { totalCount: number; pageInfo: { hasNextPage: boolean } }>)[
      list
    ]!;
    expect(connection.pageInfo.hasNextPage).toBe(connection.totalCount > 2);
    return { total: connection.totalCount, counted };
  }

  /** Rows of a month, `seen` or not, or whose search text holds a name (the name filter's definition). */
  async function rowsIn(
    table: 'asns' | 'organizations' | 'asn_links',
    date: string,
    filter?: boolean | string,
  ) {
    let query = store.handle.db.selectFrom(table).where('date', '=', date);
    if (typeof filter === 'boolean') query = query.where('seen', '=', filter ? 1 : 0);
    if (typeof filter === 'string') query = query.where('search_text', 'like', `%${filter}%`);
    if (table === 'asn_links') query = query.where('canonical', '=', 1);
    const row = await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  const monthLists = (date: string) =>
    [
      ['asns', '', 'asns', undefined],
      ['asns', ', seen: true', 'asns', true],
      ['asns', ', seen: false', 'asns', false],
      ['organizations', '', 'organizations', undefined],
      ['organizations', ', seen: true', 'organizations', true],
      ['asnLinks', '', 'asn_links', undefined],
      ['asnLinks', `, dateStart: "${date}", dateEnd: "${date}"`, 'asn_links', undefined],
      ['asns', ', name: "an"', 'asns', 'an'],
      ['asns', ', name: "AN"', 'asns', 'an'],
      ['organizations', ', name: "in"', 'organizations', 'in'],
    ] as const;

  it("counts a month's list once, then answers from the totals of its data version, across months", async () => {
    const facts = createStoreFacts(store.handle);
    for (const date of [store.dates.at(-1)!, store.dates[0]!])
      for (const [list, filter, table, seen] of monthLists(date)) {
        const args = `${filter}${filter.includes('dateStart') || date === store.dates.at(-1) ? '' : `, dateStart: "${date}", dateEnd: "${date}"`}`;
        const expected = await rowsIn(table, date, seen);
        expect(expected).toBeGreaterThan(0);
        const first = await totalOf(facts, list, args);
        const again = await totalOf(facts, list, args);
        expect([list, args, first.total, again.total]).toEqual([list, args, expected, expected]);
        expect([list, args, again.counted]).toEqual([list, args, 0]);
      }
  });

  it('counts the ranked records of a month once per data version, for the pages of the default order past them', async () => {
    const facts = createStoreFacts(store.handle);
    const date = store.dates.at(-1)!;
    for (const [list, table, key, field] of [
      ['asns', 'asns', 'asn', 'asn'],
      ['organizations', 'organizations', 'org_id', 'orgId'],
    ] as const) {
      const inMonth = () => store.handle.db.selectFrom(table).where('date', '=', date);
      const ranked = Number(
        (
          await inMonth()
            .where('rank', 'is not', null)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
      // The unranked records follow the ranked ones in key order: the page one past the last ranked one.
      const unranked = (
        await inMonth().where('rank', 'is', null).select(key).orderBy(key).limit(2).offset(1).execute()
      ).map((row) => String((row as Record<string, unknown>)[key]));
      expect(unranked).toHaveLength(2);
      const pageOf = async () => {
        const { data, counted } = await countedRun(
          facts,
          `{ ${list}(first: 2, offset: ${ranked + 1}) { edges { node { ${field} } } } }`,
        );
        const edges = (data as Record<string, { edges: { node: Record<string, string> }[] }>)[list]!.edges;
        return { keys: edges.map((edge) => edge.node[field]), counted };
      };
      const first = await pageOf();
      const again = await pageOf();
      expect([list, first.keys, again.keys]).toEqual([list, unranked, unranked]);
      // The first also finds the ranked range's bookmarks (statements that count keys as they hop).
      expect(first.counted).toBeGreaterThan(0);
      expect([list, again.counted]).toEqual([list, 0]);
    }
  });

  it("counts a list over several months as its months' totals, each month once", async () => {
    const facts = createStoreFacts(store.handle);
    const months = store.dates;
    expect(months.length).toBeGreaterThan(1);
    const interval = `, dateStart: "${months[0]}", dateEnd: "${months.at(-1)}"`;
    for (const [list, filter, table, seen] of [
      ['asns', '', 'asns', undefined],
      ['asns', ', seen: false', 'asns', false],
      ['organizations', ', seen: true', 'organizations', true],
      ['asnLinks', '', 'asn_links', undefined],
    ] as const) {
      let rows = 0;
      for (const month of months) rows += await rowsIn(table, month, seen);
      const first = await totalOf(facts, list, `${filter}${interval}`);
      expect([list, filter, first]).toEqual([list, filter, { total: rows, counted: months.length }]);
      const again = await totalOf(facts, list, `${filter}${interval}`);
      expect([list, filter, again]).toEqual([list, filter, { total: rows, counted: 0 }]);
      // One of those months alone is already known, and so is any other interval of them.
      const lastAlone = await totalOf(
        facts,
        list,
        `${filter}, dateStart: "${months.at(-1)}", dateEnd: "${months.at(-1)}"`,
      );
      expect([list, filter, lastAlone]).toEqual([
        list,
        filter,
        { total: await rowsIn(table, months.at(-1)!, seen), counted: 0 },
      ]);
    }
  });

  it('counts the months of a list over several months one after another on SQLite, each in a turn of the event loop of its own', async () => {
    const months = store.dates;
    // Turns of the event loop, counted by a callback that queues itself for the next one.
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    try {
      const { counted, turns } = await countedRun(
        createStoreFacts(store.handle),
        `{ asnLinks(first: 2, dateStart: "${months[0]}", dateEnd: "${months.at(-1)}") { totalCount } }`,
        () => turn,
      );
      expect(counted).toBe(months.length);
      // SQLite's statements run on the thread: one month's count a turn. PostgreSQL's are round trips, sent at once.
      if (kind === 'sqlite') expect(new Set(turns).size).toBe(months.length);
    } finally {
      ticking = false;
    }
  });

  it('keeps the count of the records with a value of a nullable sort over several months, for the pages past them', async () => {
    const months = store.dates;
    const [{ n }] = (await store.handle.db
      .selectFrom('asns')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('date', 'in', months)
      .where('rank', 'is not', null)
      .execute()) as [{ n: number | string }];
    const past = `{ asns(first: 3, offset: ${Number(n) + 1}, sort: "rank", dateStart: "${months[0]}",
      dateEnd: "${months.at(-1)}") { edges { node { asn date rank } } } }`;
    const facts = createStoreFacts(store.handle);
    const first = await countedRun(facts, past);
    const again = await countedRun(facts, past);
    // Unranked ASNs, past the ranked ones of every month: each month's ranked ones counted once, then kept.
    const edges = (first.data as { asns: { edges: { node: { rank: number | null } }[] } }).asns.edges;
    expect(edges.length).toBe(3);
    expect(edges.every((edge) => edge.node.rank === null)).toBe(true);
    expect(again.data).toEqual(first.data);
    expect([first.totals, again.totals]).toEqual([months.length, 0]);
  });

  it('counts a name over several months once, as one total of the months', async () => {
    const facts = createStoreFacts(store.handle);
    const months = store.dates;
    const interval = `, dateStart: "${months[0]}", dateEnd: "${months.at(-1)}"`;
    for (const [list, filter, table, name] of [
      ['asns', ', name: "an"', 'asns', 'an'],
      ['asns', ', name: "net"', 'asns', 'net'],
      ['organizations', ', name: "in"', 'organizations', 'in'],
    ] as const) {
      let rows = 0;
      for (const month of months) rows += await rowsIn(table, month, name);
      expect([list, filter, rows > 0]).toEqual([list, filter, true]);
      const first = await totalOf(facts, list, `${filter}${interval}`);
      expect([list, filter, first]).toEqual([list, filter, { total: rows, counted: 1 }]);
      // Before, counted on every request.
      const again = await totalOf(facts, list, `${filter}${interval}`);
      expect([list, filter, again]).toEqual([list, filter, { total: rows, counted: 0 }]);
    }
  });

  // One ASN's links are totalled from its rows' kept counts (asnLinkTotals.test.ts); an ASN with others, counted.
  it('counts key lists, one ASN with others and very long names on every request', async () => {
    const facts = createStoreFacts(store.handle);
    const lastMonth = store.dates.at(-1)!;
    const [busiest, next] = await busiestAsns(store.handle, lastMonth, 2);
    for (const [list, args] of [
      ['asns', `, asns: ["${busiest!.asn}"]`],
      ['asnLinks', `, asn: "${busiest!.asn}", asns: ["${next!.asn}", "1"]`],
      ['asns', `, name: "${'a'.repeat(2000)}"`],
    ] as const) {
      const first = await totalOf(facts, list, args);
      const again = await totalOf(facts, list, args);
      expect(again.total).toBe(first.total);
      expect([list, args, again.counted]).toEqual([list, args, 1]);
    }
  });

  it("reads the totals the store keeps with its months for their whole lists, and a load's new totals", async () => {
    listTotalsTuning.storedTotals = true;
    const facts = createStoreFacts(store.handle);
    const date = store.dates.at(-1)!;
    const interval = `, dateStart: "${store.dates[0]}", dateEnd: "${date}"`;
    const expectKept = async () => {
      // Every list of the month but those filtered by a name, which the store keeps no total of.
      for (const [list, filter, table, seen] of monthLists(date))
        if (typeof seen !== 'string')
          expect([list, filter, await totalOf(facts, list, filter)]).toEqual([
            list,
            filter,
            { total: await rowsIn(table, date, seen), counted: 0 },
          ]);
      let links = 0;
      for (const month of store.dates) links += await rowsIn('asn_links', month);
      expect(await totalOf(facts, 'asnLinks', interval)).toEqual({ total: links, counted: 0 });
      return links;
    };
    const linksBefore = await expectKept();
    // A load with fewer links: the totals kept for the new data version, never the old ones.
    await reloadThinned(store.handle, date, ['asRel']);
    expect(await expectKept()).toBeLessThan(linksBefore);
    // The month as it was, for the test after this one.
    await reloadThinned(store.handle, date, []);
    expect(await expectKept()).toBe(linksBefore);
  });

  it('reads the parts of every link that a walk over months skips whole from the totals kept with the months', async () => {
    const [first, latest] = [store.dates[0]!, store.dates.at(-1)!];
    let links = 0;
    for (const month of store.dates) links += await rowsIn('asn_links', month);
    // A deep page: past most months' blocks of each relationship, past the valued links of every month. The sample's
    // pages that deep are still within reach of the month arms, which count nothing: walks only.
    const offset = Math.floor(links * 0.8);
    monthArmsTuning.enabled = false;
    try {
      for (const sort of ['relationship', '-relationship', 'numberPaths', '-numberPaths', 'correctedBy']) {
        const page = `{ asnLinks(first: 7, offset: ${offset}, sort: "${sort}", dateStart: "${first}",
          dateEnd: "${latest}") { edges { node { date asn0 { asn } asn1 { asn } relationship numberPaths } } } }`;
        listTotalsTuning.storedTotals = false;
        const counted = await countedRun(createStoreFacts(store.handle), page);
        listTotalsTuning.storedTotals = true;
        const kept = await countedRun(createStoreFacts(store.handle), page);
        expect([sort, kept.data]).toEqual([sort, counted.data]);
        expect((kept.data as { asnLinks: { edges: unknown[] } }).asnLinks.edges).toHaveLength(7);
        // Counted, each month's parts before the page; kept, none (before migration 023 the same as counted).
        expect([sort, counted.totals > 0, kept.totals]).toEqual([sort, true, 0]);
      }
    } finally {
      monthArmsTuning.enabled = true;
    }
  });

  it('counts a month again after a load changes it', async () => {
    const facts = createStoreFacts(store.handle);
    const date = store.dates.at(-1)!;
    const before = await totalOf(facts, 'asnLinks', '');
    expect(before.total).toBe(await rowsIn('asn_links', date));
    await reloadThinned(store.handle, date, ['asRel']);
    const linksAfter = await rowsIn('asn_links', date);
    expect(linksAfter).toBeLessThan(before.total);
    const after = await totalOf(facts, 'asnLinks', '');
    expect(after).toEqual({ total: linksAfter, counted: 1 });
    expect((await totalOf(facts, 'asns', '')).total).toBe(await rowsIn('asns', date));
  });
});
