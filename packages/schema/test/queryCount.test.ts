// No N+1: nested joins are batched per request, so the number of SQL statements does not grow with the page size.
import {
  busiestAsns,
  LOAD_TIMEOUT_MS,
  openLoadedStore,
  queryData,
  STORE_KINDS,
  type LoadedStore,
} from './support/store';
import { StatementCounter, throughPlugin } from './support/statementCounter';

// Data tests run real SQL on a loaded store; a busy CI machine can be slow, and no assertion here is about time.
jest.setTimeout(LOAD_TIMEOUT_MS);

describe.each(STORE_KINDS)('query count on %s', (kind) => {
  let store: LoadedStore;
  beforeAll(async () => {
    store = await openLoadedStore(kind);
  }, LOAD_TIMEOUT_MS);
  afterAll(() => store?.close());

  async function countedData<T>(query: string, first: number): Promise<{ statements: number; data: T }> {
    const counter = new StatementCounter();
    const counted = throughPlugin(store.handle, counter);
    const data = await queryData<T>(counted, query, { first });
    return { statements: counter.executed, data };
  }

  async function statementsFor(query: string, first: number): Promise<{ statements: number; nodes: number }> {
    const { statements, data } = await countedData<{ asns: { edges: unknown[] } }>(query, first);
    return { statements, nodes: data.asns.edges.length };
  }

  it('asns(first: 10000) with each organization and its rank costs the same few statements as first: 10', async () => {
    const query =
      'query($first: Int) { asns(first: $first) { edges { node { asn organization { orgName rank } } } } }';
    const small = await statementsFor(query, 10);
    const large = await statementsFor(query, 10000);
    expect(large.nodes).toBeGreaterThan(100);
    // dates, the ranked range, the unranked range (only when the page reaches it), the count, one batch of organizations
    expect(small.statements).toBeLessThanOrEqual(5);
    expect(large.statements).toBeLessThanOrEqual(5);
  });

  it.each([
    ['the default order', ''],
    ['a sorted page', ', sort: "-cone.numberAsns"'],
  ])("a page of ASNs in %s reads its nodes' organizations in its own statements", async (_label, sort) => {
    const plain = await statementsFor(
      `query($first: Int) { asns(first: $first${sort}) { edges { node { asn } } } }`,
      50,
    );
    const withOrganizations = await statementsFor(
      `query($first: Int) { asns(first: $first${sort}) { edges { node { asn organization { orgId orgName } } } } }`,
      50,
    );
    expect(withOrganizations.nodes).toBe(50);
    expect(withOrganizations.statements).toBe(plain.statements);
  });

  it('deeply nested joins (members, links, neighbours, countries, locations) stay constant in the page size', async () => {
    // Sorted by ASN, so both pages are read by the same statements: in the default order a page of the whole month
    // also reads the unranked range, one statement more whatever the nesting.
    const query = `query($first: Int) { asns(first: $first, sort: "asn") { totalCount edges { node {
      asn country { name }
      organization { orgName rank members { numberAsns asns(first: 3) { totalCount edges { node { asn organization { orgId } } } } } neighbors(first: 2) { edges { node { asn } } } }
      asnLinks(first: 3) { totalCount edges { node { relationship asn1 { asnName organization { orgName } } locations { totalCount edges { node { city country { iso } } } } } } } } } } }`;
    const small = await statementsFor(query, 10);
    const large = await statementsFor(query, 10000);
    expect(large.nodes).toBeGreaterThan(100);
    // Batches may merge differently, but a larger page never costs more statements than a small one.
    expect(large.statements).toBeLessThanOrEqual(small.statements);
    expect(large.statements).toBeLessThan(25);
  });

  it.each([
    ['all links', ''],
    ["the busiest ASN's links", 'busiest'],
  ])(
    'a page of %s whose ends show only their ASN reads no ASN record, and answers as the records do',
    async (_label, which) => {
      interface Ends {
        asnLinks: { edges: { node: { asn0: { asn: string }; asn1: { asn: string; date?: string } } }[] };
      }
      const [busiest] = await busiestAsns(store.handle, store.dates.at(-1)!, 1);
      const filter = which === 'busiest' ? `asn: "${busiest!.asn}", ` : '';
      const keysOnly = await countedData<Ends>(
        `query($first: Int) { asnLinks(${filter}first: $first) { edges { node { asn0 { asn } asn1 { asn date } } } } }`,
        200,
      );
      const noEnds = await countedData<Ends>(
        `query($first: Int) { asnLinks(${filter}first: $first) { edges { node { relationship } } } }`,
        200,
      );
      const records = await countedData<Ends>(
        `query($first: Int) { asnLinks(${filter}first: $first) { edges { node { asn0 { asn asnName } asn1 { asn date asnName } } } } }`,
        200,
      );
      expect(keysOnly.data.asnLinks.edges.length).toBeGreaterThan(20);
      expect(keysOnly.statements).toBe(noEnds.statements);
      expect(records.statements).toBeGreaterThan(noEnds.statements);
      const ends = (data: Ends) =>
        data.asnLinks.edges.map(({ node }) => [node.asn0.asn, node.asn1.asn, node.asn1.date ?? null]);
      expect(ends(keysOnly.data)).toEqual(ends(records.data));
    },
  );

  it('historic pages cost one batch per month, not per node', async () => {
    const query = `query($first: Int) { asns(first: $first, dateStart: "${store.dates[0]}", dateEnd: "${store.dates.at(-1)}") { edges { node { organization { rank } } } } }`;
    const large = await statementsFor(query, 10000);
    expect(large.nodes).toBeGreaterThan(store.dates.length * 100);
    // Read month by month (monthByMonth.ts), each month the page reaches costs at most its total (kept once counted),
    // its ranked and unranked stretches with the ranked count between them, and its organizations' batch.
    expect(large.statements).toBeLessThanOrEqual(5 * store.dates.length);
  });
});
