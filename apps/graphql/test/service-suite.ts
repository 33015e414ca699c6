// HTTP-level checks of every root field and the nested fields, run against a real service over real HTTP.
// Expected values are read from the same database with Kysely, never hard-coded.
import { sql } from 'kysely';
import { DEFAULT_CONE_STREAM_BUDGET } from '@asrank/domain';
import {
  graphql,
  graphqlData,
  startService,
  type LoadedDatabase,
  type Method,
  type RunningService,
} from './helpers';

interface Connection<T> {
  totalCount: number;
  pageInfo: {
    first: number;
    offset: number;
    status: string;
    hasPreviousPage: boolean;
    hasNextPage: boolean;
    startCursor: string;
    endCursor: string;
  };
  edges: { node: T; cursor: string }[];
}

const nodesOf = <T>(connection: Connection<T>): T[] => connection.edges.map((edge) => edge.node);
const numeric = (a: number, b: number) => a - b;

/** Registers the suite; `load` creates the loaded store once for the whole file. */
export function defineServiceSuite(load: () => Promise<LoadedDatabase>): void {
  let store: LoadedDatabase;
  let service: RunningService;
  let latest: string;

  beforeAll(async () => {
    store = await load();
    service = await startService(store.url);
    latest = [...store.dates].sort().at(-1)!;
  }, 120_000);

  afterAll(async () => {
    await service?.close();
    await store?.dispose();
  });

  const db = () => store.reader.db;

  /** The ranked ASN of the latest month that has an organization and the most links (a rich sample). */
  async function richAsn() {
    const row = await db()
      .selectFrom('asns')
      .selectAll()
      .where('date', '=', latest)
      .where('org_id', 'is not', null)
      .where('rank', 'is not', null)
      .orderBy('degree_total', 'desc')
      .orderBy('asn')
      .limit(1)
      .executeTakeFirstOrThrow();
    return row;
  }

  describe.each<Method>(['POST', 'GET'])('asn root field with its organization over %s', (method) => {
    it('returns the ASN record, its organization and that organization rank as stored', async () => {
      const expected = await richAsn();
      const org = await db()
        .selectFrom('organizations')
        .selectAll()
        .where('date', '=', latest)
        .where('org_id', '=', expected.org_id!)
        .executeTakeFirstOrThrow();
      const data = await graphqlData<{
        asn: Record<string, unknown> & {
          organization: Record<string, unknown>;
          cone: Record<string, number>;
          asnDegree: Record<string, number>;
        };
      }>(
        service.baseUrl,
        `query One($asn: String!) {
          asn(asn: $asn) {
            asn asnName rank source date cliqueMember seen ixp longitude latitude
            organization { orgId orgName rank }
            cone { numberAsns numberPrefixes numberAddresses }
            asnDegree { provider peer customer transit sibling total }
          }
        }`,
        { variables: { asn: String(expected.asn) }, method },
      );
      expect(data.asn).toMatchObject({
        asn: String(expected.asn),
        asnName: expected.asn_name,
        rank: Number(expected.rank),
        source: expected.source,
        date: latest,
        cliqueMember: expected.clique_member === 1,
        seen: expected.seen === 1,
        organization: {
          orgId: org.org_id,
          orgName: org.org_name,
          rank: org.rank == null ? null : Number(org.rank),
        },
        cone: {
          numberAsns: Number(expected.cone_asns),
          numberPrefixes: Number(expected.cone_prefixes),
          numberAddresses: Number(expected.cone_addresses),
        },
        asnDegree: {
          provider: Number(expected.degree_provider),
          peer: Number(expected.degree_peer),
          customer: Number(expected.degree_customer),
          transit: Number(expected.degree_transit),
          sibling: Number(expected.degree_sibling),
          total: Number(expected.degree_total),
        },
      });
    });
  });

  it('answers null for an ASN that is not in the data and a named argument error for a malformed one', async () => {
    const maxAsn = await db()
      .selectFrom('asns')
      .select((eb) => eb.fn.max('asn').as('max'))
      .executeTakeFirstOrThrow();
    const absent = String(Number(maxAsn.max) + 1);
    const missing = await graphqlData<{ asn: unknown }>(service.baseUrl, `{ asn(asn: "${absent}") { asn } }`);
    expect(missing.asn).toBeNull();

    const bad = await graphql(service.baseUrl, '{ asn(asn: "AS12x") { asn } }');
    expect(bad.body.errors?.[0]?.message).toMatch(/asn/);
    expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'asn' });
    expect(JSON.stringify(bad.body)).not.toMatch(/at .*\.ts:\d+|select |stack/i);
  });

  describe.each<Method>(['POST', 'GET'])('asns connection over %s', (method) => {
    it('pages the latest month by rank with the default page size and matching totals', async () => {
      const data = await graphqlData<{
        asns: Connection<{ asn: string; rank: number | null; date: string }>;
      }>(
        service.baseUrl,
        '{ asns(sort: "rank") { totalCount pageInfo { first offset status hasPreviousPage hasNextPage startCursor endCursor } edges { cursor node { asn rank date } } } }',
        { method },
      );
      const total = await db()
        .selectFrom('asns')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('date', '=', latest)
        .executeTakeFirstOrThrow();
      const expectedTop = await db()
        .selectFrom('asns')
        .select(['asn', 'rank'])
        .where('date', '=', latest)
        .where('rank', 'is not', null)
        .orderBy('rank')
        .orderBy('asn')
        .limit(40)
        .execute();
      expect(data.asns.totalCount).toBe(Number(total.n));
      expect(data.asns.pageInfo).toMatchObject({
        first: 40,
        offset: 0,
        status: 'success',
        hasPreviousPage: false,
        hasNextPage: Number(total.n) > 40,
      });
      const returned = nodesOf(data.asns);
      expect(returned.every((node) => node.date === latest)).toBe(true);
      // Unranked ASNs sort after ranked ones, so the first page starts with the ranked ones in rank order.
      const ranked = returned.filter((node) => node.rank !== null);
      expect(ranked.map((node) => node.asn)).toEqual(
        expectedTop.slice(0, ranked.length).map((row) => String(row.asn)),
      );
      expect(new Set(data.asns.edges.map((edge) => edge.cursor)).size).toBe(returned.length);
    });
  });

  it('pages with first and offset consistently: two half pages equal one page', async () => {
    const query =
      'query Page($first: Int, $offset: Int) { asns(first: $first, offset: $offset, sort: "asn") { pageInfo { first offset hasPreviousPage } edges { node { asn } } } }';
    const whole = await graphqlData<{ asns: Connection<{ asn: string }> }>(service.baseUrl, query, {
      variables: { first: 10, offset: 0 },
    });
    const head = await graphqlData<{ asns: Connection<{ asn: string }> }>(service.baseUrl, query, {
      variables: { first: 5, offset: 0 },
    });
    const tail = await graphqlData<{ asns: Connection<{ asn: string }> }>(service.baseUrl, query, {
      variables: { first: 5, offset: 5 },
    });
    expect([...nodesOf(head.asns), ...nodesOf(tail.asns)]).toEqual(nodesOf(whole.asns));
    expect(tail.asns.pageInfo).toMatchObject({ first: 5, offset: 5, hasPreviousPage: true });
    const asns = nodesOf(whole.asns).map((node) => Number(node.asn));
    expect(asns).toEqual([...asns].sort(numeric));
  });

  it('filters asns by a partial name, case-insensitively, and by an ASN list', async () => {
    const sample = await richAsn();
    const fragment = sample.asn_name.slice(0, Math.min(4, sample.asn_name.length)).toUpperCase();
    const data = await graphqlData<{
      asns: Connection<{ asn: string; asnName: string; organization: { orgName: string } | null }>;
    }>(
      service.baseUrl,
      `{ asns(name: ${JSON.stringify(fragment)}, first: 1000) { totalCount edges { node { asn asnName organization { orgName } } } } }`,
    );
    const expected = await db()
      .selectFrom('asns')
      .select('asn')
      .where('date', '=', latest)
      .where(sql<boolean>`lower(search_text) like ${`%${fragment.toLowerCase()}%`}`)
      .execute();
    expect(data.asns.totalCount).toBe(expected.length);
    expect(
      nodesOf(data.asns)
        .map((node) => Number(node.asn))
        .sort(numeric),
    ).toEqual(expected.map((row) => Number(row.asn)).sort(numeric));
    expect(nodesOf(data.asns).map((node) => node.asn)).toContain(String(sample.asn));

    const some = await db()
      .selectFrom('asns')
      .select('asn')
      .where('date', '=', latest)
      .orderBy('asn')
      .limit(3)
      .execute();
    const listed = await graphqlData<{ asns: Connection<{ asn: string }> }>(
      service.baseUrl,
      'query L($asns: [String!]) { asns(asns: $asns) { totalCount edges { node { asn } } } }',
      {
        variables: { asns: some.map((row) => String(row.asn)) },
        method: 'GET',
      },
    );
    expect(
      nodesOf(listed.asns)
        .map((node) => node.asn)
        .sort(),
    ).toEqual(some.map((row) => String(row.asn)).sort());
  });

  it('answers a historic asns query with one node per loaded month of the interval', async () => {
    const months = [...store.dates].sort();
    const asnInAllMonths = await db()
      .selectFrom('asns')
      .select(['asn', (eb) => eb.fn.countAll().as('months')])
      .groupBy('asn')
      .orderBy(sql`count(*)`, 'desc')
      .orderBy('asn')
      .limit(1)
      .executeTakeFirstOrThrow();
    const expectedRows = await db()
      .selectFrom('asns')
      .select(['date', 'rank'])
      .where('asn', '=', asnInAllMonths.asn)
      .orderBy('date')
      .execute();
    const compact = (date: string) => date.replace(/-/g, '');
    const data = await graphqlData<{ asns: Connection<{ asn: string; rank: number | null; date: string }> }>(
      service.baseUrl,
      `{ asns(asns: ["${asnInAllMonths.asn}"], dateStart: "${compact(months[0]!)}", dateEnd: "${months.at(-1)}") { totalCount edges { node { asn rank date } } } }`,
    );
    expect(nodesOf(data.asns)).toEqual(
      expectedRows.map((row) => ({
        asn: String(asnInAllMonths.asn),
        rank: row.rank == null ? null : Number(row.rank),
        date: row.date,
      })),
    );
    expect(months.length).toBeGreaterThan(1);
  });

  it('refuses an unknown sort key with a message naming sort and the allowed keys', async () => {
    const { status, body } = await graphql(service.baseUrl, '{ asns(sort: "bogus") { totalCount } }');
    expect(status).toBe(200);
    expect(body.errors?.[0]?.message).toMatch(/sort/);
    expect(body.errors?.[0]?.message).toMatch(/rank/);
    expect(body.errors?.[0]?.extensions?.['argument']).toBe('sort');
  });

  it('refuses an invalid nested sort under every organization of a page with one error, compiled or not', async () => {
    const query =
      '{ organizations(first: 50) { edges { node { orgId neighbors(first: 2, sort: "bogus") { totalCount } } } } }';
    // The first answer is graphql-js's, the next ones graphql-jit's (GRAPHQL_JIT_AFTER), whose own errors carry no
    // stack: each organization's field fails, and the client sees the first, named and placed, either way.
    const answers = [];
    for (let ask = 0; ask < 3; ask += 1) answers.push(await graphql(service.baseUrl, query));
    for (const { status, body } of answers) {
      expect(status).toBe(200);
      expect(body.data).toBeNull();
      expect(body.errors).toHaveLength(1);
      expect(body.errors?.[0]?.message).toMatch(
        /^sort key "bogus" is not sortable for asns; allowed keys: asn,/,
      );
      expect(body.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT', argument: 'sort' });
      expect(body.errors?.[0]?.path).toEqual(['organizations', 'edges', 0, 'node', 'neighbors']);
      expect(JSON.stringify(body)).not.toMatch(/\bat .*\.js:\d+/);
    }
    expect(answers[2]!.body).toEqual(answers[0]!.body);
  });

  it('returns an organization with members, cone, degree, links and neighbours as stored', async () => {
    const org = await db()
      .selectFrom('organizations')
      .selectAll()
      .where('date', '=', latest)
      .orderBy('number_asns', 'desc')
      .orderBy('org_id')
      .limit(1)
      .executeTakeFirstOrThrow();
    const memberRows = await db()
      .selectFrom('asns')
      .select('asn')
      .where('date', '=', latest)
      .where('org_id', '=', org.org_id)
      .execute();
    const data = await graphqlData<{
      organization: {
        orgId: string;
        orgName: string;
        rank: number | null;
        members: { numberAsns: number; numberAsnsSeen: number; asns: Connection<{ asn: string }> };
        cone: { numberAsns: number };
        asnDegree: { total: number; transit: number };
        asnLinks: Connection<{ asn0: { asn: string }; asn1: { asn: string } }>;
        neighbors: Connection<{ asn: string }>;
      };
    }>(
      service.baseUrl,
      `query Org($orgId: String!) {
        organization(orgId: $orgId) {
          orgId orgName rank
          members { numberAsns numberAsnsSeen asns(first: 1000) { totalCount edges { node { asn } } } }
          cone { numberAsns }
          asnDegree { total transit }
          asnLinks(first: 5) { totalCount edges { node { asn0 { asn } asn1 { asn } } } }
          neighbors(first: 5) { totalCount edges { node { asn } } }
        }
      }`,
      { variables: { orgId: org.org_id } },
    );
    const result = data.organization;
    expect(result).toMatchObject({
      orgId: org.org_id,
      orgName: org.org_name,
      rank: org.rank == null ? null : Number(org.rank),
      members: { numberAsns: Number(org.number_asns), numberAsnsSeen: Number(org.number_asns_seen) },
      cone: { numberAsns: Number(org.cone_asns) },
      asnDegree: { total: Number(org.degree_total), transit: Number(org.degree_transit) },
    });
    expect(
      nodesOf(result.members.asns)
        .map((node) => Number(node.asn))
        .sort(numeric),
    ).toEqual(memberRows.map((row) => Number(row.asn)).sort(numeric));
    const members = new Set(memberRows.map((row) => String(row.asn)));
    for (const link of nodesOf(result.asnLinks)) expect(members.has(link.asn0.asn)).toBe(true);
    expect(result.asnLinks.edges.length).toBeLessThanOrEqual(5);
    expect(result.neighbors.edges.length).toBeLessThanOrEqual(5);
  });

  it('pages organizations by rank and knows their total', async () => {
    const data = await graphqlData<{ organizations: Connection<{ orgId: string; rank: number | null }> }>(
      service.baseUrl,
      '{ organizations(first: 7, sort: "rank") { totalCount pageInfo { first hasNextPage } edges { node { orgId rank } } } }',
    );
    const total = await db()
      .selectFrom('organizations')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('date', '=', latest)
      .executeTakeFirstOrThrow();
    const top = await db()
      .selectFrom('organizations')
      .select('org_id')
      .where('date', '=', latest)
      .where('rank', 'is not', null)
      .orderBy('rank')
      .orderBy('org_id')
      .limit(7)
      .execute();
    expect(data.organizations.totalCount).toBe(Number(total.n));
    expect(data.organizations.pageInfo.first).toBe(7);
    const ranked = nodesOf(data.organizations).filter((node) => node.rank !== null);
    expect(ranked.map((node) => node.orgId)).toEqual(top.slice(0, ranked.length).map((row) => row.org_id));
  });

  it('answers asnLink and asnLinks(asn) with asn1 always the other end', async () => {
    const sample = await richAsn();
    const links = await db()
      .selectFrom('asn_links')
      .selectAll()
      .where('date', '=', latest)
      .where('asn0', '=', sample.asn)
      .orderBy('asn1')
      .execute();
    expect(links.length).toBeGreaterThan(0);
    const data = await graphqlData<{
      asnLinks: Connection<{
        asn0: { asn: string };
        asn1: { asn: string; asnName: string };
        relationship: string;
        numberPaths: number | null;
      }>;
    }>(
      service.baseUrl,
      `{ asnLinks(asn: "${sample.asn}", first: 100) { totalCount edges { node { asn0 { asn } asn1 { asn asnName } relationship numberPaths } } } }`,
    );
    expect(data.asnLinks.totalCount).toBe(links.length);
    const byNeighbour = new Map(links.map((link) => [String(link.asn1), link]));
    for (const node of nodesOf(data.asnLinks)) {
      expect(node.asn0.asn).toBe(String(sample.asn));
      const stored = byNeighbour.get(node.asn1.asn);
      expect(stored).toBeDefined();
      expect(node.relationship).toBe(stored!.relationship);
      expect(node.numberPaths).toBe(stored!.number_paths == null ? null : Number(stored!.number_paths));
    }

    const one = links[0]!;
    const single = await graphqlData<{
      asnLink: {
        asn0: { asn: string };
        asn1: { asn: string };
        relationship: string;
        locations: Connection<{ locId: string }>;
      };
    }>(
      service.baseUrl,
      `{ asnLink(asn0: "${one.asn0}", asn1: "${one.asn1}") { asn0 { asn } asn1 { asn } relationship locations { totalCount edges { node { locId } } } } }`,
    );
    expect(single.asnLink).toMatchObject({
      asn0: { asn: String(one.asn0) },
      asn1: { asn: String(one.asn1) },
      relationship: one.relationship,
    });
    const [low, high] = [Number(one.asn0), Number(one.asn1)].sort(numeric);
    const locations = await db()
      .selectFrom('link_locations')
      .select('loc_id')
      .where('date', '=', latest)
      .where('asn0', '=', low!)
      .where('asn1', '=', high!)
      .execute();
    expect(
      nodesOf(single.asnLink.locations)
        .map((node) => node.locId)
        .sort(),
    ).toEqual(locations.map((row) => row.loc_id).sort());
  });

  it('lists the links of an ASN as its nested asnLinks field', async () => {
    const sample = await richAsn();
    const count = await db()
      .selectFrom('asn_links')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('date', '=', latest)
      .where('asn0', '=', sample.asn)
      .executeTakeFirstOrThrow();
    const data = await graphqlData<{ asn: { asnLinks: Connection<{ asn1: { asn: string } }> } }>(
      service.baseUrl,
      `{ asn(asn: "${sample.asn}") { asnLinks(first: 3) { totalCount pageInfo { first } edges { node { asn1 { asn } } } } } }`,
    );
    expect(data.asn.asnLinks.totalCount).toBe(Number(count.n));
    expect(data.asn.asnLinks.edges.length).toBe(Math.min(3, Number(count.n)));
  });

  it('pages locations sorted by -country,region as the spec sample does', async () => {
    const total = await db()
      .selectFrom('locations')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('date', '=', latest)
      .executeTakeFirstOrThrow();
    const data = await graphqlData<{
      locations: Connection<{
        locId: string;
        city: string | null;
        region: string | null;
        country: { iso: string } | null;
        population: number | null;
      }>;
    }>(
      service.baseUrl,
      '{ locations(first: 25, sort: "-country,region") { totalCount edges { node { locId city region country { iso } population } } } }',
    );
    expect(data.locations.totalCount).toBe(Number(total.n));
    const isos = nodesOf(data.locations).map((node) => node.country?.iso ?? '');
    const nonEmpty = isos.filter((iso) => iso !== '');
    expect(nonEmpty).toEqual([...nonEmpty].sort().reverse());
  });

  it('answers dataset(date) in digits-only form and datasets as a connection', async () => {
    const stored = await db().selectFrom('datasets').selectAll().orderBy('date').execute();
    const last = stored.at(-1)!;
    const data = await graphqlData<{
      dataset: {
        date: string;
        datasetId: string;
        ipVersion: number;
        numberAsns: number;
        numberPrefixes: number;
        numberOrganizations: number;
        clique: string[];
      };
      datasets: Connection<{ date: string }>;
    }>(
      service.baseUrl,
      `{ dataset(date: "${last.date.replace(/-/g, '')}") { date datasetId ipVersion numberAsns numberPrefixes numberOrganizations clique }
         datasets(first: 100) { totalCount edges { node { date } } } }`,
    );
    expect(data.dataset).toMatchObject({
      date: last.date,
      datasetId: last.dataset_id,
      ipVersion: Number(last.ip_version),
      numberAsns: Number(last.number_asns),
      numberPrefixes: Number(last.number_prefixes),
      numberOrganizations: Number(last.number_organizations),
    });
    expect(data.dataset.clique.map(String).sort()).toEqual(
      (JSON.parse(last.clique) as unknown[]).map(String).sort(),
    );
    expect(data.datasets.totalCount).toBe(stored.length);
    expect(
      nodesOf(data.datasets)
        .map((node) => node.date)
        .sort(),
    ).toEqual(stored.map((row) => row.date));
  });

  it('answers asnCone with the stored cone size and its member ASNs', async () => {
    const sample = await richAsn();
    const members = await db()
      .selectFrom('cone_members')
      .select('member_asn')
      .where('date', '=', latest)
      .where('asn', '=', sample.asn)
      .execute();
    const data = await graphqlData<{
      asnCone: {
        date: string;
        asn: { asn: string; rank: number | null };
        cone: { numberAsns: number };
        asns: Connection<{ asn: string; date: string }>;
      };
    }>(
      service.baseUrl,
      `{ asnCone(asn: "${sample.asn}") { date asn { asn rank date asnName } cone { numberAsns } asns(first: 10000) { totalCount pageInfo { hasNextPage } edges { node { asn date asnName } } } } }`,
    );
    expect(data.asnCone.date).toBe(latest);
    expect(data.asnCone.asn.asn).toBe(String(sample.asn));
    expect(data.asnCone.cone.numberAsns).toBe(Number(sample.cone_asns));
    expect(data.asnCone.asns.totalCount).toBe(members.length);
    expect(
      nodesOf(data.asnCone.asns)
        .map((node) => Number(node.asn))
        .sort(numeric),
    ).toEqual(members.map((row) => Number(row.member_asn)).sort(numeric));
  });

  it('walks asnConesStream page by page to the end, seeing every member and prefix exactly once', async () => {
    const sample = await richAsn();
    const members = await db()
      .selectFrom('cone_members')
      .select('member_asn')
      .where('date', '=', latest)
      .where('asn', '=', sample.asn)
      .execute();
    // Cone prefixes = distinct prefixes originated by any member, computed here from plain single-table reads
    // (a fresh store has no planner statistics yet, and the sample is small).
    const memberSet = new Set(members.map((row) => Number(row.member_asn)));
    const origins = await db()
      .selectFrom('prefix_origins')
      .select(['asn', 'prefix_id'])
      .where('date', '=', latest)
      .execute();
    const conePrefixIds = new Set(
      origins.filter((row) => memberSet.has(Number(row.asn))).map((row) => Number(row.prefix_id)),
    );
    const monthPrefixes = await db()
      .selectFrom('prefixes')
      .select(['prefix_id', 'network', 'length'])
      .where('date', '=', latest)
      .execute();
    const conePrefixes = monthPrefixes.filter((row) => conePrefixIds.has(Number(row.prefix_id)));
    const seenAsns: number[] = [];
    const seenPrefixes: string[] = [];
    let pageCursor = '';
    let pages = 0;
    for (;;) {
      const data = await graphqlData<{
        asnConesStream: {
          totalCount: number;
          pageInfo: { pageCursor: string; nextPageCursor: string; hasNextPage: boolean };
          pages: {
            rank: number | null;
            asn: { asn: string; date: string };
            asns: { asn: string; date: string; asnName: string; rank: number | null }[];
            prefixes: { date: string; network: string; length: number }[];
          }[];
        };
      }>(
        service.baseUrl,
        `query Stream($asns: [String!], $pageCursor: String) { asnConesStream(asns: $asns, pageCursor: $pageCursor) {
          totalCount pageInfo { pageCursor nextPageCursor hasNextPage }
          pages { rank asn { asn date asnName } asns { asn date asnName rank source cliqueMember seen ixp longitude latitude } prefixes { date network length } } } }`,
        { variables: { asns: [String(sample.asn)], pageCursor }, method: pages % 2 === 0 ? 'POST' : 'GET' },
      );
      const stream = data.asnConesStream;
      expect(stream.totalCount).toBe(1);
      // Cursors are "cone,asnIndex,prefixIndex" as the spec describes.
      expect(stream.pageInfo.nextPageCursor).toMatch(/^\d+,\d*,\d*$/);
      for (const item of stream.pages) {
        expect(item.asn).toMatchObject({ asn: String(sample.asn), date: latest });
        expect(item.rank).toBe(sample.rank == null ? null : Number(sample.rank));
        for (const member of item.asns) seenAsns.push(Number(member.asn));
        for (const prefix of item.prefixes) seenPrefixes.push(`${prefix.network}/${prefix.length}`);
      }
      pages += 1;
      if (!stream.pageInfo.hasNextPage) break;
      expect(stream.pageInfo.nextPageCursor).not.toBe(pageCursor);
      pageCursor = stream.pageInfo.nextPageCursor;
      expect(pages).toBeLessThan(10_000);
    }
    // Pages hold at most the stream budget of items, so the walk needs at least this many of them.
    expect(pages).toBeGreaterThanOrEqual(
      Math.ceil((members.length + conePrefixes.length) / DEFAULT_CONE_STREAM_BUDGET),
    );
    expect(seenAsns).toEqual([...new Set(seenAsns)]);
    expect([...seenAsns].sort(numeric)).toEqual(members.map((row) => Number(row.member_asn)).sort(numeric));
    expect(seenPrefixes).toEqual([...new Set(seenPrefixes)]);
    expect([...seenPrefixes].sort()).toEqual(
      conePrefixes.map((row) => `${row.network}/${row.length}`).sort(),
    );
  });

  it('answers several root fields of different types in one query', async () => {
    const sample = await richAsn();
    const data = await graphqlData<{
      asn: { asn: string };
      organization: { orgId: string };
      datasets: { totalCount: number };
      asnLinks: { totalCount: number };
    }>(
      service.baseUrl,
      `{ asn(asn: "${sample.asn}") { asn } organization(orgId: "${sample.org_id}") { orgId } datasets { totalCount } asnLinks(asn: "${sample.asn}", first: 1) { totalCount } }`,
    );
    expect(data.asn.asn).toBe(String(sample.asn));
    expect(data.organization.orgId).toBe(sample.org_id);
    const links = await db()
      .selectFrom('asn_links')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('date', '=', latest)
      .where('asn0', '=', sample.asn)
      .executeTakeFirstOrThrow();
    expect(data.datasets.totalCount).toBe(store.dates.length);
    expect(data.asnLinks.totalCount).toBe(Number(links.n));
  });

  it('serves the spec sample query shape: an ASN with its organization and that organization rank', async () => {
    const sample = await richAsn();
    const { status, body } = await graphql<{ asn: { asn: string; organization: { rank: number | null } } }>(
      service.baseUrl,
      `{ asn(asn:"${sample.asn}") { asn asnName rank organization { orgId orgName rank } } }`,
    );
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['data']);
    expect(body.data?.asn.asn).toBe(String(sample.asn));
  });
}
