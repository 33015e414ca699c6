// Records the API publishes (spec "Resources and their fields"), in API terms: ASNs are decimal strings, dates are
// `YYYY-MM-DD`, booleans are booleans. Storage rows (packages/db/src/tables.ts) are mapped to these by the schema layer.
// Joined records (an Asn's organization, a link's Asn ends) are referenced by key; the schema resolves them.

/** Counts of a customer cone: ASNs in it (the AS itself included), distinct prefixes they originate, addresses covered. */
export interface Cone {
  numberAsns: number;
  numberPrefixes: number;
  numberAddresses: number;
}

/** Relationship counts of an AS (or of an organization's members towards ASNs outside it). */
export interface AsnDegree {
  provider: number;
  peer: number;
  customer: number;
  sibling: number;
  transit: number;
  total: number;
}

/** Organization-level degree: distinct neighbouring organizations, and the transit part of them. */
export interface OrgDegree {
  total: number;
  transit: number;
}

/** Country metadata (Dataset.country, Asn and Organization countries). */
export interface Country {
  iso: string;
  name: string;
  capital: string | null;
  continent: string | null;
  languages: string[];
  population: number | null;
  area: number | null;
}

/** An inclusive range of ASNs, as strings like every ASN in the API. */
export interface AsnRange {
  start: string;
  end: string;
}

export interface DatasetSource {
  url: string;
  date: string;
  name: string;
}

export interface Dataset {
  datasetId: string;
  modifiedAt: string;
  date: string;
  ipVersion: number;
  /** ISO code of the dataset's country; null for the global dataset. */
  countryIso: string | null;
  asnReservedRanges: AsnRange[];
  asnAssignedRanges: AsnRange[];
  clique: string[];
  asnIxs: string[];
  sources: DatasetSource[];
  numberAddresses: number;
  numberPrefixes: number;
  numberAsns: number;
  numberAsnsSeen: number;
  numberOrganizations: number;
  numberOrganizationsSeen: number;
}

export interface Asn {
  asn: string;
  asnName: string;
  /** Null for ASNs not seen in the routing data (they are not ranked). */
  rank: number | null;
  source: string | null;
  date: string;
  cliqueMember: boolean;
  seen: boolean;
  ixp: boolean | null;
  longitude: number | null;
  latitude: number | null;
  /** Key of the owning Organization (the schema joins it). */
  orgId: string | null;
  countryIso: string | null;
  cone: Cone;
  /** Prefixes and addresses the AS originates itself. */
  announcing: { numberPrefixes: number; numberAddresses: number };
  asnDegree: AsnDegree;
}

export interface OrganizationMembers {
  numberAsns: number;
  numberAsnsSeen: number;
}

export interface Organization {
  orgId: string;
  orgName: string;
  rank: number | null;
  date: string;
  countryIso: string | null;
  seen: boolean;
  members: OrganizationMembers;
  cone: Cone;
  asnDegree: AsnDegree;
  orgDegree: OrgDegree;
}

/** Every relationship of `asn1` seen from `asn0`, in byte order: `customer` means asn1 is asn0's customer. */
export const LINK_RELATIONSHIPS = ['customer', 'peer', 'provider', 'sibling'] as const;

/** Relationship of `asn1` seen from `asn0`: `customer` means asn1 is asn0's customer. */
export type LinkRelationship = (typeof LINK_RELATIONSHIPS)[number];

export interface AsnLink {
  date: string;
  /** The link's first end; when listed for an ASN, that ASN (the spec: asn1 is always the other end). */
  asn0: string;
  asn1: string;
  relationship: LinkRelationship;
  numberPaths: number | null;
  rank: number | null;
  correctedBy: number | null;
}

export interface Location {
  locId: string;
  city: string | null;
  region: string | null;
  /** ISO code of the location's country. */
  country: string | null;
  continent: string | null;
  latitude: number | null;
  longitude: number | null;
  population: number | null;
}

/** A routed prefix as the cone stream lists it. */
export interface Prefix {
  date: string;
  network: string;
  length: number;
  ipVersion: 4 | 6;
}

/** Result of asnCone: one AS's cone for one month (its member ASNs are a connection resolved by the schema). */
export interface AsnCone {
  date: string;
  /** The cone's AS. */
  asn: string;
  cone: Cone;
}

/** Member ASN as the cone stream lists it. */
export interface ConeMemberAsn {
  date: string;
  asn: string;
  asnName: string;
  rank: number | null;
  source: string | null;
  cliqueMember: boolean;
  seen: boolean;
  ixp: boolean | null;
  longitude: number | null;
  latitude: number | null;
}

/** One entry of asnConesStream's `pages`: the cone (rank, AS) and the slices of its asns and prefixes on this page. */
export interface AsnConeStreamItem {
  rank: number | null;
  asn: { date: string; asn: string; asnName: string };
  asns: ConeMemberAsn[];
  prefixes: Prefix[];
}

/** StreamPageInfo of asnConesStream. */
export interface StreamPageInfo {
  pageCursor: string;
  nextPageCursor: string;
  hasNextPage: boolean;
}

/** Result of asnConesStream. */
export interface AsnConeStreamConnection {
  totalCount: number;
  pageInfo: StreamPageInfo;
  pages: AsnConeStreamItem[];
}
