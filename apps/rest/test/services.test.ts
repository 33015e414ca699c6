// End to end over real listeners: the GraphQL service on the sample data and the REST service in front of
// it. Every route's answer must equal the GraphQL service's answer to the equivalent query sent here
// directly; populate=1 records are checked member by member against independently queried values; an
// outage of the GraphQL service gives a quick 502 and the REST service recovers when it is back.
import * as queries from '../src/graphql/queries';
import { getJson, postGraphql } from './http';
import { startServices, type Services } from './services';

interface GraphqlBody<T> {
  data: T;
  errors?: unknown;
}

interface SampleFacts {
  dates: string[];
  topAsn: string;
  orgId: string;
  nameFragment: string;
  linkedAsn: string;
}

const compact = (date: string) => date.replace(/-/g, '');

const LIST_DEFAULTS = { first: 40, offset: 0, sort: null, dateStart: null, dateEnd: null };

describe.each([
  ['without BASE_PATH', ''],
  ['with BASE_PATH=/v2', '/v2'],
])('REST over the real GraphQL service (%s)', (_label, basePath) => {
  let services: Services;
  let facts: SampleFacts;

  async function graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<GraphqlBody<T>> {
    const body = (await postGraphql(services.graphqlUrl, query, variables)) as GraphqlBody<T>;
    expect(body.errors).toBeUndefined();
    return body;
  }

  beforeAll(async () => {
    services = await startServices({ basePath });
    const probe = await graphql<{
      datasets: { edges: { node: { date: string } }[] };
      asns: { edges: { node: { asn: string; asnName: string; organization: { orgId: string } | null } }[] };
    }>(`
      {
        datasets(first: 100) {
          edges {
            node {
              date
            }
          }
        }
        asns(first: 20, sort: "rank") {
          edges {
            node {
              asn
              asnName
              organization {
                orgId
              }
            }
          }
        }
      }
    `);
    const dates = probe.data.datasets.edges.map((edge) => edge.node.date).sort();
    const ranked = probe.data.asns.edges.map((edge) => edge.node);
    const withOrg = ranked.find((node) => node.organization !== null && node.asnName.length >= 3);
    if (!withOrg?.organization || dates.length < 2)
      throw new Error('the sample needs >= 2 months and a ranked ASN with an organization');
    facts = {
      dates,
      topAsn: ranked[0]?.asn ?? withOrg.asn,
      orgId: withOrg.organization.orgId,
      nameFragment: withOrg.asnName.slice(0, 3).toUpperCase(),
      linkedAsn: withOrg.asn,
    };
  }, 180000);

  afterAll(async () => {
    await services?.close();
  });

  interface RouteCase {
    rest: string;
    query: string;
    variables: Record<string, unknown>;
    /** How the REST body is derived from the GraphQL body (identity unless given). */
    expected?: (graphqlBody: GraphqlBody<Record<string, unknown>>) => unknown;
  }

  /** Built lazily: the sample's facts are known only after beforeAll. */
  function routeCases(): [string, RouteCase][] {
    const [oldest, newest] = [facts.dates[0] as string, facts.dates.at(-1) as string];
    const cases: RouteCase[] = [
      { rest: '/restful/asns', query: queries.ASNS_QUERY, variables: LIST_DEFAULTS },
      {
        rest: '/restful/asns/?first=5&offset=3&sort=-cone.numberAsns,asn',
        query: queries.ASNS_QUERY,
        variables: { ...LIST_DEFAULTS, first: 5, offset: 3, sort: '-cone.numberAsns,asn' },
      },
      {
        rest: `/restful/asns?dateStart=${compact(oldest)}&dateEnd=${newest}&sort=-date,asn&first=25`,
        query: queries.ASNS_QUERY,
        variables: { ...LIST_DEFAULTS, first: 25, sort: '-date,asn', dateStart: oldest, dateEnd: newest },
      },
      {
        rest: `/restful/asns/${facts.topAsn}`,
        query: queries.ASN_QUERY,
        variables: { asn: facts.topAsn, date: null },
      },
      {
        rest: `/restful/asns/${facts.linkedAsn}/`,
        query: queries.ASN_QUERY,
        variables: { asn: facts.linkedAsn, date: null },
      },
      {
        rest: `/asns/${facts.topAsn}?date=${compact(oldest)}`,
        query: queries.ASN_QUERY,
        variables: { asn: facts.topAsn, date: oldest },
      },
      {
        rest: `/restful/asns/name/${encodeURIComponent(facts.nameFragment)}?first=10`,
        query: queries.ASNS_BY_NAME_QUERY,
        variables: { ...LIST_DEFAULTS, name: facts.nameFragment, first: 10 },
      },
      {
        rest: '/restful/asnLinks?first=15&sort=-numberPaths',
        query: queries.ASN_LINKS_QUERY,
        variables: { ...LIST_DEFAULTS, first: 15, sort: '-numberPaths' },
      },
      {
        rest: `/restful/asnLinks/${facts.linkedAsn}`,
        query: queries.ASN_LINKS_OF_ASN_QUERY,
        variables: { ...LIST_DEFAULTS, asn: facts.linkedAsn },
      },
      {
        rest: `/restful/organizations?first=7&sort=-cone.numberAsns`,
        query: queries.ORGANIZATIONS_QUERY,
        variables: { ...LIST_DEFAULTS, first: 7, sort: '-cone.numberAsns' },
      },
      {
        rest: `/restful/organizations/${encodeURIComponent(facts.orgId)}`,
        query: queries.ORGANIZATION_QUERY,
        variables: { orgId: facts.orgId, date: null },
      },
      {
        rest: `/orgs/${encodeURIComponent(facts.orgId)}?date=${oldest}`,
        query: queries.ORGANIZATION_QUERY,
        variables: { orgId: facts.orgId, date: oldest },
      },
      {
        // A page of its member ASNs.
        rest: `/restful/organizations/${encodeURIComponent(facts.orgId)}?first=1&offset=1`,
        query: queries.ORGANIZATION_QUERY,
        variables: { orgId: facts.orgId, date: null, first: 1, offset: 1 },
      },
      {
        rest: '/restful/datasets',
        query: queries.DATASETS_QUERY,
        variables: { ...LIST_DEFAULTS, sort: '-date' },
        expected: (body) => ({
          data: (body.data.datasets as { edges: { node: unknown }[] }).edges.map((edge) => edge.node),
        }),
      },
    ];
    return cases.map((routeCase) => [routeCase.rest, routeCase]);
  }

  it('answers every route with exactly what the GraphQL service answers', async () => {
    const cases = routeCases();
    expect(cases.length).toBe(14);
    for (const [rest, routeCase] of cases) {
      const graphqlBody = await graphql<Record<string, unknown>>(routeCase.query, routeCase.variables);
      const answer = await getJson(`${services.restBase}${rest}`);
      expect(`${rest} -> ${answer.status}`).toBe(`${rest} -> 200`);
      expect(answer.body).toEqual(routeCase.expected ? routeCase.expected(graphqlBody) : graphqlBody);
    }
  });

  it('serves the fields existing clients read', async () => {
    const asn = (await getJson(`${services.restBase}/restful/asns/${facts.topAsn}`)).body as {
      data: {
        asn: { asn: string; rank: number; cone: { numberAsns: number }; asnDegree: { total: number } };
      };
    };
    const independent = await graphql<{
      asn: { rank: number; cone: { numberAsns: number }; asnDegree: { total: number } };
    }>('query ($asn: String!) { asn(asn: $asn) { rank cone { numberAsns } asnDegree { total } } }', {
      asn: facts.topAsn,
    });
    expect(asn.data.asn.asn).toBe(facts.topAsn);
    expect(asn.data.asn.rank).toBe(independent.data.asn.rank);
    expect(asn.data.asn.cone.numberAsns).toBe(independent.data.asn.cone.numberAsns);
    expect(asn.data.asn.asnDegree.total).toBe(independent.data.asn.asnDegree.total);

    const list = (await getJson(`${services.restBase}/restful/asns?first=3`)).body as {
      data: {
        asns: {
          totalCount: number;
          pageInfo: { hasNextPage: boolean; first: number };
          edges: { node: { asn: string } }[];
        };
      };
    };
    expect(list.data.asns.edges).toHaveLength(3);
    expect(list.data.asns.pageInfo.hasNextPage).toBe(list.data.asns.totalCount > 3);

    const links = (await getJson(`${services.restBase}/restful/asnLinks/${facts.linkedAsn}`)).body as {
      data: { asnLinks: { edges: { node: { asn0: { asn: string }; asn1: { asn: string } } }[] } };
    };
    expect(links.data.asnLinks.edges.length).toBeGreaterThan(0);
    for (const edge of links.data.asnLinks.edges) {
      expect(edge.node.asn0.asn).toBe(facts.linkedAsn);
      expect(edge.node.asn1.asn).not.toBe(facts.linkedAsn);
    }

    const organization = (
      await getJson(`${services.restBase}/restful/organizations/${encodeURIComponent(facts.orgId)}`)
    ).body as {
      data: { organization: { members: { asns: { edges: { node: { asn: string } }[] } } } };
    };
    expect(organization.data.organization.members.asns.edges.map((edge) => edge.node.asn)).toContain(
      facts.linkedAsn,
    );

    const datasets = (await getJson(`${services.restBase}/restful/datasets`)).body as {
      data: { date: string }[];
    };
    expect(datasets.data.map((dataset) => dataset.date)).toEqual([...facts.dates].reverse());
  });

  it('answers unknown records with 200 and a null record', async () => {
    const unknownAsn = await getJson(`${services.restBase}/restful/asns/4294967000`);
    expect(unknownAsn.status).toBe(200);
    expect(unknownAsn.body).toEqual({ data: { asn: null } });
    const unknownOrg = await getJson(`${services.restBase}/orgs/NO-SUCH-ORG-ANYWHERE`);
    expect(unknownOrg.status).toBe(200);
    expect(unknownOrg.body).toEqual({ data: { organization: null } });
    const unknownPopulated = await getJson(`${services.restBase}/restful/asns/4294967000?populate=1`);
    expect(unknownPopulated.body).toEqual({ data: { asn: null } });
  });

  it('passes GraphQL errors through as 400 with their messages', async () => {
    // Ten digits pass the route's pattern but exceed the 32-bit ASN space, which the GraphQL service refuses.
    const tooLarge = await getJson(`${services.restBase}/restful/asns/9999999999`);
    expect(tooLarge.status).toBe(400);
    const body = tooLarge.body as { message: string; errors: { message: string }[] };
    expect(body.errors.length).toBeGreaterThan(0);
    expect(body.message).toMatch(/asn/);
    expect(body.message).toMatch(/4294967295/);
    expect((tooLarge.body as { parameter?: string }).parameter).toBe('asn');
    // The GraphQL argument is `asn`; the REST parameter the client sent is `asn0`.
    const linksOfTooLarge = await getJson(`${services.restBase}/restful/asnLinks/9999999999`);
    expect(linksOfTooLarge.status).toBe(400);
    expect((linksOfTooLarge.body as { parameter?: string }).parameter).toBe('asn0');
    // Its message opens with the parameter too, not the GraphQL argument or variable the route filled from it.
    expect((linksOfTooLarge.body as { message: string }).message).toMatch(/^asn0 must be an ASN written as/);
    const organizationWithNul = await getJson(`${services.restBase}/restful/organizations/ORG%00X`);
    expect(organizationWithNul.status).toBe(400);
    expect(organizationWithNul.body).toMatchObject({
      parameter: 'organization',
      message: 'organization must not contain NUL (\\u0000) characters',
    });
  });

  it('maps populate=1 ASN records member by member from the GraphQL values', async () => {
    const answer = await getJson(`${services.restBase}/restful/asns/${facts.linkedAsn}?populate=1`);
    expect(answer.status).toBe(200);
    const record = (answer.body as { data: { asn: Record<string, unknown> } }).data.asn;
    const truth = (
      await graphql<{
        asn: {
          asn: string;
          asnName: string;
          cliqueMember: boolean;
          source: string | null;
          rank: number | null;
          date: string;
          latitude: number | null;
          longitude: number | null;
          country: { iso: string; name: string } | null;
          organization: { orgId: string; orgName: string };
          cone: { numberAsns: number; numberPrefixes: number; numberAddresses: number };
          asnDegree: { peer: number; total: number; sibling: number; customer: number; transit: number };
        };
      }>(
        `
          query ($asn: String!) {
            asn(asn: $asn) {
              asn
              asnName
              cliqueMember
              source
              rank
              date
              latitude
              longitude
              country {
                iso
                name
              }
              organization {
                orgId
                orgName
              }
              cone {
                numberAsns
                numberPrefixes
                numberAddresses
              }
              asnDegree {
                peer
                total
                sibling
                customer
                transit
              }
            }
          }
        `,
        { asn: facts.linkedAsn },
      )
    ).data.asn;
    const asString = (value: number | null) => (value === null ? null : String(value));
    // The spec's list: id, name, clique, source, rank, country, country_name, latitude, longitude,
    // org (id, name), cone (prefixes, addresses, asns), degree (peers, globals, siblings, customers, transits).
    expect(Object.keys(record).sort()).toEqual(
      [
        'id',
        'name',
        'clique',
        'source',
        'rank',
        'country',
        'country_name',
        'latitude',
        'longitude',
        'org',
        'cone',
        'degree',
        'date',
      ].sort(),
    );
    expect(record.id).toBe(truth.asn);
    expect(record.name).toBe(truth.asnName);
    expect(record.clique).toBe(truth.cliqueMember ? '1' : '0');
    expect(record.source).toBe(truth.source);
    expect(record.rank).toBe(asString(truth.rank));
    expect(record.country).toBe(truth.country?.iso ?? null);
    expect(record.country_name).toBe(truth.country?.name ?? null);
    expect(record.latitude).toBe(asString(truth.latitude));
    expect(record.longitude).toBe(asString(truth.longitude));
    expect(record.org).toEqual({ id: truth.organization.orgId, name: truth.organization.orgName });
    expect(record.cone).toEqual({
      prefixes: String(truth.cone.numberPrefixes),
      addresses: String(truth.cone.numberAddresses),
      asns: String(truth.cone.numberAsns),
    });
    expect(record.degree).toEqual({
      peers: String(truth.asnDegree.peer),
      globals: String(truth.asnDegree.total),
      siblings: String(truth.asnDegree.sibling),
      customers: String(truth.asnDegree.customer),
      transits: String(truth.asnDegree.transit),
    });
    expect(record.date).toBe(truth.date);
  });

  it('maps populate=1 organization records with the degree split into asn and org parts', async () => {
    const answer = await getJson(
      `${services.restBase}/restful/organizations/${encodeURIComponent(facts.orgId)}?populate=1`,
    );
    const record = (answer.body as { data: { organization: Record<string, unknown> } }).data.organization;
    const truth = (
      await graphql<{
        organization: {
          orgName: string;
          rank: number | null;
          asnDegree: { transit: number; total: number };
          orgDegree: { transit: number; total: number };
        };
      }>(
        'query ($id: String!) { organization(orgId: $id) { orgName rank asnDegree { transit total } orgDegree { transit total } } }',
        {
          id: facts.orgId,
        },
      )
    ).data.organization;
    expect(record.name).toBe(truth.orgName);
    expect(record.rank).toBe(truth.rank === null ? null : String(truth.rank));
    expect(record.degree).toEqual({
      asn: { transit: String(truth.asnDegree.transit), global: String(truth.asnDegree.total) },
      org: { transit: String(truth.orgDegree.transit), global: String(truth.orgDegree.total) },
    });
    expect(record.id).toBe(facts.orgId);
  });

  it('keeps paging and cursors on populated lists and carries REST records in them', async () => {
    const plain = (await getJson(`${services.restBase}/restful/asns?first=4&offset=2`)).body as {
      data: {
        asns: {
          totalCount: number;
          pageInfo: unknown;
          edges: { cursor: string; node: { asn: string; rank: number | null } }[];
        };
      };
    };
    const populated = (await getJson(`${services.restBase}/restful/asns?first=4&offset=2&populate=1`))
      .body as {
      data: {
        asns: {
          totalCount: number;
          pageInfo: unknown;
          edges: { cursor: string; node: { id: string; rank: string | null } }[];
        };
      };
    };
    expect(populated.data.asns.totalCount).toBe(plain.data.asns.totalCount);
    expect(populated.data.asns.pageInfo).toEqual(plain.data.asns.pageInfo);
    expect(populated.data.asns.edges.map((edge) => [edge.cursor, edge.node.id, edge.node.rank])).toEqual(
      plain.data.asns.edges.map((edge) => [
        edge.cursor,
        edge.node.asn,
        edge.node.rank === null ? null : String(edge.node.rank),
      ]),
    );

    const links = (
      await getJson(`${services.restBase}/restful/asnLinks/${facts.linkedAsn}?populate=1&first=3`)
    ).body as {
      data: {
        asnLinks: { edges: { node: { asn0: { id: string }; asn1: { id: string }; relationship: string } }[] };
      };
    };
    for (const edge of links.data.asnLinks.edges) {
      expect(edge.node.asn0.id).toBe(facts.linkedAsn);
      expect(['provider', 'customer', 'peer', 'sibling']).toContain(edge.node.relationship);
    }
  });

  it('answers 502 quickly while the GraphQL service is down and recovers when it is back', async () => {
    const route = `${services.restBase}/restful/asns/${facts.topAsn}`;
    const before = await getJson(route);
    expect(before.status).toBe(200);

    await services.stopGraphql();
    const during = await getJson(route);
    expect(during.status).toBe(502);
    expect(during.body).toMatchObject({ statusCode: 502, error: 'Bad Gateway' });
    expect((during.body as { message: string }).message).toMatch(/unreachable/);

    await services.startGraphql();
    const after = await getJson(route);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
  });
});
