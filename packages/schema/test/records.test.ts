// Every root field and nested field over the loaded sample, checked against the stored rows.
import { LOAD_TIMEOUT_MS, openLoadedStore, queryData, STORE_KINDS, type LoadedStore } from './support/store';

// Data tests run real SQL on a loaded store; a busy CI machine can be slow, and no assertion here is about time.
jest.setTimeout(LOAD_TIMEOUT_MS);

type Row = Record<string, unknown>;
const num = (value: unknown) => (value == null ? null : Number(value));

describe.each(STORE_KINDS)('records on %s', (kind) => {
  let store: LoadedStore;
  let latest: string;
  let asnRows: Row[];

  beforeAll(async () => {
    store = await openLoadedStore(kind);
    latest = store.dates.at(-1)!;
    asnRows = await store.handle.db
      .selectFrom('asns')
      .selectAll()
      .where('date', '=', latest)
      .orderBy('asn')
      .execute();
  }, LOAD_TIMEOUT_MS);
  afterAll(() => store?.close());

  /** A ranked ASN with an organization and a country, the kind of record the spec's samples show. */
  const sampleAsn = () =>
    asnRows.find(
      (row) =>
        row.rank != null && row.org_id != null && row.country_iso != null && Number(row.degree_total) > 1,
    )!;

  it('asn returns every field of the stored record, its country and its organization with that organization’s rank (spec sample)', async () => {
    const row = sampleAsn();
    const org = await store.handle.db
      .selectFrom('organizations')
      .selectAll()
      .where('date', '=', latest)
      .where('org_id', '=', String(row.org_id))
      .executeTakeFirstOrThrow();
    const country = await store.handle.db
      .selectFrom('countries')
      .selectAll()
      .where('iso', '=', String(row.country_iso))
      .executeTakeFirst();
    const data = await queryData<{ asn: Row & { organization: Row; country: Row | null } }>(
      store.handle,
      `query($asn: String!) { asn(asn: $asn) {
        asn asnName rank source date cliqueMember seen ixp longitude latitude
        country { iso name capital continent languages population area }
        organization { orgId orgName rank date }
        cone { numberAsns numberPrefixes numberAddresses }
        asnDegree { provider peer customer sibling transit total }
        announcing { numberPrefixes numberAddresses } } }`,
      { asn: String(row.asn) },
    );
    expect(data.asn).toEqual({
      asn: String(row.asn),
      asnName: row.asn_name,
      rank: num(row.rank),
      source: row.source,
      date: latest,
      cliqueMember: row.clique_member === 1,
      seen: row.seen === 1,
      ixp: row.ixp == null ? null : row.ixp === 1,
      longitude: row.longitude,
      latitude: row.latitude,
      country: country
        ? {
            iso: country.iso,
            name: country.name,
            capital: country.capital,
            continent: country.continent,
            languages: JSON.parse(country.languages),
            population: num(country.population),
            area: country.area,
          }
        : null,
      organization: { orgId: org.org_id, orgName: org.org_name, rank: num(org.rank), date: latest },
      cone: {
        numberAsns: num(row.cone_asns),
        numberPrefixes: num(row.cone_prefixes),
        numberAddresses: num(row.cone_addresses),
      },
      asnDegree: {
        provider: row.degree_provider,
        peer: row.degree_peer,
        customer: row.degree_customer,
        sibling: row.degree_sibling,
        transit: row.degree_transit,
        total: row.degree_total,
      },
      announcing: {
        numberPrefixes: num(row.announcing_prefixes),
        numberAddresses: num(row.announcing_addresses),
      },
    });
  });

  it('answers several root fields of different types in one query (spec sample)', async () => {
    const row = sampleAsn();
    const data = await queryData<{ asn: Row; organization: Row; dataset: Row; asns: { totalCount: number } }>(
      store.handle,
      `query($asn: String!, $org: String!) { asn(asn: $asn) { asnName } organization(orgId: $org) { orgName } dataset { date } asns { totalCount } }`,
      { asn: String(row.asn), org: String(row.org_id) },
    );
    const org = await store.handle.db
      .selectFrom('organizations')
      .select('org_name')
      .where('date', '=', latest)
      .where('org_id', '=', String(row.org_id))
      .executeTakeFirstOrThrow();
    expect(data).toEqual({
      asn: { asnName: row.asn_name },
      organization: { orgName: org.org_name },
      dataset: { date: latest },
      asns: { totalCount: asnRows.length },
    });
  });

  it('asns pages through the latest month by rank with connection metadata', async () => {
    const expected = [...asnRows]
      .sort((a, b) => (num(a.rank) ?? Infinity) - (num(b.rank) ?? Infinity) || Number(a.asn) - Number(b.asn))
      .map((row) => String(row.asn));
    const query = `query($first: Int, $offset: Int) { asns(first: $first, offset: $offset) { totalCount pageInfo { first offset status hasPreviousPage hasNextPage startCursor endCursor } edges { cursor node { asn date } } } }`;
    const page1 = await queryData<{
      asns: {
        totalCount: number;
        pageInfo: Row;
        edges: { cursor: string; node: { asn: string; date: string } }[];
      };
    }>(store.handle, query);
    expect(page1.asns.totalCount).toBe(asnRows.length);
    expect(page1.asns.pageInfo).toMatchObject({
      first: 40,
      offset: 0,
      status: 'success',
      hasPreviousPage: false,
      hasNextPage: asnRows.length > 40,
    });
    expect(page1.asns.edges.map((edge) => edge.node.asn)).toEqual(expected.slice(0, 40));
    expect(new Set(page1.asns.edges.map((edge) => edge.node.date))).toEqual(new Set([latest]));
    expect(page1.asns.pageInfo.startCursor).toBe(page1.asns.edges[0]!.cursor);
    expect(page1.asns.pageInfo.endCursor).toBe(page1.asns.edges.at(-1)!.cursor);
    const offset = expected.length - 5;
    const last = await queryData<{ asns: { pageInfo: Row; edges: { node: { asn: string } }[] } }>(
      store.handle,
      query,
      { first: 10, offset },
    );
    expect(last.asns.edges.map((edge) => edge.node.asn)).toEqual(expected.slice(offset));
    expect(last.asns.pageInfo).toMatchObject({
      first: 10,
      offset,
      hasPreviousPage: true,
      hasNextPage: false,
    });
    // A page across the end of the ranked ASNs continues with the unranked ones.
    const ranked = asnRows.filter((row) => row.rank != null).length;
    expect(ranked).toBeLessThan(asnRows.length);
    const across = await queryData<{ asns: { edges: { node: { asn: string } }[] } }>(store.handle, query, {
      first: 10,
      offset: ranked - 3,
    });
    expect(across.asns.edges.map((edge) => edge.node.asn)).toEqual(expected.slice(ranked - 3, ranked + 7));
  });

  it('asns with sort "rank" or "rank,asn" pages exactly as the default order, across the unranked ASNs too', async () => {
    const expected = [...asnRows]
      .sort((a, b) => (num(a.rank) ?? Infinity) - (num(b.rank) ?? Infinity) || Number(a.asn) - Number(b.asn))
      .map((row) => String(row.asn));
    const ranked = asnRows.filter((row) => row.rank != null).length;
    const query = `query($first: Int, $offset: Int, $sort: String) { asns(first: $first, offset: $offset, sort: $sort) { edges { node { asn rank asnName } } } }`;
    for (const sort of ['rank', 'rank,asn']) {
      for (const offset of [0, ranked - 3, ranked + 1]) {
        const data = await queryData<{ asns: { edges: { node: { asn: string; asnName: string } }[] } }>(
          store.handle,
          query,
          { first: 10, offset, sort },
        );
        expect(data.asns.edges.map((edge) => edge.node.asn)).toEqual(expected.slice(offset, offset + 10));
        // Whole rows come back, not only the keys the page was chosen by.
        const byAsn = new Map(asnRows.map((row) => [String(row.asn), row.asn_name]));
        for (const edge of data.asns.edges) expect(edge.node.asnName).toBe(byAsn.get(edge.node.asn));
      }
    }
  });

  it('Asn.asnLinks lists the stored links of the ASN with asn0 = the ASN and asn1 the neighbour', async () => {
    const row = sampleAsn();
    const links = await store.handle.db
      .selectFrom('asn_links')
      .selectAll()
      .where('date', '=', latest)
      .where('asn0', '=', Number(row.asn))
      .execute();
    const data = await queryData<{
      asn: {
        asnLinks: {
          totalCount: number;
          edges: {
            node: {
              asn0: { asn: string };
              asn1: { asn: string; date: string };
              relationship: string;
              numberPaths: number | null;
              date: string;
            };
          }[];
        };
      };
    }>(
      store.handle,
      `query($asn: String!) { asn(asn: $asn) { asnLinks(first: 10000) { totalCount edges { node { asn0 { asn } asn1 { asn date } relationship numberPaths date } } } } }`,
      { asn: String(row.asn) },
    );
    expect(data.asn.asnLinks.totalCount).toBe(links.length);
    const got = data.asn.asnLinks.edges.map((edge) => edge.node);
    expect(new Set(got.map((link) => link.asn0.asn))).toEqual(new Set([String(row.asn)]));
    expect(got.map((link) => `${link.asn1.asn}:${link.relationship}:${link.numberPaths}`).sort()).toEqual(
      links.map((link) => `${link.asn1}:${link.relationship}:${num(link.number_paths)}`).sort(),
    );
    expect(new Set(got.map((link) => link.asn1.date))).toEqual(new Set([latest]));
  });

  it('organization returns members, links, neighbours, cone and degrees of the stored organization', async () => {
    const orgRows = await store.handle.db
      .selectFrom('organizations')
      .selectAll()
      .where('date', '=', latest)
      .orderBy('number_asns', 'desc')
      .orderBy('org_id')
      .execute();
    const org = orgRows[0]!;
    const members = asnRows.filter((row) => row.org_id === org.org_id).map((row) => Number(row.asn));
    const memberSet = new Set(members);
    const orgOf = new Map(asnRows.map((row) => [Number(row.asn), row.org_id]));
    const links = (
      await store.handle.db.selectFrom('asn_links').selectAll().where('date', '=', latest).execute()
    ).filter((link) => memberSet.has(Number(link.asn0)) && orgOf.get(Number(link.asn1)) !== org.org_id);
    const neighbors = new Set(links.map((link) => Number(link.asn1)).filter((asn) => orgOf.has(asn)));
    const data = await queryData<{
      organization: Row & {
        members: {
          numberAsns: number;
          numberAsnsSeen: number;
          asns: { totalCount: number; edges: { node: { asn: string; organization: { orgId: string } } }[] };
        };
        asnLinks: { totalCount: number; edges: { node: { asn0: { asn: string }; asn1: { asn: string } } }[] };
        neighbors: { totalCount: number; edges: { node: { asn: string } }[] };
      };
    }>(
      store.handle,
      `query($org: String!) { organization(orgId: $org) {
        orgId orgName rank date seen
        members { numberAsns numberAsnsSeen asns(first: 10000) { totalCount edges { node { asn organization { orgId } } } } }
        asnLinks(first: 10000) { totalCount edges { node { asn0 { asn } asn1 { asn } } } }
        neighbors(first: 10000) { totalCount edges { node { asn } } }
        cone { numberAsns numberPrefixes numberAddresses }
        asnDegree { provider peer customer sibling transit total }
        orgDegree { total transit } } }`,
      { org: org.org_id },
    );
    const got = data.organization;
    expect({
      orgId: got.orgId,
      orgName: got.orgName,
      rank: got.rank,
      date: got.date,
      seen: got.seen,
    }).toEqual({
      orgId: org.org_id,
      orgName: org.org_name,
      rank: num(org.rank),
      date: latest,
      seen: org.seen === 1,
    });
    expect(got.members.numberAsns).toBe(Number(org.number_asns));
    expect(got.members.numberAsnsSeen).toBe(Number(org.number_asns_seen));
    expect(got.members.asns.totalCount).toBe(members.length);
    expect(got.members.asns.edges.map((edge) => Number(edge.node.asn)).sort((a, b) => a - b)).toEqual(
      [...members].sort((a, b) => a - b),
    );
    expect(new Set(got.members.asns.edges.map((edge) => edge.node.organization.orgId))).toEqual(
      new Set([org.org_id]),
    );
    expect(got.asnLinks.totalCount).toBe(links.length);
    expect(got.asnLinks.edges.map((edge) => `${edge.node.asn0.asn}-${edge.node.asn1.asn}`).sort()).toEqual(
      links.map((link) => `${link.asn0}-${link.asn1}`).sort(),
    );
    expect(got.neighbors.totalCount).toBe(neighbors.size);
    expect(new Set(got.neighbors.edges.map((edge) => Number(edge.node.asn)))).toEqual(neighbors);
    expect(got.cone).toEqual({
      numberAsns: num(org.cone_asns),
      numberPrefixes: num(org.cone_prefixes),
      numberAddresses: num(org.cone_addresses),
    });
    expect(got.asnDegree).toEqual({
      provider: org.degree_provider,
      peer: org.degree_peer,
      customer: org.degree_customer,
      sibling: org.degree_sibling,
      transit: org.degree_transit,
      total: org.degree_total,
    });
    expect(got.orgDegree).toEqual({ total: org.org_degree_total, transit: org.org_degree_transit });
  });

  /** A month's organizations (id, rank, cone size), and the order of their ids (byte-wise, as the store sorts them). */
  const organizationsOf = (month: string) =>
    store.handle.db
      .selectFrom('organizations')
      .select(['org_id', 'rank', 'cone_asns'])
      .where('date', '=', month)
      .execute();
  const byOrgId = (a: { org_id: string }, b: { org_id: string }) =>
    a.org_id < b.org_id ? -1 : a.org_id > b.org_id ? 1 : 0;

  it('organizations lists the latest month by rank', async () => {
    const orgRows = await organizationsOf(latest);
    const expected = orgRows
      .sort((a, b) => (num(a.rank) ?? Infinity) - (num(b.rank) ?? Infinity) || byOrgId(a, b))
      .map((row) => row.org_id);
    const data = await queryData<{
      organizations: { totalCount: number; edges: { node: { orgId: string } }[] };
    }>(store.handle, '{ organizations(first: 10000) { totalCount edges { node { orgId } } } }');
    expect(data.organizations.totalCount).toBe(orgRows.length);
    expect(data.organizations.edges.map((edge) => edge.node.orgId)).toEqual(expected);
    // An explicit rank sort is the default order, read the same way, across the unranked organizations too.
    const ranked = orgRows.filter((row) => row.rank != null).length;
    for (const offset of [0, ranked - 2, ranked + 1]) {
      const page = await queryData<{ organizations: { edges: { node: { orgId: string } }[] } }>(
        store.handle,
        'query($offset: Int) { organizations(first: 5, offset: $offset, sort: "rank") { edges { node { orgId } } } }',
        { offset },
      );
      expect(page.organizations.edges.map((edge) => edge.node.orgId)).toEqual(
        expected.slice(offset, offset + 5),
      );
    }
  });

  it('organizations pages a client sort of any month the same way, from one statement per form', async () => {
    // On SQLite one month's sorted page runs SQL compiled once per order and form, its month and page bound at each
    // run: pages of two months at several offsets on one handle must each be their own month's order.
    for (const month of [latest, store.dates[0]!]) {
      const expected = (await organizationsOf(month))
        .sort((a, b) => Number(b.cone_asns) - Number(a.cone_asns) || byOrgId(a, b))
        .map((row) => row.org_id);
      expect(expected.length).toBeGreaterThan(20);
      for (const offset of [0, 3, Math.floor(expected.length / 2), expected.length - 2]) {
        const page = await queryData<{ organizations: { edges: { node: { orgId: string } }[] } }>(
          store.handle,
          `query($offset: Int) { organizations(first: 6, offset: $offset, sort: "-cone.numberAsns",
            dateStart: "${month}", dateEnd: "${month}") { edges { node { orgId } } } }`,
          { offset },
        );
        expect({ month, offset, orgIds: page.organizations.edges.map((edge) => edge.node.orgId) }).toEqual({
          month,
          offset,
          orgIds: expected.slice(offset, offset + 6),
        });
      }
    }
  });

  it('asnLink and asnLinks return the stored links; each link once without arguments', async () => {
    const link = await store.handle.db
      .selectFrom('asn_links')
      .selectAll()
      .where('date', '=', latest)
      .where('canonical', '=', 1)
      .orderBy('asn0')
      .executeTakeFirstOrThrow();
    const locations = await store.handle.db
      .selectFrom('link_locations')
      .select('loc_id')
      .where('date', '=', latest)
      .where('asn0', '=', link.asn0)
      .where('asn1', '=', link.asn1)
      .orderBy('loc_id')
      .execute();
    const data = await queryData<{
      asnLink: Row & {
        asn0: { asn: string };
        asn1: { asn: string };
        locations: { totalCount: number; edges: { node: { locId: string } }[] };
      };
      asnLinks: { totalCount: number };
    }>(
      store.handle,
      `query($a: String!, $b: String!) { asnLink(asn0: $a, asn1: $b) { asn0 { asn } asn1 { asn } relationship numberPaths correctedBy date locations { totalCount edges { node { locId } } } } asnLinks { totalCount } }`,
      { a: String(link.asn0), b: String(link.asn1) },
    );
    expect(data.asnLink).toEqual({
      asn0: { asn: String(link.asn0) },
      asn1: { asn: String(link.asn1) },
      relationship: link.relationship,
      numberPaths: num(link.number_paths),
      correctedBy: num(link.corrected_by),
      date: latest,
      locations: {
        totalCount: locations.length,
        edges: locations.map((location) => ({ node: { locId: location.loc_id } })),
      },
    });
    const canonical = await store.handle.db
      .selectFrom('asn_links')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('date', '=', latest)
      .where('canonical', '=', 1)
      .executeTakeFirstOrThrow();
    expect(data.asnLinks.totalCount).toBe(Number(canonical.n));
  });

  it('locations returns the stored locations with their countries', async () => {
    const rows = await store.handle.db
      .selectFrom('locations')
      .selectAll()
      .where('date', '=', latest)
      .execute();
    const data = await queryData<{
      locations: { totalCount: number; edges: { node: Row & { country: { iso: string } | null } }[] };
    }>(
      store.handle,
      '{ locations(first: 10000) { totalCount edges { node { locId city region country { iso } continent latitude longitude population date } } } }',
    );
    expect(data.locations.totalCount).toBe(rows.length);
    const byId = new Map(rows.map((row) => [row.loc_id, row]));
    for (const { node } of data.locations.edges) {
      const row = byId.get(String(node.locId))!;
      expect(node).toEqual({
        locId: row.loc_id,
        city: row.city,
        region: row.region,
        country: row.country_iso ? { iso: row.country_iso } : null,
        continent: row.continent,
        latitude: row.latitude,
        longitude: row.longitude,
        population: num(row.population),
        date: latest,
      });
    }
  });

  it('dataset and datasets return the stored months', async () => {
    const rows = await store.handle.db.selectFrom('datasets').selectAll().orderBy('date').execute();
    const data = await queryData<{
      dataset: Row;
      first: Row | null;
      datasets: { totalCount: number; edges: { node: { date: string } }[] };
    }>(
      store.handle,
      `query($first: String) { dataset { datasetId modifiedAt date ipVersion country { iso } asnReservedRanges { start end } asnAssignedRanges { start end } clique asnIxs sources { url date name }
        numberAddresses numberPrefixes numberAsns numberAsnsSeen numberOrganizations numberOrganizationsSeen }
        first: dataset(date: $first) { date } datasets { totalCount edges { node { date } } } }`,
      { first: rows[0]!.date.replaceAll('-', '') },
    );
    const row = rows.at(-1)!;
    const ranges = (json: string) =>
      (JSON.parse(json) as unknown[][]).map(([start, end]) => ({ start: String(start), end: String(end) }));
    expect(data.dataset).toEqual({
      datasetId: row.dataset_id,
      modifiedAt: row.modified_at,
      date: row.date,
      ipVersion: row.ip_version,
      country: row.country_iso ? { iso: row.country_iso } : null,
      asnReservedRanges: ranges(row.asn_reserved_ranges),
      asnAssignedRanges: ranges(row.asn_assigned_ranges),
      clique: (JSON.parse(row.clique) as unknown[]).map(String),
      asnIxs: (JSON.parse(row.asn_ixs) as unknown[]).map(String),
      sources: (JSON.parse(row.sources) as Row[]).map((source) => ({
        url: source.url ?? null,
        date: source.date ?? null,
        name: source.name ?? null,
      })),
      numberAddresses: num(row.number_addresses),
      numberPrefixes: num(row.number_prefixes),
      numberAsns: num(row.number_asns),
      numberAsnsSeen: num(row.number_asns_seen),
      numberOrganizations: num(row.number_organizations),
      numberOrganizationsSeen: num(row.number_organizations_seen),
    });
    expect(data.first).toEqual({ date: rows[0]!.date });
    expect(data.datasets.totalCount).toBe(rows.length);
    expect(data.datasets.edges.map((edge) => edge.node.date)).toEqual(rows.map((r) => r.date));
  });

  it('a historic asns query returns one node per month in date order, each joined to its own month (spec sample)', async () => {
    const row = sampleAsn();
    const stored = await store.handle.db
      .selectFrom('asns')
      .select(['date', 'rank', 'org_id'])
      .where('asn', '=', Number(row.asn))
      .orderBy('date')
      .execute();
    const data = await queryData<{
      asns: {
        totalCount: number;
        edges: {
          node: { asn: string; rank: number | null; date: string; organization: { date: string } | null };
        }[];
      };
    }>(
      store.handle,
      `query($asn: String!, $start: String, $end: String) { asns(asns: [$asn], dateStart: $start, dateEnd: $end) { totalCount edges { node { asn rank date organization { date } } } } }`,
      { asn: String(row.asn), start: store.dates[0], end: latest },
    );
    expect(data.asns.totalCount).toBe(stored.length);
    expect(stored.length).toBeGreaterThan(1);
    expect(data.asns.edges.map((edge) => edge.node)).toEqual(
      stored.map((month) => ({
        asn: String(row.asn),
        rank: num(month.rank),
        date: month.date,
        organization: month.org_id ? { date: month.date } : null,
      })),
    );
  });
});
