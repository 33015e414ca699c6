// The `name` filter answers the same records whether SQLite's trigram index names the candidates or every row is
// tested: for substrings of stored names, short needles, needles with quotes, lists of one month and of all months,
// and with the index's bound forcing either path. PostgreSQL runs the same queries (its own trigram index). A short
// needle's candidates are kept per data version: asked again, no pass; after a load, read again.
import { SEARCH_TEXT_SEPARATOR } from '@asrank/db';
import { createContext, createStoreFacts, nameSearchTuning } from '../src';
import { monthArmsTuning } from '../src/monthArms';
import { indexedNameMatches, nameConditions, nameOfManyMatches } from '../src/nameSearch';
import {
  LOAD_TIMEOUT_MS,
  openLoadedStore,
  queryData,
  reloadThinned,
  STORE_KINDS,
  type LoadedStore,
} from './support/store';
import { RunStatements, StatementCounter, throughPlugin } from './support/statementCounter';

jest.setTimeout(LOAD_TIMEOUT_MS);

interface SearchRow {
  date: string;
  key: string;
  search_text: string;
}

type ListName = 'asns' | 'organizations';

const KEY_FIELD: Record<ListName, string> = { asns: 'asn', organizations: 'orgId' };

describe.each(STORE_KINDS)('name filter on %s', (kind) => {
  let store: LoadedStore;
  const rows: Record<ListName, SearchRow[]> = { asns: [], organizations: [] };
  let needles: string[];
  const defaultTuning = { ...nameSearchTuning };

  beforeAll(async () => {
    store = await openLoadedStore(kind);
    rows.asns = (
      await store.handle.db.selectFrom('asns').select(['date', 'asn', 'search_text']).execute()
    ).map((row) => ({ date: row.date, key: String(row.asn), search_text: row.search_text }));
    rows.organizations = (
      await store.handle.db.selectFrom('organizations').select(['date', 'org_id', 'search_text']).execute()
    ).map((row) => ({ date: row.date, key: row.org_id, search_text: row.search_text }));
    // Substrings of stored names at fixed places (the sample is fixed, so these are the same every run), upper-cased
    // in part to show case does not matter, plus needles no index entry can hold whole.
    const texts = [...new Set(rows.asns.concat(rows.organizations).map((row) => row.search_text))]
      .filter((text) => text.length >= 12)
      .sort();
    expect(texts.length).toBeGreaterThan(20);
    needles = [];
    for (let i = 0; i < 8; i += 1) {
      const text = texts[Math.floor((i * texts.length) / 8)]!;
      needles.push(text.slice(2, 5), text.slice(3, 10).toUpperCase(), text.slice(-6));
    }
    needles.push('ne', 'x', 'a"b', '"', 'zzqqzz', ' ');
  }, LOAD_TIMEOUT_MS);
  afterAll(() => store?.close());
  afterEach(() => Object.assign(nameSearchTuning, defaultTuning));

  const latest = () => store.dates.at(-1)!;
  const expected = (list: ListName, needle: string, dates: readonly string[]) =>
    rows[list]
      .filter(
        (row) =>
          dates.includes(row.date) &&
          // In one of the record's names: a needle cut across two of them (some below are) is in neither.
          row.search_text.split(SEARCH_TEXT_SEPARATOR).some((name) => name.includes(needle.toLowerCase())),
      )
      .map((row) => `${row.date}|${row.key}`)
      .sort();

  async function found(list: ListName, needle: string, interval: string) {
    const data = await queryData<
      Record<ListName, { totalCount: number; edges: { node: Record<string, string> }[] }>
    >(
      store.handle,
      `query Named($name: String!) { ${list}(name: $name, first: 10000${interval}) {
        totalCount edges { node { date ${KEY_FIELD[list]} } } } }`,
      { name: needle },
    );
    const keys = data[list].edges.map((edge) => `${edge.node.date}|${edge.node[KEY_FIELD[list]]}`);
    expect(data[list].totalCount).toBe(keys.length);
    return keys.sort();
  }

  it.each([
    ['the index bound as configured', defaultTuning.maxIndexedMatches],
    ['the index never used (bound 0)', 0],
    ['the index always used (no bound)', Number.MAX_SAFE_INTEGER],
  ])('lists the same records as a test of every row, with %s', async (_label, bound) => {
    nameSearchTuning.maxIndexedMatches = bound;
    const all = `, dateStart: "${store.dates[0]}", dateEnd: "${latest()}"`;
    let matched = 0;
    for (const list of ['asns', 'organizations'] as const)
      for (const needle of needles) {
        const month = expected(list, needle, [latest()]);
        expect([list, needle, await found(list, needle, '')]).toEqual([list, needle, month]);
        expect([list, needle, await found(list, needle, all)]).toEqual([
          list,
          needle,
          expected(list, needle, store.dates),
        ]);
        matched += month.length;
      }
    // The needles come from stored names, so most of them find records.
    expect(matched).toBeGreaterThan(needles.length);
  });

  it('pages a name of many matches over several months by rank from the arms of its ranked matches, then the others', async () => {
    nameSearchTuning.maxIndexedMatches = 0;
    const all = `dateStart: "${store.dates[0]}", dateEnd: "${latest()}"`;
    let compared = 0;
    try {
      for (const list of ['asns', 'organizations'] as const) {
        const needle = 'a';
        // The matches with a rank over every month: a page across their end reads the unranked ones after them.
        const ranked = (await store.handle.db
          .selectFrom(list)
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('search_text', 'like', `%${needle}%`)
          .where('rank', 'is not', null)
          .executeTakeFirstOrThrow()) as { n: number | string };
        const valued = Number(ranked.n);
        expect(valued).toBeGreaterThan(10);
        for (const sort of ['-rank', 'rank'])
          for (const offset of [0, 4, valued - 3, valued, valued + 2]) {
            const query = `query Named($name: String!) { ${list}(name: $name, ${all}, first: 7, offset: ${offset},
              sort: "${sort}") { totalCount edges { node { date rank ${KEY_FIELD[list]} } } } }`;
            const asked = async (arms: boolean) => {
              // Forced: PostgreSQL's planner may sort the sample's small months, which refuses an arm.
              Object.assign(monthArmsTuning, { enabled: arms, forced: arms });
              const run = new RunStatements(store.handle);
              const data = await queryData(throughPlugin(store.handle, run), query, { name: needle });
              // The ranked matches' arms: merged (`arms`), each of the matches with a rank.
              const rankedArms = run.statements.some(
                (statement) =>
                  statement.sql.includes('as "arms"') && statement.sql.includes('"rank" is not null'),
              );
              return { data, rankedArms };
            };
            const oneStatement = await asked(false);
            const fromArms = await asked(true);
            const label = `${list} ${sort} ${offset}`;
            expect([label, fromArms.data]).toEqual([label, oneStatement.data]);
            // The ranked matches are read from their arms first (a page past them finds none there).
            expect([label, fromArms.rankedArms, oneStatement.rankedArms]).toEqual([label, true, false]);
            compared += JSON.stringify(fromArms.data).split('"date"').length - 1;
          }
      }
    } finally {
      Object.assign(monthArmsTuning, { enabled: true, forced: false });
    }
    expect(compared).toBeGreaterThan(2 * 2 * 4 * 5);
  });

  it("pages a name of many matches over several months in a client order from the months' arms, as one statement does", async () => {
    // Every needle past the index's bound: the substring alone, as a name of many matches is.
    nameSearchTuning.maxIndexedMatches = 0;
    const all = `dateStart: "${store.dates[0]}", dateEnd: "${latest()}"`;
    const nameSort: Record<ListName, string> = { asns: 'asnName', organizations: 'orgName' };
    let compared = 0;
    try {
      for (const list of ['asns', 'organizations'] as const)
        for (const needle of ['a', 'ne', needles[0]!])
          for (const sort of ['-cone.numberAsns', nameSort[list], '-rank', 'date,-rank'])
            for (const offset of [0, 3, 12]) {
              const query = `query Named($name: String!) { ${list}(name: $name, ${all}, first: 7, offset: ${offset},
                sort: "${sort}") { totalCount edges { node { date ${KEY_FIELD[list]} } } } }`;
              const asked = async (arms: boolean) => {
                monthArmsTuning.enabled = arms;
                const run = new RunStatements(store.handle);
                const data = await queryData(throughPlugin(store.handle, run), query, { name: needle });
                return {
                  data,
                  // mergedArms: the arms united as a derived table `arms`.
                  merged: run.statements.some((statement) => statement.sql.includes('as "arms"')),
                };
              };
              const oneStatement = await asked(false);
              const fromArms = await asked(true);
              const label = `${list} ${needle} ${sort} ${offset}`;
              expect([label, fromArms.data]).toEqual([label, oneStatement.data]);
              // By the month first the one statement reads each month in order already. PostgreSQL's planner may sort
              // the sample's small months (the arm then refused, monthArms.ts): nameOfManyMatches is checked below.
              const armed = !sort.startsWith('date');
              if (sort !== '-rank' && kind === 'sqlite')
                expect({ label, merged: fromArms.merged, before: oneStatement.merged }).toEqual({
                  label,
                  merged: armed,
                  before: false,
                });
              compared += JSON.stringify(fromArms.data).split('"date"').length - 1;
            }
      // Many matches past the bound, few within it, on both stores: on PostgreSQL a needle its trigram index serves
      // lists no candidates, and the pass tells.
      const context = createContext(store.handle);
      for (const needle of ['a', needles[0]!, needles[1]!]) {
        const conditions = await nameConditions(context, 'asns', needle, store.dates);
        expect([needle, await nameOfManyMatches(context, 'asns', needle, store.dates, conditions)]).toEqual([
          needle,
          true,
        ]);
      }
      nameSearchTuning.maxIndexedMatches = defaultTuning.maxIndexedMatches;
      for (const needle of [needles[1]!, 'zzqqzz']) {
        const conditions = await nameConditions(context, 'asns', needle, store.dates);
        expect([needle, await nameOfManyMatches(context, 'asns', needle, store.dates, conditions)]).toEqual([
          needle,
          false,
        ]);
      }
    } finally {
      monthArmsTuning.enabled = true;
    }
    expect(compared).toBeGreaterThan(2 * 3 * 4 * 2 * 7);
  });

  it('takes candidates from the trigram index on SQLite, from a pass on PostgreSQL for a needle too short for trigrams, and only when they can narrow the list', async () => {
    const context = { db: store.handle.db, dialect: store.handle.dialect };
    const needle = needles[1]!.toLowerCase();
    const records = expected('asns', needle, [latest()]);
    expect(records.length).toBeGreaterThan(0);
    const candidates = await indexedNameMatches(context, 'asns', needle, [latest()]);
    const short = needle.slice(0, 2);
    if (kind === 'postgres') {
      expect(candidates).toBeNull();
      // The keys of the records that hold it, over one month and over several.
      nameSearchTuning.maxIndexedMatches = Number.MAX_SAFE_INTEGER;
      const keysInMonth = (await indexedNameMatches(context, 'asns', short, [latest()]))!.map(String);
      const recordsInMonth = expected('asns', short, [latest()]);
      expect(recordsInMonth.length).toBeGreaterThan(0);
      expect(keysInMonth.sort()).toEqual(recordsInMonth.map((record) => record.split('|')[1]).sort());
      const organizationNeedle = rows.organizations
        .find((row) => row.date === latest())!
        .search_text.slice(1, 3);
      const organizationKeys = (await indexedNameMatches(context, 'organizations', organizationNeedle, [
        latest(),
      ]))!;
      const organizationRecords = expected('organizations', organizationNeedle, [latest()]);
      expect(organizationRecords.length).toBeGreaterThan(0);
      expect(organizationKeys.map(String).sort()).toEqual(
        organizationRecords.map((record) => record.split('|')[1]).sort(),
      );
      const keysOverMonths = (await indexedNameMatches(context, 'asns', short, store.dates))!.map(String);
      const recordsOverMonths = expected('asns', short, store.dates);
      expect(recordsOverMonths.length).toBeGreaterThan(store.dates.length);
      expect(keysOverMonths.sort()).toEqual(recordsOverMonths.map((record) => record.split('|')[1]).sort());
      nameSearchTuning.maxIndexedMatches = recordsOverMonths.length - 1;
      expect(await indexedNameMatches(context, 'asns', short, store.dates)).toBeNull();
      return;
    }
    // Candidates may hold more than the records (the LIKE decides), never fewer.
    const keys = new Set(candidates!.map(String));
    for (const record of records) expect(keys).toContain(record.split('|')[1]);
    // A needle too short for the index: the records that hold it, from one pass over the month, unless too many.
    const shortRecords = expected('asns', short, [latest()]).map((record) => record.split('|')[1]);
    expect((await indexedNameMatches(context, 'asns', short, [latest()]))!.map(String).sort()).toEqual(
      shortRecords.sort(),
    );
    nameSearchTuning.maxIndexedMatches = shortRecords.length - 1;
    expect(await indexedNameMatches(context, 'asns', short, [latest()])).toBeNull();
    nameSearchTuning.maxIndexedMatches = defaultTuning.maxIndexedMatches;
    expect(await indexedNameMatches(context, 'organizations', 'zzqqzz', [latest()])).toEqual([]);
    nameSearchTuning.maxIndexedMatches = candidates!.length - 1;
    expect(await indexedNameMatches(context, 'asns', needle, [latest()])).toBeNull();
    nameSearchTuning.maxIndexedMatches = candidates!.length;
    expect(await indexedNameMatches(context, 'asns', needle, [latest()])).toHaveLength(candidates!.length);
  });

  // Last: it loads the latest month again, which the rows read above no longer describe.
  it("keeps a short needle's candidates for the data version they were read at, and reads them again after a load", async () => {
    const facts = createStoreFacts(store.handle);
    // The passes that name a short needle's candidates (the statement joining them to the data version).
    const passes = new StatementCounter((tree) => tree.includes('as candidates on 1 = 1'));
    const counted = throughPlugin(store.handle, passes);
    const all = `, dateStart: "${store.dates[0]}", dateEnd: "${latest()}"`;
    const named = async (needle: string) => {
      const data = await queryData<{
        asns: { totalCount: number; edges: { node: { date: string; asn: string } }[] };
      }>(
        counted,
        `query Named($name: String!) { asns(name: $name, first: 10000${all}) ` +
          '{ totalCount edges { node { date asn } } } }',
        { name: needle },
        facts,
      );
      expect(data.asns.totalCount).toBe(data.asns.edges.length);
      return data.asns.edges.map((edge) => `${edge.node.date}|${edge.node.asn}`).sort();
    };
    const inStore = async (needle: string) =>
      (
        await store.handle.db
          .selectFrom('asns')
          .select(['date', 'asn'])
          .where('search_text', 'like', `%${needle}%`)
          .execute()
      )
        .map((row) => `${row.date}|${row.asn}`)
        .sort();
    // Two characters that some names hold (from a stored name), one that none holds, and one character: the first
    // two are candidates, the last past the bound (null), each kept as it is.
    const common = rows.asns
      .map((row) => row.search_text)
      .find((text) => text.length >= 2)!
      .slice(0, 2);
    nameSearchTuning.maxIndexedMatches = (await inStore(common)).length + 1;
    const oneCharacter = 'e';
    expect((await inStore(oneCharacter)).length).toBeGreaterThan(nameSearchTuning.maxIndexedMatches);
    for (const needle of [common, '\u00e6\u00f8', oneCharacter]) {
      const expectedKeys = await inStore(needle);
      const before = passes.executed;
      expect([needle, await named(needle)]).toEqual([needle, expectedKeys]);
      expect(passes.executed - before).toBe(1);
      expect([needle, await named(needle)]).toEqual([needle, expectedKeys]);
      expect(passes.executed - before).toBe(1);
    }
    // A load changes the data version: the candidates of the new data are read, never the kept ones.
    await reloadThinned(store.handle, latest(), ['asRel']);
    const before = passes.executed;
    expect(await named(common)).toEqual(await inStore(common));
    expect(passes.executed - before).toBe(1);
  });
});
