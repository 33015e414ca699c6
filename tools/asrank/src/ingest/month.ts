// Everything one month stores, as rows of the storage contract (packages/db/src/tables.ts). Built in memory by
// buildMonth (or importJsonl), then written in one transaction by replaceMonth.
import type {
  AsnLinksTable,
  AsnRecord,
  CountriesTable,
  DatasetListedTotals,
  DatasetsTable,
  LinkLocationsTable,
  LocationsTable,
  MonthTable,
  OrganizationRecord,
  PrefixesTable,
} from '@asrank/db';

export interface MonthData {
  date: string;
  /** Without the totals of its lists, which replaceMonth counts from the rows it writes. */
  dataset: Omit<DatasetsTable, keyof DatasetListedTotals>;
  /** Without the copies of their organizations' columns, which replaceMonth fills from `organizations`. */
  asns: AsnRecord[];
  /** Without their link counts, which replaceMonth counts from `asnLinks`. */
  organizations: OrganizationRecord[];
  /** Both directions of every link (see AsnLinksTable). */
  asnLinks: AsnLinksTable[];
  locations: LocationsTable[];
  linkLocations: LinkLocationsTable[];
  /** Cone owner → sorted member ASNs (owner included); kept as typed arrays, 2.6M members would be 2.6M objects. */
  coneMembers: Map<number, Uint32Array>;
  prefixes: PrefixesTable[];
  /** Origin ASN → its prefix ids, ascending (a million rows as objects would dominate the load's memory). */
  prefixOrigins: Map<number, readonly number[]>;
}

export type CountryRow = CountriesTable;

export type RowCounts = Record<MonthTable, number>;
