// The GraphQL documents behind each REST route. Client input only ever travels as variables, never as
// query text. Each record is asked for with its full set of scalar fields and the joins a client reads
// (organization, country, cone, degrees), so the default REST answer is the GraphQL answer verbatim and
// `populate=1` has everything the REST record shape needs.
//
// Lists keep nested connections out of their nodes: the GraphQL service prices a query by page size times
// selection (query-cost.ts in apps/graphql), and a nested page per node would push `first` far below
// MAX_PAGE_SIZE. Single-record routes add the organization's member list.

const PAGE_INFO = 'pageInfo { first offset status hasPreviousPage hasNextPage startCursor endCursor }';

export const ASN_FIELDS = `
fragment RestAsn on Asn {
  asn asnName rank source date cliqueMember seen ixp longitude latitude
  country { iso name }
  organization { orgId orgName rank }
  cone { numberAsns numberPrefixes numberAddresses }
  announcing { numberPrefixes numberAddresses }
  asnDegree { provider peer customer transit sibling total }
}`;

/** The ends of a link: enough of each ASN to name it and its owner (the full record is one /asns/:asn away). */
export const LINK_END_FIELDS = `
fragment RestLinkEnd on Asn {
  asn asnName rank source cliqueMember
  country { iso name }
  organization { orgId orgName }
}`;

export const LINK_FIELDS = `
fragment RestAsnLink on AsnLink {
  date relationship numberPaths rank correctedBy
  asn0 { ...RestLinkEnd }
  asn1 { ...RestLinkEnd }
}
${LINK_END_FIELDS}`;

export const ORGANIZATION_FIELDS = `
fragment RestOrganization on Organization {
  orgId orgName rank date seen
  country { iso name }
  members { numberAsns numberAsnsSeen }
  cone { numberAsns numberPrefixes numberAddresses }
  asnDegree { provider peer customer transit sibling total }
  orgDegree { total transit }
}`;

export const DATASET_FIELDS = `
fragment RestDataset on Dataset {
  datasetId modifiedAt date ipVersion
  country { iso name capital continent languages population area }
  asnReservedRanges { start end }
  asnAssignedRanges { start end }
  clique asnIxs
  sources { url date name }
  numberAddresses numberPrefixes numberAsns numberAsnsSeen numberOrganizations numberOrganizationsSeen numberLinks
}`;

const LIST_VARIABLES = '$first: Int, $offset: Int, $sort: String, $dateStart: String, $dateEnd: String';
const LIST_ARGUMENTS =
  'first: $first, offset: $offset, sort: $sort, dateStart: $dateStart, dateEnd: $dateEnd';

export const ASN_QUERY = `
query RestAsn($asn: String!, $date: String) {
  asn(asn: $asn, date: $date) { ...RestAsn }
}
${ASN_FIELDS}`;

export const ASNS_QUERY = `
query RestAsns(${LIST_VARIABLES}) {
  asns(${LIST_ARGUMENTS}) {
    totalCount ${PAGE_INFO}
    edges { cursor node { ...RestAsn } }
  }
}
${ASN_FIELDS}`;

export const ASNS_BY_NAME_QUERY = `
query RestAsnsByName($name: String!, ${LIST_VARIABLES}) {
  asns(name: $name, ${LIST_ARGUMENTS}) {
    totalCount ${PAGE_INFO}
    edges { cursor node { ...RestAsn } }
  }
}
${ASN_FIELDS}`;

export const ASN_LINKS_QUERY = `
query RestAsnLinks(${LIST_VARIABLES}) {
  asnLinks(${LIST_ARGUMENTS}) {
    totalCount ${PAGE_INFO}
    edges { cursor node { ...RestAsnLink } }
  }
}
${LINK_FIELDS}`;

export const ASN_LINKS_OF_ASN_QUERY = `
query RestAsnLinksOfAsn($asn: String!, ${LIST_VARIABLES}) {
  asnLinks(asn: $asn, ${LIST_ARGUMENTS}) {
    totalCount ${PAGE_INFO}
    edges { cursor node { ...RestAsnLink } }
  }
}
${LINK_FIELDS}`;

export const ORGANIZATION_QUERY = `
query RestOrganization($orgId: String!, $date: String, $first: Int, $offset: Int) {
  organization(orgId: $orgId, date: $date) {
    ...RestOrganization
    members {
      asns(first: $first, offset: $offset) {
        totalCount ${PAGE_INFO}
        edges { cursor node { asn asnName rank } }
      }
    }
  }
}
${ORGANIZATION_FIELDS}`;

export const ORGANIZATIONS_QUERY = `
query RestOrganizations(${LIST_VARIABLES}) {
  organizations(${LIST_ARGUMENTS}) {
    totalCount ${PAGE_INFO}
    edges { cursor node { ...RestOrganization } }
  }
}
${ORGANIZATION_FIELDS}`;

export const DATASETS_QUERY = `
query RestDatasets(${LIST_VARIABLES}) {
  datasets(${LIST_ARGUMENTS}) {
    totalCount
    edges { node { ...RestDataset } }
  }
}
${DATASET_FIELDS}`;
