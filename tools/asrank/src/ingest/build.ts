// Derives everything the API serves for one month from the parsed inputs. Graph algorithms, prefix math and
// ranking come from @asrank/domain; this module only joins the inputs and shapes the rows.
import {
  AsGraph,
  comparePrefixes,
  computeCustomerCones,
  computeDegrees,
  computeOrgCones,
  computeOrgDegrees,
  countUniqueAddresses,
  parsePrefix,
  rankAsns,
  rankLinks,
  rankOrganizations,
  type ParsedPrefix,
} from '@asrank/domain';
import {
  searchText,
  type AsnLinksTable,
  type AsnRecord,
  type LocationsTable,
  type OrganizationRecord,
  type PrefixesTable,
} from '@asrank/db';
import type { AsRelFile, AsRelLink } from '../parse/as-rel';
import type { AsOrgFile } from '../parse/as-org';
import type { PrefixEntry } from '../parse/pfx2as';
import {
  PairMap,
  type AsnCount,
  type AsrankCounts,
  type DatasetSource,
  type LocationRecord,
} from '../parse/asrank-counts';
import type { LinkGeo } from '../parse/link-geo';
import type { MonthData } from './month';

export interface ParsedInputs {
  date: string;
  modifiedAt: string;
  asRel: AsRelFile | null;
  asOrg: AsOrgFile | null;
  prefixes: Map<string, PrefixEntry> | null;
  /** Dates named in the pfx2as file names (routeviews-rv2-YYYYMMDD-...), for the sources list. */
  prefixDates: string[];
  ppdcCones: Map<number, Uint32Array> | null;
  counts: AsrankCounts | null;
  linkGeo: { links: LinkGeo[]; locations: LocationRecord[] } | null;
}

const compact = (date: string) => date.replaceAll('-', '');

function uniqueLinks(links: readonly AsRelLink[]): AsRelLink[] {
  const byPair = new PairMap<AsRelLink>();
  for (const link of links) byPair.set(link.asn0, link.asn1, link);
  return [...byPair.values()];
}

/** Prefixes in address order (family, network, length): prefix_id follows it, as tables.ts promises. */
function orderPrefixes(entries: Map<string, PrefixEntry>): { entry: PrefixEntry; parsed: ParsedPrefix }[] {
  const withParsed = [...entries.values()].map((entry) => ({
    entry,
    parsed: parsePrefix(entry.network, entry.length),
  }));
  withParsed.sort((a, b) => comparePrefixes(a.parsed, b.parsed));
  return withParsed;
}

/**
 * Prefix and address counts of many cones at once (domain's computeConePrefixStats merges address ranges). Counts are
 * IPv4 figures (docs/decisions.md).
 */
/**
 * Prefix and address figures (IPv4, docs/decisions.md) of a few cones, each the union of its members' prefixes.
 * Prefix ids follow address order, so a cone's distinct ids, sorted as integers, hand countUniqueAddresses its input
 * already in order. Cheaper in time and memory than computeConePrefixStats' one-off numbering of every prefix
 * when only the cones CAIDA's counts miss are measured.
 */
function coneFigures<K>(
  cones: ReadonlyMap<K, ArrayLike<number>>,
  prefixIdsOfAsn: ReadonlyMap<number, readonly number[]>,
  prefixById: readonly ParsedPrefix[],
): Map<K, { prefixes: number; addresses: number }> {
  const figures = new Map<K, { prefixes: number; addresses: number }>();
  const stamp = new Uint32Array(prefixById.length + 1);
  let currentStamp = 0;
  for (const [key, members] of cones) {
    currentStamp += 1;
    const ids: number[] = [];
    for (let i = 0; i < members.length; i += 1) {
      for (const id of prefixIdsOfAsn.get(members[i]!) ?? []) {
        if (stamp[id] === currentStamp || prefixById[id]!.ipVersion !== 4) continue;
        stamp[id] = currentStamp;
        ids.push(id);
      }
    }
    const sortedIds = Uint32Array.from(ids).sort();
    const prefixes = Array.from(sortedIds, (id) => prefixById[id]!);
    figures.set(key, {
      prefixes: prefixes.length,
      addresses: prefixes.length === 0 ? 0 : countUniqueAddresses(prefixes).v4,
    });
  }
  return figures;
}

function compareCounts(a: AsnCount, b: AsnCount): number {
  return a.coneAsns - b.coneAsns || a.conePrefixes - b.conePrefixes || a.coneAddresses - b.coneAddresses;
}

function relationshipFrom(code: -1 | 0 | 1, asProvider: boolean): AsnLinksTable['relationship'] {
  if (code === 0) return 'peer';
  if (code === 1) return 'sibling';
  return asProvider ? 'customer' : 'provider';
}

export function buildMonth(inputs: ParsedInputs): MonthData {
  const { date, counts, asOrg } = inputs;
  const links = uniqueLinks(inputs.asRel?.links ?? []);
  const graph = AsGraph.fromLinks(links);
  const orgOfAsn = (asn: number): string | undefined => asOrg?.asns.get(asn)?.orgId ?? undefined;

  // --- prefixes -------------------------------------------------------------------------------------------
  const prefixRows: PrefixesTable[] = [];
  const prefixOrigins = new Map<number, number[]>();
  const prefixesOfAsn = new Map<number, ParsedPrefix[]>();
  const prefixById: ParsedPrefix[] = [];
  let prefixId = 0;
  for (const { entry, parsed } of orderPrefixes(inputs.prefixes ?? new Map())) {
    prefixId += 1;
    prefixById[prefixId] = parsed;
    prefixRows.push({
      date,
      prefix_id: prefixId,
      network: entry.network,
      length: entry.length,
      ip_version: entry.ipVersion,
      origin_count: entry.origins.length,
    });
    for (const asn of entry.origins) {
      // Prefixes arrive in id order, so each ASN's id list is already sorted.
      let ids = prefixOrigins.get(asn);
      if (!ids) prefixOrigins.set(asn, (ids = []));
      ids.push(prefixId);
      let list = prefixesOfAsn.get(asn);
      if (!list) prefixesOfAsn.set(asn, (list = []));
      list.push(parsed);
    }
  }
  // The parsed pfx2as map is the largest input (a million prefixes): release it before the rest is derived.
  inputs.prefixes?.clear();

  // --- which ASNs exist and which were seen --------------------------------------------------------------------
  const routingAsns = new Set<number>(graph.asns());
  for (const asn of prefixesOfAsn.keys()) routingAsns.add(asn);
  const seen = counts ? new Set(counts.asnCounts.keys()) : routingAsns;
  const allAsns = new Set<number>(routingAsns);
  for (const asn of seen) allAsns.add(asn);
  for (const asn of asOrg?.asns.keys() ?? []) allAsns.add(asn);
  for (const [asn, members] of inputs.ppdcCones ?? []) {
    allAsns.add(asn);
    for (const member of members) allAsns.add(member);
  }
  for (const link of inputs.linkGeo?.links ?? []) allAsns.add(link.asn0).add(link.asn1);

  // --- cones ------------------------------------------------------------------------------------------------
  const computedCones = inputs.ppdcCones ? null : computeCustomerCones(graph);
  const coneMembers = new Map<number, Uint32Array>();
  for (const asn of seen) {
    coneMembers.set(asn, inputs.ppdcCones?.get(asn) ?? computedCones?.get(asn) ?? Uint32Array.of(asn));
  }
  // Organizations' members (all, and seen) and their cones: the union of the seen members' cones.
  const membersOfOrg = new Map<string, number[]>();
  for (const asn of [...allAsns].sort((a, b) => a - b)) {
    const orgId = orgOfAsn(asn);
    if (orgId === undefined) continue;
    let list = membersOfOrg.get(orgId);
    if (!list) membersOfOrg.set(orgId, (list = []));
    list.push(asn);
  }
  const seenMembersOfOrg = new Map<string, number[]>();
  for (const [orgId, members] of membersOfOrg)
    seenMembersOfOrg.set(
      orgId,
      members.filter((asn) => seen.has(asn)),
    );
  const orgCones = computeOrgCones(coneMembers, seenMembersOfOrg);

  // Prefix/address figures of the cones CAIDA's counts do not give, only for cones that contain an originating ASN
  // (the rest are 0).
  const originates = (members: ArrayLike<number>): boolean => {
    for (let i = 0; i < members.length; i += 1) if (prefixesOfAsn.has(members[i]!)) return true;
    return false;
  };
  const conesToMeasure = new Map<string, ArrayLike<number>>();
  for (const [asn, members] of coneMembers)
    if (!counts?.asnCounts.has(asn) && originates(members)) conesToMeasure.set(`c${asn}`, members);
  // An organization missing from CAIDA's org counts (their org file is often a newer release than ours) takes the
  // figures of its largest seen member from CAIDA's ASN counts: exact for a single seen member, a lower bound otherwise,
  // and on the same scale as every other count-based cone (a recursive closure would be several times larger and
  // would rank such organizations above the tier-1s).
  const orgCountOf = (orgId: string): AsnCount | undefined => {
    const given = counts?.orgCounts.get(orgId);
    if (given || !counts) return given;
    let largest: AsnCount | undefined;
    for (const asn of seenMembersOfOrg.get(orgId) ?? []) {
      const count = counts.asnCounts.get(asn);
      if (count && (!largest || compareCounts(count, largest) > 0)) largest = count;
    }
    return largest;
  };
  for (const [orgId, cone] of orgCones)
    if (!orgCountOf(orgId) && originates(cone)) conesToMeasure.set(`o${orgId}`, cone);
  const figuresOf = coneFigures(conesToMeasure, prefixOrigins, prefixById);
  // What an ASN originates itself, and the whole table: plain unions of one list each.
  const v4Only = (prefixes: readonly ParsedPrefix[]) => prefixes.filter((p) => p.ipVersion === 4);
  for (const [asn, prefixes] of prefixesOfAsn) {
    const own = v4Only(prefixes);
    figuresOf.set(`a${asn}`, {
      prefixes: own.length,
      addresses: own.length === 0 ? 0 : countUniqueAddresses(own).v4,
    });
  }
  const allV4: ParsedPrefix[] = [];
  for (const prefixes of prefixesOfAsn.values())
    for (const p of prefixes) if (p.ipVersion === 4) allV4.push(p);
  const distinctV4 = [...new Set(allV4)];
  figuresOf.set('*', {
    prefixes: distinctV4.length,
    addresses: distinctV4.length === 0 ? 0 : countUniqueAddresses(distinctV4).v4,
  });
  const noFigures = { prefixes: 0, addresses: 0 };

  // --- degrees -------------------------------------------------------------------------------------------------
  const degrees = computeDegrees(graph, orgOfAsn);
  const clique = new Set(counts?.dataset?.clique ?? inputs.asRel?.clique ?? []);
  const ixps = new Set(counts?.dataset?.asnIxs ?? inputs.asRel?.ixps ?? []);

  // --- ASN rows ------------------------------------------------------------------------------------------------
  const asnRows = new Map<number, AsnRecord>();
  for (const asn of [...allAsns].sort((a, b) => a - b)) {
    const orgRecord = asOrg?.asns.get(asn);
    const org = orgRecord?.orgId ? asOrg?.organizations.get(orgRecord.orgId) : undefined;
    const degree = degrees.get(asn);
    const count = counts?.asnCounts.get(asn);
    const location = counts?.asnLocations.get(asn);
    const isSeen = seen.has(asn);
    const members = coneMembers.get(asn);
    const figures = figuresOf.get(`c${asn}`) ?? noFigures;
    const announcing = figuresOf.get(`a${asn}`) ?? noFigures;
    const asnName = orgRecord?.asnName ?? '';
    asnRows.set(asn, {
      date,
      asn,
      asn_name: asnName,
      org_id: orgRecord?.orgId ?? null,
      country_iso: org?.country ?? location?.country ?? null,
      source: orgRecord?.source ?? null,
      latitude: location?.latitude ?? null,
      longitude: location?.longitude ?? null,
      rank: null,
      seen: isSeen ? 1 : 0,
      clique_member: clique.has(asn) ? 1 : 0,
      ixp: ixps.has(asn) ? 1 : null,
      cone_asns: count?.coneAsns ?? members?.length ?? 0,
      cone_prefixes: count?.conePrefixes ?? figures.prefixes,
      cone_addresses: count?.coneAddresses ?? figures.addresses,
      announcing_prefixes: announcing.prefixes,
      announcing_addresses: announcing.addresses,
      degree_provider: degree?.provider ?? 0,
      degree_peer: degree?.peer ?? 0,
      degree_customer: degree?.customer ?? 0,
      degree_sibling: degree?.sibling ?? 0,
      degree_transit: count?.degreeTransit ?? degree?.transit ?? 0,
      degree_total: count?.degreeTotal ?? degree?.total ?? 0,
      search_text: searchText(asnName, org?.orgName ?? ''),
    });
  }
  const asnRank = rankAsns(
    [...asnRows.values()]
      .filter((row) => row.seen === 1)
      .map((row) => ({
        asn: row.asn,
        coneAsns: row.cone_asns,
        conePrefixes: row.cone_prefixes,
        coneAddresses: row.cone_addresses,
        degreeTotal: row.degree_total,
        degreeTransit: row.degree_transit,
      })),
  );
  for (const [asn, rank] of asnRank) asnRows.get(asn)!.rank = rank;

  // --- organizations ---------------------------------------------------------------------------------------------
  const orgIds = new Set<string>([...(asOrg?.organizations.keys() ?? []), ...membersOfOrg.keys()]);
  const orgRows = new Map<string, OrganizationRecord>();
  const orgDegrees = computeOrgDegrees(graph, orgOfAsn);
  for (const orgId of [...orgIds].sort()) {
    const org = asOrg?.organizations.get(orgId);
    const members = membersOfOrg.get(orgId) ?? [];
    const seenMembers = seenMembersOfOrg.get(orgId) ?? [];
    const count = orgCountOf(orgId);
    const fullCount = counts?.orgCounts.get(orgId);
    const cone = orgCones.get(orgId) ?? new Uint32Array(0);
    const figures = figuresOf.get(`o${orgId}`) ?? noFigures;
    const orgDegree = orgDegrees.get(orgId)?.asnDegree;
    const orgLevel = orgDegrees.get(orgId)?.orgDegree;
    orgRows.set(orgId, {
      date,
      org_id: orgId,
      org_name: org?.orgName ?? '',
      country_iso: org?.country ?? null,
      rank: null,
      seen: seenMembers.length > 0 ? 1 : 0,
      number_asns: members.length,
      number_asns_seen: seenMembers.length,
      cone_asns: count?.coneAsns ?? cone.length,
      cone_prefixes: count?.conePrefixes ?? figures.prefixes,
      cone_addresses: count?.coneAddresses ?? figures.addresses,
      degree_provider: orgDegree?.provider ?? 0,
      degree_peer: orgDegree?.peer ?? 0,
      degree_customer: orgDegree?.customer ?? 0,
      degree_sibling: orgDegree?.sibling ?? 0,
      degree_transit: fullCount?.degreeTransit ?? orgDegree?.transit ?? 0,
      degree_total: fullCount?.degreeTotal ?? orgDegree?.total ?? 0,
      org_degree_total: fullCount?.orgDegreeTotal ?? orgLevel?.total ?? 0,
      org_degree_transit: fullCount?.orgDegreeTransit ?? orgLevel?.transit ?? 0,
      search_text: searchText(org?.orgName ?? '', orgId),
    });
  }
  const orgRank = rankOrganizations(
    [...orgRows.values()]
      .filter((row) => row.seen === 1)
      .map((row) => ({
        orgId: row.org_id,
        coneAsns: row.cone_asns,
        conePrefixes: row.cone_prefixes,
        coneAddresses: row.cone_addresses,
        degreeTotal: row.degree_total,
        degreeTransit: row.degree_transit,
      })),
  );
  for (const [orgId, rank] of orgRank) orgRows.get(orgId)!.rank = rank;

  // --- links ----------------------------------------------------------------------------------------------------
  // Canonical orientation asn0 < asn1; for a -1 link the file's asn0 is the provider.
  const canonicalLinks = links.map((link) => ({
    asn0: Math.min(link.asn0, link.asn1),
    asn1: Math.max(link.asn0, link.asn1),
    code: link.code,
    provider: link.code === -1 ? link.asn0 : -1,
  }));
  canonicalLinks.sort((a, b) => a.asn0 - b.asn0 || a.asn1 - b.asn1);
  const linkRanks = rankLinks(canonicalLinks, (asn) => asnRank.get(asn));
  const linkRows: AsnLinksTable[] = [];
  canonicalLinks.forEach((link, index) => {
    const numberPaths = counts?.linkPaths.get(link.asn0, link.asn1) ?? null;
    const rank = linkRanks[index] ?? null;
    linkRows.push({
      date,
      asn0: link.asn0,
      asn1: link.asn1,
      relationship: relationshipFrom(link.code, link.provider === link.asn0),
      canonical: 1,
      number_paths: numberPaths,
      rank,
      corrected_by: null,
    });
    linkRows.push({
      date,
      asn0: link.asn1,
      asn1: link.asn0,
      relationship: relationshipFrom(link.code, link.provider === link.asn1),
      canonical: 0,
      number_paths: numberPaths,
      rank,
      corrected_by: null,
    });
  });
  linkRows.sort((a, b) => a.asn0 - b.asn0 || a.asn1 - b.asn1);

  // --- locations ---------------------------------------------------------------------------------------------------
  const locationRows = new Map<string, LocationsTable>();
  for (const location of [...(counts?.locations ?? []), ...(inputs.linkGeo?.locations ?? [])]) {
    locationRows.set(location.locId, {
      date,
      loc_id: location.locId,
      city: location.city,
      region: location.region,
      country_iso: location.country,
      continent: location.continent,
      latitude: location.latitude,
      longitude: location.longitude,
      population: location.population,
    });
  }
  const linkLocationKeys = new Set<string>();
  const linkLocations: MonthData['linkLocations'] = [];
  for (const geo of inputs.linkGeo?.links ?? []) {
    const [asn0, asn1] = geo.asn0 < geo.asn1 ? [geo.asn0, geo.asn1] : [geo.asn1, geo.asn0];
    for (const locId of geo.locIds) {
      if (!locationRows.has(locId)) continue;
      const key = `${asn0}|${asn1}|${locId}`;
      if (linkLocationKeys.has(key)) continue;
      linkLocationKeys.add(key);
      linkLocations.push({ date, asn0, asn1, loc_id: locId });
    }
  }
  linkLocations.sort(
    (a, b) => a.asn0 - b.asn0 || a.asn1 - b.asn1 || (a.loc_id < b.loc_id ? -1 : a.loc_id > b.loc_id ? 1 : 0),
  );

  // --- dataset ------------------------------------------------------------------------------------------------------
  const metadata = counts?.dataset ?? null;
  const wholeTable = figuresOf.get('*') ?? noFigures;
  const datasetSources = buildSources(inputs, metadata?.sources ?? []);
  const seenOrgs = [...orgRows.values()].filter((row) => row.seen === 1).length;

  return {
    date,
    dataset: {
      date,
      dataset_id: metadata?.datasetId ?? compact(date),
      ip_version: 4,
      modified_at: inputs.modifiedAt,
      country_iso: null,
      clique: JSON.stringify([...clique].sort((a, b) => a - b).map(String)),
      asn_ixs: JSON.stringify([...ixps].sort((a, b) => a - b).map(String)),
      asn_reserved_ranges: JSON.stringify(metadata?.asnReservedRanges ?? []),
      asn_assigned_ranges: JSON.stringify(metadata?.asnAssignedRanges ?? []),
      sources: JSON.stringify(datasetSources),
      number_addresses: metadata?.numberAddresses ?? wholeTable.addresses,
      number_prefixes: metadata?.numberPrefixes ?? wholeTable.prefixes,
      number_asns: asnRows.size,
      number_asns_seen: seen.size,
      number_organizations: orgRows.size,
      number_organizations_seen: seenOrgs,
      number_links: canonicalLinks.length,
    },
    asns: [...asnRows.values()],
    organizations: [...orgRows.values()],
    asnLinks: linkRows,
    locations: [...locationRows.values()].sort((a, b) =>
      a.loc_id < b.loc_id ? -1 : a.loc_id > b.loc_id ? 1 : 0,
    ),
    linkLocations,
    coneMembers,
    prefixes: prefixRows,
    prefixOrigins,
  };
}

function buildSources(inputs: ParsedInputs, fromCounts: readonly DatasetSource[]): DatasetSource[] {
  const sources: DatasetSource[] = [...fromCounts];
  const has = (name: string) => sources.some((s) => s.name === name);
  if (inputs.asRel && !has('AS Relationships')) {
    sources.push({
      url: 'https://www.caida.org/catalog/datasets/as-relationships/',
      date: compact(inputs.date),
      name: 'AS Relationships',
    });
  }
  if (inputs.asOrg && !has('Organization')) {
    const orgDate = inputs.asOrg.date ? inputs.asOrg.date.padEnd(8, '01').slice(0, 8) : compact(inputs.date);
    sources.push({
      url: 'https://www.caida.org/catalog/datasets/as-organizations/',
      date: orgDate,
      name: 'Organization',
    });
  }
  if (inputs.prefixes && !has('Prefix to AS')) {
    sources.push({
      url: 'https://www.caida.org/catalog/datasets/routeviews-prefix2as/',
      date: inputs.prefixDates[0] ?? compact(inputs.date),
      name: 'Prefix to AS',
    });
  }
  if (inputs.ppdcCones) {
    sources.push({
      url: 'https://www.caida.org/catalog/datasets/as-relationships/',
      date: compact(inputs.date),
      name: 'Customer cones (ppdc-ases)',
    });
  } else if (inputs.counts) {
    sources.push({
      url: 'https://www.caida.org/catalog/datasets/as-relationships/',
      date: compact(inputs.date),
      name: 'Customer cones: sizes from AS Rank counts; cone members computed as the recursive customer closure of AS Relationships',
    });
  } else if (inputs.asRel) {
    sources.push({
      url: 'https://www.caida.org/catalog/datasets/as-relationships/',
      date: compact(inputs.date),
      name: 'Customer cones: computed as the recursive customer closure of AS Relationships',
    });
  }
  return sources;
}
