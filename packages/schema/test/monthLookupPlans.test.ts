// Records of one month read by their key (a point lookup, a page's rows, a neighbour's record) go through the
// primary key of `asns` (or migration 015's index of it, where that carries every column read), where one month's
// records lie together, never through migration 011's (asn, date, ...) history index, which SQLite's planner would
// otherwise pick for them (sql.ts `byPrimaryKey`). An AS's history keeps that index. Observed on a real SQLite file
// with planner statistics: every statement the resolvers prepare is recorded and its plan read back. On PostgreSQL an
// AS's history is one named statement, planned once, generically.
import { ASN_SUMMARY_INDEX, openDatabase, refreshStatistics } from '@asrank/db';
import {
  busiestAsns,
  LOAD_TIMEOUT_MS,
  openLoadedStore,
  PG_URL,
  queryData,
  type LoadedStore,
} from './support/store';

jest.setTimeout(LOAD_TIMEOUT_MS);

const HISTORY_INDEX = 'asns_asn_date_covering';

describe('one month’s ASN records on sqlite', () => {
  let store: LoadedStore;
  /** The SQL text of every statement prepared since the last `statementsOf`. */
  let prepared: string[] = [];

  beforeAll(async () => {
    store = await openLoadedStore('sqlite');
    await refreshStatistics(store.handle);
    const sqlite = store.handle.sqlite!;
    const prepare = sqlite.prepare.bind(sqlite);
    // Observes what SQLite is asked to run; the statement itself is SQLite's own.
    sqlite.prepare = ((text: string) => {
      prepared.push(text);
      return prepare(text);
    }) as typeof sqlite.prepare;
  }, LOAD_TIMEOUT_MS);
  afterAll(() => store?.close());

  /** Runs `source` and returns the plan of each statement it prepared that reads `asns`, one string per statement. */
  async function plansOf(source: string, variables: Record<string, unknown>): Promise<string[]> {
    prepared = [];
    await queryData(store.handle, source, variables);
    const sqlite = store.handle.sqlite!;
    return prepared
      .filter((text) => /"asns"/.test(text) && !/^explain/i.test(text))
      .map((text) => {
        const parameters = new Array<null>((text.match(/\?/g) ?? []).length).fill(null);
        const steps = sqlite.prepare(`explain query plan ${text}`).all(...parameters) as { detail: string }[];
        return steps.map((step) => step.detail).join('\n');
      });
  }

  // Without the hint the deep pages' rows already read by key with this small store's statistics (with the 12-month
  // generated store's they read through the history index, docs/performance.md, eighteenth round); the rest do not.
  it.each([
    [
      'a point lookup and its organization',
      'query ($asn: String!) { asn(asn: $asn) { asn asnName rank organization { orgId orgName } cone { numberAsns } } }',
      (busiest: string[]) => ({ asn: busiest[0] }),
    ],
    // Pages that show a column their order's index does not carry (migration 013): degrees.
    [
      'the rows of a sorted deep page',
      'query { asns(first: 20, offset: 300, sort: "-cone.numberAsns") { edges { node { asn asnName rank asnDegree { total } } } } }',
      () => ({}),
    ],
    [
      'the rows of a deep page in the default order',
      'query { asns(first: 20, offset: 300, sort: "rank") { edges { node { asn asnName rank asnDegree { total } } } } }',
      () => ({}),
    ],
    // A neighbour showing a column migration 015's index does not carry: its degree.
    [
      'the neighbours of a link page',
      'query ($asn: String!) { asnLinks(asn: $asn, first: 50) { edges { node { numberPaths asn1 { asn asnName rank asnDegree { total } } } } } }',
      (busiest: string[]) => ({ asn: busiest[0] }),
    ],
    [
      'a list of ASNs in one month',
      'query ($asns: [String!]) { asns(asns: $asns, first: 20) { edges { node { asn asnName rank } } } }',
      (busiest: string[]) => ({ asns: busiest }),
    ],
    [
      'the cones of listed ASNs in one month',
      'query ($asns: [String!]) { asnConesStream(asns: $asns, first: 100) { pages { coneIndex asn { asn } } } }',
      (busiest: string[]) => ({ asns: busiest }),
    ],
  ])('reads %s by primary key', async (_label, source, variables) => {
    const busiest = (await busiestAsns(store.handle, store.dates.at(-1)!, 3)).map((row) => String(row.asn));
    const plans = await plansOf(source, variables(busiest));
    expect(plans.length).toBeGreaterThan(0);
    expect(plans.join('\n')).toMatch(/SEARCH \w+ USING PRIMARY KEY \(date=\? AND asn=\?\)/);
    for (const plan of plans) expect(plan).not.toContain(`${HISTORY_INDEX} (asn=? AND date=?)`);
  });

  // The two orders whose indexes carry a ranking table's columns (migration 013): a page showing only those reads
  // them from that index, after its bookmark when deep, and never looks a row up by key.
  it.each([
    ['a sorted page', 'sort: "-cone.numberAsns"', 'asns_date_cone_asns_desc'],
    ['a page in the default order', 'sort: "rank"', 'asns_date_rank_asn'],
  ])('reads %s that shows only what its index carries from that index alone', async (_label, sort, index) => {
    for (const offset of [0, 300]) {
      const plans = await plansOf(
        `query { asns(first: 20, offset: ${offset}, ${sort}) { edges { node { asn asnName rank cone { numberAsns } organization { orgId orgName rank } country { iso } } } } }`,
        {},
      );
      expect(plans.length).toBeGreaterThan(0);
      expect(plans.join('\n')).toContain(`USING COVERING INDEX ${index} (date=?`);
      for (const plan of plans) expect(plan).not.toContain('PRIMARY KEY');
    }
  });

  // Neighbours that show only a ranking table's columns (name, rank, cone, organization, country): migration 015's
  // index of one month's records carries them, so each of the page's lookups by key reads that index alone.
  it('reads the neighbours of a link page that show only what its index carries from the summary index', async () => {
    const busiest = (await busiestAsns(store.handle, store.dates.at(-1)!, 1)).map((row) => String(row.asn));
    const plans = await plansOf(
      'query ($asn: String!) { asnLinks(asn: $asn, first: 50) { edges { node { numberPaths asn1 { asn asnName rank cone { numberAsns } organization { orgId orgName rank } country { iso } } } } } }',
      { asn: busiest[0] },
    );
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatch(
      new RegExp(`SEARCH b USING COVERING INDEX ${ASN_SUMMARY_INDEX} \\(date=\\? AND asn=\\?\\)`),
    );
    expect(plans[0]).not.toContain('PRIMARY KEY (date=? AND asn=?)');
  });

  it('still reads an AS’s history as one range of the history index per ASN', async () => {
    const asns = (await busiestAsns(store.handle, store.dates.at(-1)!, 3)).map((row) => String(row.asn));
    const plans = await plansOf(
      'query ($asns: [String!], $start: String!, $end: String!) { asns(asns: $asns, dateStart: $start, dateEnd: $end, first: 20) { edges { node { asn date rank } } } }',
      { asns, start: store.dates[0], end: store.dates.at(-1) },
    );
    expect(plans.join('\n')).toContain(`USING COVERING INDEX ${HISTORY_INDEX} (asn=? AND date>? AND date<?)`);
  });
});

(PG_URL ? describe : describe.skip)('an AS’s history on postgres', () => {
  let store: LoadedStore;

  beforeAll(async () => {
    store = await openLoadedStore('postgres');
  }, LOAD_TIMEOUT_MS);
  afterAll(() => store?.close());

  it('runs as one named statement, planned once generically for every list of ASNs and months', async () => {
    // One connection per pool, so the statements it prepared are the ones pg_prepared_statements lists.
    const handle = openDatabase(store.url!, { poolSize: 1 });
    try {
      const busiest = (await busiestAsns(handle, store.dates.at(-1)!, 6)).map((row) => String(row.asn));
      const history = (asns: string[], start: string) =>
        queryData<{ asns: { edges: { node: { asn: string; date: string } }[] } }>(
          handle,
          'query ($asns: [String!], $start: String!, $end: String!) { asns(asns: $asns, dateStart: $start, dateEnd: $end, first: 20) { edges { node { asn date rank } } } }',
          { asns, start, end: store.dates.at(-1) },
        );
      // Lists of different lengths over different spans of months: one shape, so one statement.
      const answers = [
        await history(busiest.slice(0, 2), store.dates[0]!),
        await history(busiest, store.dates[0]!),
        await history(busiest.slice(3), store.dates.at(-2) ?? store.dates[0]!),
      ];
      expect(answers[1]!.asns.edges.length).toBeGreaterThan(answers[0]!.asns.edges.length);
      const { rows } = await handle.postgres!.query<{ generic_plans: string; custom_plans: string }>(
        `select generic_plans, custom_plans from pg_prepared_statements
          where statement like '%from "asns"%' and statement like '%"asn" = any(%' and statement like '%limit 20 %'`,
      );
      expect(rows.map((row) => [Number(row.generic_plans), Number(row.custom_plans)])).toEqual([[3, 0]]);
    } finally {
      await handle.close();
    }
  });
});
