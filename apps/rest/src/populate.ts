// `populate=1`: the spec's "REST record shapes", built from the GraphQL answer (no data of its own).
// Values are strings, as the spec says of these records ("mostly as strings") and as the earlier REST API
// served them: numbers in decimal, booleans as "1"/"0"; null stays null where the GraphQL value is null
// (an unranked ASN, a missing coordinate). Nested groups (org, cone, degree) are objects.

export interface GraphqlCountry {
  iso: string;
  name: string;
}

export interface GraphqlAsn {
  asn: string;
  asnName: string;
  rank: number | null;
  source: string | null;
  date?: string;
  cliqueMember: boolean;
  seen?: boolean;
  ixp?: boolean | null;
  longitude?: number | null;
  latitude?: number | null;
  country: GraphqlCountry | null;
  organization: { orgId: string; orgName: string } | null;
  cone?: { numberAsns: number; numberPrefixes: number; numberAddresses: number };
  asnDegree?: {
    provider: number;
    peer: number;
    customer: number;
    transit: number;
    sibling: number;
    total: number;
  };
}

export interface GraphqlOrganization {
  orgId: string;
  orgName: string;
  rank: number | null;
  date: string;
  country: GraphqlCountry | null;
  members: { numberAsns: number; numberAsnsSeen: number };
  cone: { numberAsns: number; numberPrefixes: number; numberAddresses: number };
  asnDegree: { transit: number; total: number };
  orgDegree: { transit: number; total: number };
}

export interface GraphqlAsnLink {
  date: string;
  relationship: string;
  numberPaths: number | null;
  rank: number | null;
  correctedBy: number | null;
  asn0: GraphqlAsn;
  asn1: GraphqlAsn;
}

export interface GraphqlConnection<T> {
  totalCount: number;
  pageInfo?: unknown;
  edges: { cursor?: string; node: T }[];
}

export interface RestCone {
  prefixes: string;
  addresses: string;
  asns: string;
}

export interface RestAsnRecord {
  id: string;
  name: string;
  clique: string;
  source: string | null;
  rank: string | null;
  country: string | null;
  country_name: string | null;
  latitude?: string | null;
  longitude?: string | null;
  org: { id: string; name: string } | null;
  cone?: RestCone;
  degree?: { peers: string; globals: string; siblings: string; customers: string; transits: string };
  /** Month of the record (not in the spec's list; historic lists hold one record per month). */
  date?: string;
}

export interface RestOrganizationRecord {
  id: string;
  name: string;
  rank: string | null;
  country: string | null;
  country_name: string | null;
  cone: RestCone;
  degree: { asn: { transit: string; global: string }; org: { transit: string; global: string } };
  date: string;
}

export interface RestAsnLinkRecord {
  asn0: RestAsnRecord;
  asn1: RestAsnRecord;
  relationship: string;
  paths: string | null;
  rank: string | null;
  corrected_by: string | null;
  date: string;
}

function text(value: number | string | null | undefined): string | null {
  return value === null || value === undefined ? null : String(value);
}

function count(value: number): string {
  return String(value);
}

function coneRecord(cone: { numberAsns: number; numberPrefixes: number; numberAddresses: number }): RestCone {
  return {
    prefixes: count(cone.numberPrefixes),
    addresses: count(cone.numberAddresses),
    asns: count(cone.numberAsns),
  };
}

/**
 * The REST record of an ASN. Link ends are fetched without coordinates, cone and degree (see queries.ts),
 * so those members are present only when the GraphQL answer has them.
 */
export function restAsnRecord(asn: GraphqlAsn): RestAsnRecord {
  const record: RestAsnRecord = {
    id: asn.asn,
    name: asn.asnName,
    clique: asn.cliqueMember ? '1' : '0',
    source: asn.source,
    rank: text(asn.rank),
    country: asn.country?.iso ?? null,
    country_name: asn.country?.name ?? null,
    org: asn.organization ? { id: asn.organization.orgId, name: asn.organization.orgName } : null,
  };
  if ('latitude' in asn) record.latitude = text(asn.latitude);
  if ('longitude' in asn) record.longitude = text(asn.longitude);
  if (asn.cone) record.cone = coneRecord(asn.cone);
  if (asn.asnDegree) {
    record.degree = {
      peers: count(asn.asnDegree.peer),
      globals: count(asn.asnDegree.total),
      siblings: count(asn.asnDegree.sibling),
      customers: count(asn.asnDegree.customer),
      transits: count(asn.asnDegree.transit),
    };
  }
  if (asn.date !== undefined) record.date = asn.date;
  return record;
}

/** The REST record of an organization: its degree split into ASN-level and organization-level parts. */
export function restOrganizationRecord(organization: GraphqlOrganization): RestOrganizationRecord {
  return {
    id: organization.orgId,
    name: organization.orgName,
    rank: text(organization.rank),
    country: organization.country?.iso ?? null,
    country_name: organization.country?.name ?? null,
    cone: coneRecord(organization.cone),
    degree: {
      asn: { transit: count(organization.asnDegree.transit), global: count(organization.asnDegree.total) },
      org: { transit: count(organization.orgDegree.transit), global: count(organization.orgDegree.total) },
    },
    date: organization.date,
  };
}

export function restAsnLinkRecord(link: GraphqlAsnLink): RestAsnLinkRecord {
  return {
    asn0: restAsnRecord(link.asn0),
    asn1: restAsnRecord(link.asn1),
    relationship: link.relationship,
    paths: text(link.numberPaths),
    rank: text(link.rank),
    corrected_by: text(link.correctedBy),
    date: link.date,
  };
}

/** A connection whose nodes are replaced by their REST records; totalCount, pageInfo and cursors are kept. */
export function mapConnection<T, R>(
  connection: GraphqlConnection<T>,
  toRecord: (node: T) => R,
): GraphqlConnection<R> {
  return { ...connection, edges: connection.edges.map((edge) => ({ ...edge, node: toRecord(edge.node) })) };
}
