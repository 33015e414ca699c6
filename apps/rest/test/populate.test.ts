// populate=1 record shapes, field by field against the spec's lists, from GraphQL-shaped input.
import {
  restAsnLinkRecord,
  restAsnRecord,
  restOrganizationRecord,
  mapConnection,
  type GraphqlAsn,
  type GraphqlOrganization,
} from '../src/populate';

/** The members the spec lists for an ASN record (plus `date`, which historic lists need). */
const SPEC_ASN_MEMBERS = [
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
];

const fullAsn: GraphqlAsn = {
  asn: '3356',
  asnName: 'LEVEL3',
  rank: 1,
  source: 'ARIN',
  date: '2024-02-01',
  cliqueMember: true,
  seen: true,
  ixp: null,
  longitude: -97.82,
  latitude: 37.75,
  country: { iso: 'US', name: 'United States' },
  organization: { orgId: 'LPL-141-ARIN', orgName: 'Level 3 Parent, LLC' },
  cone: { numberAsns: 49071, numberPrefixes: 612345, numberAddresses: 3012345678 },
  asnDegree: { provider: 0, peer: 71, customer: 5123, transit: 5190, sibling: 3, total: 5194 },
};

const organization: GraphqlOrganization = {
  orgId: 'LPL-141-ARIN',
  orgName: 'Level 3 Parent, LLC',
  rank: 2,
  date: '2024-02-01',
  country: { iso: 'US', name: 'United States' },
  members: { numberAsns: 12, numberAsnsSeen: 9 },
  cone: { numberAsns: 50001, numberPrefixes: 700000, numberAddresses: 4000000000 },
  asnDegree: { transit: 6000, total: 6100 },
  orgDegree: { transit: 5800, total: 5900 },
};

describe('REST ASN record', () => {
  it('carries every member of the spec list, as strings, and nothing unexpected', () => {
    const record = restAsnRecord(fullAsn);
    expect(Object.keys(record).sort()).toEqual([...SPEC_ASN_MEMBERS, 'date'].sort());
    expect(record).toEqual({
      id: '3356',
      name: 'LEVEL3',
      clique: '1',
      source: 'ARIN',
      rank: '1',
      country: 'US',
      country_name: 'United States',
      latitude: '37.75',
      longitude: '-97.82',
      org: { id: 'LPL-141-ARIN', name: 'Level 3 Parent, LLC' },
      cone: { prefixes: '612345', addresses: '3012345678', asns: '49071' },
      degree: { peers: '71', globals: '5194', siblings: '3', customers: '5123', transits: '5190' },
      date: '2024-02-01',
    });
  });

  it('keeps unknown values null rather than inventing strings', () => {
    const record = restAsnRecord({
      ...fullAsn,
      rank: null,
      cliqueMember: false,
      source: null,
      latitude: null,
      longitude: null,
      country: null,
      organization: null,
    });
    expect(record).toMatchObject({
      rank: null,
      clique: '0',
      source: null,
      latitude: null,
      longitude: null,
      country: null,
      country_name: null,
      org: null,
    });
  });

  it('maps a link end from the summary fields the link query fetches', () => {
    const end: GraphqlAsn = {
      asn: '174',
      asnName: 'COGENT',
      rank: 3,
      source: 'ARIN',
      cliqueMember: true,
      country: { iso: 'US', name: 'United States' },
      organization: { orgId: 'COGC-ARIN', orgName: 'Cogent' },
    };
    expect(restAsnRecord(end)).toEqual({
      id: '174',
      name: 'COGENT',
      clique: '1',
      source: 'ARIN',
      rank: '3',
      country: 'US',
      country_name: 'United States',
      org: { id: 'COGC-ARIN', name: 'Cogent' },
    });
  });
});

describe('REST organization record', () => {
  it('has name, rank and the degree split into asn and org parts', () => {
    const record = restOrganizationRecord(organization);
    expect(record.name).toBe('Level 3 Parent, LLC');
    expect(record.rank).toBe('2');
    expect(record.degree).toEqual({
      asn: { transit: '6000', global: '6100' },
      org: { transit: '5800', global: '5900' },
    });
    expect(record).toMatchObject({
      id: 'LPL-141-ARIN',
      country: 'US',
      country_name: 'United States',
      date: '2024-02-01',
    });
    expect(record.cone).toEqual({ prefixes: '700000', addresses: '4000000000', asns: '50001' });
  });
});

describe('REST link record and connections', () => {
  it('maps both ends and the link values', () => {
    const record = restAsnLinkRecord({
      date: '2024-02-01',
      relationship: 'customer',
      numberPaths: 812,
      rank: 17,
      correctedBy: null,
      asn0: fullAsn,
      asn1: { ...fullAsn, asn: '64500', rank: null },
    });
    expect(record.asn0.id).toBe('3356');
    expect(record.asn1).toMatchObject({ id: '64500', rank: null });
    expect(record).toMatchObject({
      relationship: 'customer',
      paths: '812',
      rank: '17',
      corrected_by: null,
      date: '2024-02-01',
    });
  });

  it('replaces nodes but keeps totalCount, pageInfo and cursors', () => {
    const pageInfo = { first: 2, offset: 0, hasNextPage: true };
    const mapped = mapConnection(
      { totalCount: 7, pageInfo, edges: [{ cursor: 'a', node: fullAsn }] },
      restAsnRecord,
    );
    expect(mapped.totalCount).toBe(7);
    expect(mapped.pageInfo).toBe(pageInfo);
    expect(mapped.edges).toEqual([{ cursor: 'a', node: restAsnRecord(fullAsn) }]);
  });
});
