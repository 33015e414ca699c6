// Object refs of every record type, declared apart from their implementations so type files can refer to
// each other (Asn → Organization → Asn) without import cycles.
import type { AsnLinksTable } from '@asrank/db';
import { builder } from '../builder';
import type { AsnRow, CountryRow, DatasetRow, LocationRow, OrganizationRow } from '../context';

export interface PrefixRecord {
  date: string;
  prefixId: number;
  network: string;
  length: number;
}

export interface AsnConeRecord {
  date: string;
  asn: AsnRow;
}

export const AsnRef = builder.objectRef<AsnRow>('Asn');
export const OrganizationRef = builder.objectRef<OrganizationRow>('Organization');
export const AsnLinkRef = builder.objectRef<AsnLinksTable>('AsnLink');
export const LocationRef = builder.objectRef<LocationRow>('Location');
export const DatasetRef = builder.objectRef<DatasetRow>('Dataset');
export const CountryRef = builder.objectRef<CountryRow>('Country');
export const PrefixRef = builder.objectRef<PrefixRecord>('Prefix');
export const AsnConeRef = builder.objectRef<AsnConeRecord>('AsnCone');
