// Small value objects nested in records: cone sizes, degrees and announced space.
// Address counts are Float: IPv4/IPv6 address counts exceed 2^31 (GraphQL Int is 32-bit); every count here
// is below 2^53, so a Float carries it exactly and JSON prints it as an integer.
import { builder } from '../builder';

export interface ConeStats {
  numberAsns: number;
  numberPrefixes: number;
  numberAddresses: number;
}

export interface DegreeStats {
  provider: number;
  peer: number;
  customer: number;
  sibling: number;
  transit: number;
  total: number;
}

export const ConeRef = builder.objectRef<ConeStats>('Cone').implement({
  description: 'Size of a customer cone.',
  fields: (t) => ({
    numberAsns: t.exposeInt('numberAsns', { description: 'ASNs in the cone, the AS itself included.' }),
    numberPrefixes: t.exposeInt('numberPrefixes'),
    numberAddresses: t.exposeFloat('numberAddresses', {
      description: 'Addresses covered (integer value; Float because it may exceed 2^31).',
    }),
  }),
});

export const AsnDegreeRef = builder.objectRef<DegreeStats>('AsnDegree').implement({
  description: 'Neighbour counts by relationship.',
  fields: (t) => ({
    provider: t.exposeInt('provider'),
    peer: t.exposeInt('peer'),
    customer: t.exposeInt('customer'),
    sibling: t.exposeInt('sibling'),
    transit: t.exposeInt('transit'),
    total: t.exposeInt('total'),
  }),
});

export const OrgDegreeRef = builder.objectRef<{ total: number; transit: number }>('OrgDegree').implement({
  description: 'Degree of an organization counted between organizations.',
  fields: (t) => ({
    total: t.exposeInt('total'),
    transit: t.exposeInt('transit'),
  }),
});

export const AnnouncingRef = builder
  .objectRef<{ numberPrefixes: number; numberAddresses: number }>('Announcing')
  .implement({
    description: 'Prefixes and addresses an ASN originates itself.',
    fields: (t) => ({
      numberPrefixes: t.exposeInt('numberPrefixes'),
      numberAddresses: t.exposeFloat('numberAddresses'),
    }),
  });

interface StatsColumns {
  cone_asns: number;
  cone_prefixes: number;
  cone_addresses: number;
  degree_provider: number;
  degree_peer: number;
  degree_customer: number;
  degree_sibling: number;
  degree_transit: number;
  degree_total: number;
}

export function coneOf(row: StatsColumns): ConeStats {
  return {
    numberAsns: Number(row.cone_asns),
    numberPrefixes: Number(row.cone_prefixes),
    numberAddresses: Number(row.cone_addresses),
  };
}

export function degreeOf(row: StatsColumns): DegreeStats {
  return {
    provider: row.degree_provider,
    peer: row.degree_peer,
    customer: row.degree_customer,
    sibling: row.degree_sibling,
    transit: row.degree_transit,
    total: row.degree_total,
  };
}
