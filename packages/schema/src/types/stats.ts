// Small value objects nested in records: cone sizes, degrees and announced space.
// Address counts are Float: IPv4/IPv6 address counts exceed 2^31 (GraphQL Int is 32-bit); every count here
// is below 2^53, so a Float carries it exactly and JSON prints it as an integer.
import type { AsnsTable, OrganizationsTable } from '@asrank/db';
import { builder } from '../builder';

/** The columns of a record that its cone and degrees show (an organization's record has them too). */
export type StatsColumns = Pick<
  AsnsTable,
  | 'cone_asns'
  | 'cone_prefixes'
  | 'cone_addresses'
  | 'degree_provider'
  | 'degree_peer'
  | 'degree_customer'
  | 'degree_sibling'
  | 'degree_transit'
  | 'degree_total'
>;

/**
 * A field whose value is its parent record itself (a record's cone, degrees, announcing or members): the resolver
 * returns the parent, and the extension tells the patched graphql-jit to read the parent inline instead of calling it.
 */
export const PARENT_ITSELF = {
  resolve: <Parent>(parent: Parent): Parent => parent,
  extensions: { jitReadsParent: true },
} as const;

// Cone, AsnDegree, OrgDegree and Announcing show their record's own columns: a record's `cone`, `asnDegree`,
// `orgDegree` and `announcing` are the record itself (PARENT_ITSELF), and each of their fields is exposed from its
// column. graphql-jit, as patched, then reads them inline with no resolver call and no object made per record
// (schema/index.ts). The Int and Float serializers turn PostgreSQL's bigint strings into numbers, as Number() did.
export const ConeRef = builder.objectRef<StatsColumns>('Cone').implement({
  description: 'Size of a customer cone.',
  fields: (t) => ({
    numberAsns: t.exposeInt('cone_asns', { description: 'ASNs in the cone, the AS itself included.' }),
    numberPrefixes: t.exposeInt('cone_prefixes'),
    numberAddresses: t.exposeFloat('cone_addresses', {
      description: 'Addresses covered (integer value; Float because it may exceed 2^31).',
    }),
  }),
});

export const AsnDegreeRef = builder.objectRef<StatsColumns>('AsnDegree').implement({
  description: 'Neighbour counts by relationship.',
  fields: (t) => ({
    provider: t.exposeInt('degree_provider'),
    peer: t.exposeInt('degree_peer'),
    customer: t.exposeInt('degree_customer'),
    sibling: t.exposeInt('degree_sibling'),
    transit: t.exposeInt('degree_transit'),
    total: t.exposeInt('degree_total'),
  }),
});

export const OrgDegreeRef = builder
  .objectRef<Pick<OrganizationsTable, 'org_degree_total' | 'org_degree_transit'>>('OrgDegree')
  .implement({
    description: 'Degree of an organization counted between organizations.',
    fields: (t) => ({
      total: t.exposeInt('org_degree_total'),
      transit: t.exposeInt('org_degree_transit'),
    }),
  });

export const AnnouncingRef = builder
  .objectRef<Pick<AsnsTable, 'announcing_prefixes' | 'announcing_addresses'>>('Announcing')
  .implement({
    description: 'Prefixes and addresses an ASN originates itself.',
    fields: (t) => ({
      numberPrefixes: t.exposeInt('announcing_prefixes'),
      numberAddresses: t.exposeFloat('announcing_addresses'),
    }),
  });
