// Kysely table interfaces: the one place that says what is stored.
// Every per-month table carries `date` ('YYYY-MM-DD', the dataset's month), so many months coexist and
// historic queries are plain range predicates. ASNs are stored as integers (numeric sort, compact keys)
// and exposed as decimal strings by the API. Booleans are 0/1 integers (SQLite has no boolean type).
// JSON-valued columns are TEXT holding JSON, identical on both dialects.
/** One loaded month. */
/**
 * The number of rows of a month's lists, as the API's lists count them: its ASNs (all, and those seen), its
 * organizations (all, and those seen) and its links (each pair once, `canonical`). The loads write them from the rows
 * they write (asrank's write.ts), and migration 019 counted the months loaded before, so a list's total over months is
 * read rather than counted (a process's first total of 12 generated months of links counted 6 million rows: 0.5-0.7
 * s). Not the dataset's `number_*` figures, which a JSON-lines import takes from CAIDA's API as given.
 */
export interface DatasetListedTotals {
  listed_asns: number;
  listed_asns_seen: number;
  listed_organizations: number;
  listed_organizations_seen: number;
  listed_links: number;
  /**
   * The parts of `listed_links` (each pair once) that a walk of every link over months skips whole (migration 023): by
   * the canonical row's relationship, those with a path count, those with a correction.
   */
  listed_links_customer: number;
  listed_links_peer: number;
  listed_links_provider: number;
  listed_links_sibling: number;
  listed_links_with_paths: number;
  listed_links_corrected: number;
}

export const DATASET_LISTED_TOTALS = [
  'listed_asns',
  'listed_asns_seen',
  'listed_organizations',
  'listed_organizations_seen',
  'listed_links',
  'listed_links_customer',
  'listed_links_peer',
  'listed_links_provider',
  'listed_links_sibling',
  'listed_links_with_paths',
  'listed_links_corrected',
] as const satisfies readonly (keyof DatasetListedTotals)[];

/**
 * `true` when every key of T is in `Listed`, else `never`: a constant of this type set to `true` fails to compile once
 * a key is added to T but not to the list beside it (the lists the loads write, or clear, by).
 */
type EveryKeyListed<T, Listed extends readonly PropertyKey[]> =
  Exclude<keyof T, Listed[number]> extends never ? true : never;

// A total added to DatasetListedTotals but not to DATASET_LISTED_TOTALS (which the loads write) fails to compile here.
const everyListedTotalListed: EveryKeyListed<DatasetListedTotals, typeof DATASET_LISTED_TOTALS> = true;
void everyListedTotalListed;

export interface DatasetsTable extends DatasetListedTotals {
  date: string;
  dataset_id: string;
  ip_version: number;
  modified_at: string;
  /** ISO 3166 alpha-2 of the dataset's country, null for the global dataset. */
  country_iso: string | null;
  /** JSON array of ASN strings. */
  clique: string;
  /** JSON array of ASN strings. */
  asn_ixs: string;
  /** JSON array of [start, end] pairs (strings), empty when unknown. */
  asn_reserved_ranges: string;
  asn_assigned_ranges: string;
  /** JSON array of {url, date, name}. */
  sources: string;
  number_addresses: number;
  number_prefixes: number;
  number_asns: number;
  number_asns_seen: number;
  number_organizations: number;
  number_organizations_seen: number;
  number_links: number;
}

/** Country metadata, shared by all months (from an npm package). */
export interface CountriesTable {
  iso: string;
  name: string;
  capital: string | null;
  continent: string | null;
  /** JSON array of language names. */
  languages: string;
  population: number | null;
  area: number | null;
}

export interface AsnsTable {
  date: string;
  asn: number;
  asn_name: string;
  org_id: string | null;
  country_iso: string | null;
  /** Registry that allocated the ASN (ARIN, RIPE, ...). */
  source: string | null;
  latitude: number | null;
  longitude: number | null;
  /** Null for ASNs that were not seen in the routing data. */
  rank: number | null;
  seen: number;
  clique_member: number;
  /** 1 when the ASN is an IXP route server ASN, else null. */
  ixp: number | null;
  cone_asns: number;
  cone_prefixes: number;
  cone_addresses: number;
  /** Prefixes and addresses this ASN originates itself. */
  announcing_prefixes: number;
  announcing_addresses: number;
  degree_provider: number;
  degree_peer: number;
  degree_customer: number;
  degree_sibling: number;
  degree_transit: number;
  degree_total: number;
  /** searchText(asn_name, org_name) for the case-insensitive substring filter `name`. */
  search_text: string;
  /**
   * The name and rank of the ASN's organization in the same month, copied at load (ASN_ORGANIZATION_COPY), so that
   * an ASN shown with `organization { orgId orgName rank }` is one B-tree descent, not two (migration 012). Null
   * when the ASN has no organization that month.
   */
  org_name: string | null;
  org_rank: number | null;
  /**
   * The ASN's links in the month (asn_links rows with asn0 = asn, each neighbour once): its `asnLinks` total,
   * counted at load (020), so a large AS's total over many months reads a row a month, not every link.
   */
  number_asn_links: number;
  /**
   * The rows of the ASN's cone in cone_members that month (the ASN itself included; 0 when it has none): its
   * `asnCone { asns { totalCount } }`, counted at load (021). cone_asns may come from CAIDA's files and differ.
   */
  number_cone_members: number;
  /**
   * The ASN's links in the month by their relationship (asn_links rows with asn0 = asn), counted at load (022): the
   * sizes of the blocks an AS's links by relationship walk over several months. They sum to number_asn_links.
   */
  number_customer_links: number;
  number_peer_links: number;
  number_provider_links: number;
  number_sibling_links: number;
  /**
   * The ASN's canonical links in the month (asn_links rows with asn0 = asn < asn1), counted at load (024): the records
   * the month's list of every link holds for each ASN by `asn0`; with number_asn_links, its reversed rows' too (asn0 =
   * asn > asn1, the list by `asn1`). A deep page by `-asn0` or `-asn1` places its bookmarks from these counts.
   */
  number_canonical_links: number;
}

/** The asns columns that keep the ASN's links of the month of each relationship (migration 022). */
export const ASN_RELATIONSHIP_LINK_COUNTS = {
  customer: 'number_customer_links',
  peer: 'number_peer_links',
  provider: 'number_provider_links',
  sibling: 'number_sibling_links',
} as const satisfies Record<string, keyof AsnsTable>;

/** The asns columns copied from the ASN's organization row, and that row's column each copies. */
export const ASN_ORGANIZATION_COPY = { org_name: 'org_name', org_rank: 'rank' } as const;

/**
 * An asns row as a loader builds it: the organization's copies, its link counts and its cone's member count are filled
 * where the month is written.
 */
export type AsnRecord = Omit<
  AsnsTable,
  | keyof typeof ASN_ORGANIZATION_COPY
  | 'number_asn_links'
  | 'number_cone_members'
  | 'number_canonical_links'
  | (typeof ASN_RELATIONSHIP_LINK_COUNTS)[keyof typeof ASN_RELATIONSHIP_LINK_COUNTS]
>;

export interface OrganizationsTable {
  date: string;
  org_id: string;
  org_name: string;
  country_iso: string | null;
  rank: number | null;
  seen: number;
  number_asns: number;
  number_asns_seen: number;
  cone_asns: number;
  cone_prefixes: number;
  cone_addresses: number;
  degree_provider: number;
  degree_peer: number;
  degree_customer: number;
  degree_sibling: number;
  degree_transit: number;
  degree_total: number;
  org_degree_total: number;
  org_degree_transit: number;
  /** Links from its members to ASNs outside it: its `asnLinks` total, counted at load (017). */
  number_asn_links: number;
  /** The distinct far ends of those links: its `neighbors` total, counted at load (017). */
  number_neighbors: number;
  /** searchText(org_name, org_id). */
  search_text: string;
}

/**
 * Every link is stored twice, once from each end, so "links of X" is an index range with asn0 = X and
 * `relationship` is always read from asn0's side: 'customer' means asn1 is asn0's customer,
 * 'provider' means asn1 is asn0's provider, 'peer' otherwise. `canonical` = 1 on the row with asn0 < asn1
 * (used to list every link once).
 */
export interface AsnLinksTable {
  date: string;
  asn0: number;
  asn1: number;
  relationship: 'provider' | 'customer' | 'peer' | 'sibling';
  canonical: number;
  number_paths: number | null;
  rank: number | null;
  corrected_by: number | null;
}

/** Every column of `asn_links`, in the order a load writes them. */
export const ASN_LINK_COLUMNS = [
  'date',
  'asn0',
  'asn1',
  'relationship',
  'canonical',
  'number_paths',
  'rank',
  'corrected_by',
] as const satisfies readonly (keyof AsnLinksTable)[];

// A column added to AsnLinksTable but not to ASN_LINK_COLUMNS fails to compile here.
const everyAsnLinkColumnListed: EveryKeyListed<AsnLinksTable, typeof ASN_LINK_COLUMNS> = true;
void everyAsnLinkColumnListed;

export interface LocationsTable {
  date: string;
  loc_id: string;
  city: string | null;
  region: string | null;
  country_iso: string | null;
  continent: string | null;
  latitude: number | null;
  longitude: number | null;
  population: number | null;
}

/** Where a link is observed; stored once per link with asn0 < asn1. */
export interface LinkLocationsTable {
  date: string;
  asn0: number;
  asn1: number;
  loc_id: string;
}

/** Customer cone membership: member_asn is in asn's cone (asn itself included). */
export interface ConeMembersTable {
  date: string;
  asn: number;
  member_asn: number;
}

/** Distinct prefixes of a month; prefix_id follows address order (family, network, length). */
export interface PrefixesTable {
  date: string;
  prefix_id: number;
  network: string;
  length: number;
  ip_version: number;
  /** Number of origin ASNs (more than 1 for MOAS prefixes). */
  origin_count: number;
}

export interface PrefixOriginsTable {
  date: string;
  asn: number;
  prefix_id: number;
}

/** Key/value facts about the store, e.g. `data_version` (changes on every load or drop). */
export interface MetaTable {
  key: string;
  value: string;
}

export interface Database {
  datasets: DatasetsTable;
  countries: CountriesTable;
  asns: AsnsTable;
  organizations: OrganizationsTable;
  asn_links: AsnLinksTable;
  locations: LocationsTable;
  link_locations: LinkLocationsTable;
  cone_members: ConeMembersTable;
  prefixes: PrefixesTable;
  prefix_origins: PrefixOriginsTable;
  meta: MetaTable;
}

/** The organizations columns counted from the month's links where the month is written (countOrgLinks). */
export const ORGANIZATION_LINK_COUNTS = {
  number_asn_links: 'links',
  number_neighbors: 'neighbours',
} as const;

/** An organizations row as a loader builds it: its link counts are filled where the month is written. */
export type OrganizationRecord = Omit<OrganizationsTable, keyof typeof ORGANIZATION_LINK_COUNTS>;

/** Every column of `organizations`, in the order a load writes them. */
export const ORGANIZATION_COLUMNS = [
  'date',
  'org_id',
  'org_name',
  'country_iso',
  'rank',
  'seen',
  'number_asns',
  'number_asns_seen',
  'cone_asns',
  'cone_prefixes',
  'cone_addresses',
  'degree_provider',
  'degree_peer',
  'degree_customer',
  'degree_sibling',
  'degree_transit',
  'degree_total',
  'org_degree_total',
  'org_degree_transit',
  'number_asn_links',
  'number_neighbors',
  'search_text',
] as const satisfies readonly (keyof OrganizationsTable)[];

// A column added to OrganizationsTable but not to ORGANIZATION_COLUMNS fails to compile here.
const everyOrganizationColumnListed: EveryKeyListed<OrganizationsTable, typeof ORGANIZATION_COLUMNS> = true;
void everyOrganizationColumnListed;

/** The tables that hold one month's data (keyed by `date`), in the order a load clears and writes them. */
export const MONTH_TABLES = [
  'datasets',
  'asns',
  'organizations',
  'asn_links',
  'locations',
  'link_locations',
  'cone_members',
  'prefixes',
  'prefix_origins',
] as const satisfies readonly (keyof Database)[];

export type MonthTable = (typeof MONTH_TABLES)[number];

/** Every table, for work that visits them all (planner statistics, comparing two stores). */
export const ALL_TABLES = [
  ...MONTH_TABLES,
  'countries',
  'meta',
] as const satisfies readonly (keyof Database)[];

// A table added to Database but not to ALL_TABLES fails to compile here.
const everyTableListed: EveryKeyListed<Database, typeof ALL_TABLES> = true;
void everyTableListed;
