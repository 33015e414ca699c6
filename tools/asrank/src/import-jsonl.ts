// `asrank import-jsonl --date D DIR`: loads the JSON-lines dumps that clients of the public AS Rank API produce (one
// GraphQL node per line, shaped as the spec's Asn / Organization / AsnLink, optionally wrapped as {"node": ...}), so
// a user can mirror the public service and serve it locally. Files: asns.jsonl, organizations.jsonl (or orgs.jsonl),
// asnLinks.jsonl (or links.jsonl), optionally dataset.jsonl and locations.jsonl; any may be .gz/.bz2 compressed.
import fs from 'node:fs';
import path from 'node:path';
import { parseDateArgument, rankLinks } from '@asrank/domain';
import {
  searchText,
  type AsnLinksTable,
  type AsnRecord,
  type DatabaseHandle,
  type OrganizationsTable,
} from '@asrank/db';
import { readLines, InputFileError } from './input/open';
import { BadLinePolicy, parseAsn } from './input/bad-lines';
import type { MonthData } from './ingest/month';
import { createProgress, type Progress } from './progress';
import { storeMonth, type IngestSummary } from './ingest/ingest';

type Json = Record<string, unknown>;

const FILES = {
  asns: ['asns.jsonl', 'asn.jsonl'],
  organizations: ['organizations.jsonl', 'orgs.jsonl'],
  asnLinks: ['asnLinks.jsonl', 'asn_links.jsonl', 'links.jsonl'],
  dataset: ['dataset.jsonl', 'datasets.jsonl'],
  locations: ['locations.jsonl'],
};

function findFile(dir: string, names: readonly string[]): string | null {
  for (const name of names) {
    for (const candidate of [name, `${name}.gz`, `${name}.bz2`]) {
      const file = path.join(dir, candidate);
      if (fs.existsSync(file)) return file;
    }
  }
  return null;
}

async function* nodes(
  file: string,
  policy: BadLinePolicy,
  expected: string,
): AsyncGenerator<{ node: Json; lineNumber: number; line: string }> {
  for await (const { line, lineNumber } of readLines(file)) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    const node =
      value && typeof value === 'object' && !Array.isArray(value) && 'node' in value
        ? (value as Json).node
        : value;
    if (!node || typeof node !== 'object' || Array.isArray(node)) {
      policy.reject(file, lineNumber, expected, line);
      continue;
    }
    yield { node: node as Json, lineNumber, line };
  }
}

const obj = (value: unknown): Json =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
const num = (value: unknown): number | null => {
  if (value === null || value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
};
const int = (value: unknown): number => Math.trunc(num(value) ?? 0);
const str = (value: unknown): string | null =>
  value === null || value === undefined || value === '' ? null : String(value);
const bool = (value: unknown): boolean => value === true || value === 'true' || value === 1 || value === '1';
const asnOf = (value: unknown): number | null =>
  parseAsn(String(typeof value === 'object' && value !== null ? (value as Json).asn : (value ?? '')));

const RELATIONSHIPS = new Set(['provider', 'customer', 'peer', 'sibling']);
const REVERSE: Record<string, AsnLinksTable['relationship']> = {
  provider: 'customer',
  customer: 'provider',
  peer: 'peer',
  sibling: 'sibling',
};

export interface ImportJsonlOptions {
  date: string;
  dir: string;
  skipBadLines?: boolean;
  progress?: Progress;
}

export async function importJsonl(
  handle: DatabaseHandle,
  options: ImportJsonlOptions,
): Promise<IngestSummary> {
  const started = process.hrtime.bigint();
  const date = parseDateArgument(options.date, 'date');
  const policy = new BadLinePolicy(options.skipBadLines ?? false);
  const progress = options.progress ?? createProgress('silent');
  if (!fs.existsSync(options.dir) || !fs.statSync(options.dir).isDirectory()) {
    throw new InputFileError(
      options.dir,
      'not a directory (expected a folder holding asns.jsonl, organizations.jsonl, asnLinks.jsonl)',
    );
  }
  const asnsFile = findFile(options.dir, FILES.asns);
  const orgsFile = findFile(options.dir, FILES.organizations);
  const linksFile = findFile(options.dir, FILES.asnLinks);
  if (!asnsFile && !orgsFile && !linksFile) {
    throw new InputFileError(options.dir, 'holds none of asns.jsonl, organizations.jsonl, asnLinks.jsonl');
  }

  const organizations = new Map<string, OrganizationsTable>();
  const orgNames = new Map<string, string>();
  // Which organizations' nodes carried member counts themselves (those win over counting the ASN nodes).
  const givenNumberAsns = new Set<string>();
  const givenNumberAsnsSeen = new Set<string>();
  if (orgsFile) {
    for await (const { node, lineNumber, line } of nodes(
      orgsFile,
      policy,
      'one JSON Organization node per line',
    )) {
      const orgId = str(node.orgId);
      if (orgId === null) {
        policy.reject(orgsFile, lineNumber, 'an Organization node with a non-empty "orgId"', line);
        continue;
      }
      const members = obj(node.members);
      if (members.numberAsns !== undefined) givenNumberAsns.add(orgId);
      if (members.numberAsnsSeen !== undefined) givenNumberAsnsSeen.add(orgId);
      const cone = obj(node.cone);
      const degree = obj(node.asnDegree);
      const orgDegree = obj(node.orgDegree);
      const orgName = str(node.orgName) ?? '';
      orgNames.set(orgId, orgName);
      const rank = num(node.rank);
      organizations.set(orgId, {
        date,
        org_id: orgId,
        org_name: orgName,
        country_iso: str(obj(node.country).iso),
        rank,
        seen: rank !== null || int(members.numberAsnsSeen) > 0 ? 1 : 0,
        number_asns: int(members.numberAsns),
        number_asns_seen: int(members.numberAsnsSeen),
        cone_asns: int(cone.numberAsns),
        cone_prefixes: int(cone.numberPrefixes),
        cone_addresses: int(cone.numberAddresses),
        degree_provider: int(degree.provider),
        degree_peer: int(degree.peer),
        degree_customer: int(degree.customer),
        degree_sibling: int(degree.sibling),
        degree_transit: int(degree.transit),
        degree_total: int(degree.total),
        org_degree_total: int(orgDegree.total),
        org_degree_transit: int(orgDegree.transit),
        search_text: searchText(orgName, orgId),
      });
    }
  }

  const asns = new Map<number, AsnRecord>();
  if (asnsFile) {
    for await (const { node, lineNumber, line } of nodes(asnsFile, policy, 'one JSON Asn node per line')) {
      const asn = asnOf(node.asn);
      if (asn === null) {
        policy.reject(asnsFile, lineNumber, 'an Asn node with "asn" a string of decimal digits', line);
        continue;
      }
      const row = asnRow(date, asn, node, orgNames);
      asns.set(asn, row);
      const orgId = row.org_id;
      const orgName = str(obj(node.organization).orgName) ?? (orgId ? orgNames.get(orgId) : undefined) ?? '';
      if (orgId !== null && !organizations.has(orgId)) {
        organizations.set(orgId, {
          date,
          org_id: orgId,
          org_name: orgName,
          country_iso: null,
          rank: null,
          seen: 0,
          number_asns: 0,
          number_asns_seen: 0,
          cone_asns: 0,
          cone_prefixes: 0,
          cone_addresses: 0,
          degree_provider: 0,
          degree_peer: 0,
          degree_customer: 0,
          degree_sibling: 0,
          degree_transit: 0,
          degree_total: 0,
          org_degree_total: 0,
          org_degree_transit: 0,
          search_text: searchText(orgName, orgId),
        });
      }
    }
  }

  const links = new Map<string, AsnLinksTable>();
  if (linksFile) {
    for await (const { node, lineNumber, line } of nodes(
      linksFile,
      policy,
      'one JSON AsnLink node per line',
    )) {
      const asn0 = asnOf(node.asn0);
      const asn1 = asnOf(node.asn1);
      const relationship = String(node.relationship ?? '');
      if (asn0 === null || asn1 === null || asn0 === asn1 || !RELATIONSHIPS.has(relationship)) {
        policy.reject(
          linksFile,
          lineNumber,
          'an AsnLink node with two different "asn0"/"asn1" ASNs and "relationship" provider, customer, peer or sibling',
          line,
        );
        continue;
      }
      const shared = {
        date,
        number_paths: num(node.numberPaths),
        rank: num(node.rank),
        corrected_by: num(node.correctedBy),
      };
      const forward = {
        ...shared,
        asn0,
        asn1,
        relationship: relationship as AsnLinksTable['relationship'],
        canonical: asn0 < asn1 ? 1 : 0,
      };
      const backward = {
        ...shared,
        asn0: asn1,
        asn1: asn0,
        relationship: REVERSE[relationship]!,
        canonical: asn1 < asn0 ? 1 : 0,
      };
      links.set(linkKey(asn0, asn1), forward);
      links.set(linkKey(asn1, asn0), backward);
      // The ends are often nested Asn objects (asn1 { asn asnName rank organization ... }): keep what they carry.
      for (const [asn, end] of [
        [asn0, node.asn0],
        [asn1, node.asn1],
      ] as const) {
        if (asns.has(asn)) continue;
        const row = asnRow(date, asn, obj(end), orgNames);
        // An end of a routed link was seen in the routing data, whatever the nested object omits.
        if (obj(end).seen === undefined) row.seen = 1;
        asns.set(asn, row);
      }
    }
  }

  rankUnrankedLinks(links, asns);

  // Member counts fill in from the ASN nodes when the organization nodes did not carry them.
  const memberCounts = new Map<string, { all: number; seen: number }>();
  for (const row of asns.values()) {
    if (row.org_id === null) continue;
    const tally = memberCounts.get(row.org_id) ?? { all: 0, seen: 0 };
    tally.all += 1;
    tally.seen += row.seen;
    memberCounts.set(row.org_id, tally);
  }
  for (const org of organizations.values()) {
    const tally = memberCounts.get(org.org_id);
    if (!tally) continue;
    if (!givenNumberAsns.has(org.org_id)) org.number_asns = tally.all;
    if (!givenNumberAsnsSeen.has(org.org_id)) org.number_asns_seen = tally.seen;
    if (org.number_asns_seen > 0) org.seen = 1;
  }
  const datasetFile = findFile(options.dir, FILES.dataset);
  const dataset = datasetFile ? await firstNode(datasetFile, policy) : {};
  const sortedAsns = [...asns.values()].sort((a, b) => a.asn - b.asn);
  const sortedOrgs = [...organizations.values()].sort((a, b) =>
    a.org_id < b.org_id ? -1 : a.org_id > b.org_id ? 1 : 0,
  );
  const sortedLinks = [...links.values()].sort((a, b) => a.asn0 - b.asn0 || a.asn1 - b.asn1);
  const month: MonthData = {
    date,
    dataset: {
      date,
      dataset_id: str(dataset.datasetId) ?? date.replaceAll('-', ''),
      ip_version: int(dataset.ipVersion ?? 4) || 4,
      modified_at: str(dataset.modifiedAt) ?? `${date}T00:00:00.000Z`,
      country_iso: str(obj(dataset.country).iso),
      clique: JSON.stringify(
        Array.isArray(dataset.clique)
          ? dataset.clique.map(String)
          : sortedAsns.filter((a) => a.clique_member === 1).map((a) => String(a.asn)),
      ),
      asn_ixs: JSON.stringify(Array.isArray(dataset.asnIxs) ? dataset.asnIxs.map(String) : []),
      asn_reserved_ranges: JSON.stringify(
        Array.isArray(dataset.asnReservedRanges) ? dataset.asnReservedRanges : [],
      ),
      asn_assigned_ranges: JSON.stringify(
        Array.isArray(dataset.asnAssignedRanges) ? dataset.asnAssignedRanges : [],
      ),
      sources: JSON.stringify([
        ...(Array.isArray(dataset.sources) ? dataset.sources : []),
        {
          url: '',
          date: date.replaceAll('-', ''),
          name: `Imported from AS Rank API JSON-lines dumps (${path.basename(path.resolve(options.dir))})`,
        },
      ]),
      number_addresses: int(dataset.numberAddresses),
      number_prefixes: int(dataset.numberPrefixes),
      number_asns: num(dataset.numberAsns) ?? sortedAsns.length,
      number_asns_seen: num(dataset.numberAsnsSeen) ?? sortedAsns.filter((a) => a.seen === 1).length,
      number_organizations: num(dataset.numberOrganizations) ?? sortedOrgs.length,
      number_organizations_seen:
        num(dataset.numberOrganizationsSeen) ?? sortedOrgs.filter((o) => o.seen === 1).length,
      number_links: sortedLinks.length / 2,
    },
    asns: sortedAsns,
    organizations: sortedOrgs,
    asnLinks: sortedLinks,
    locations: [],
    linkLocations: [],
    coneMembers: new Map(),
    prefixes: [],
    prefixOrigins: new Map(),
  };
  return storeMonth(handle, month, policy, progress, started);
}

async function firstNode(file: string, policy: BadLinePolicy): Promise<Json> {
  for await (const { node } of nodes(file, policy, 'one JSON Dataset node per line')) return node;
  return {};
}

/** A link's key in the dump's map of links, one per direction. */
function linkKey(asn0: number, asn1: number): string {
  return `${asn0}|${asn1}`;
}

/**
 * The public API's AsnLink has no rank, so its dumps carry none. Unless every link of the dump has one, the links are
 * ranked from their ends' ranks as an ingest ranks them (rankLinks): the month's default link order is then the same
 * as an ingested month's, and every link has a rank, which the link orders and their bookmarks rely on (an unranked
 * link would sort first on SQLite and last on PostgreSQL).
 */
function rankUnrankedLinks(links: Map<string, AsnLinksTable>, asns: Map<number, AsnRecord>): void {
  const canonicalLinks = [...links.values()].filter((link) => link.canonical === 1);
  if (canonicalLinks.every((link) => link.rank !== null)) return;
  const ranks = rankLinks(canonicalLinks, (asn) => asns.get(asn)?.rank);
  canonicalLinks.forEach((link, index) => {
    link.rank = ranks[index]!;
    links.get(linkKey(link.asn1, link.asn0))!.rank = link.rank;
  });
}

/** An asns row from an Asn node (missing fields become empty/zero; `seen` defaults to "has a rank"). */
function asnRow(date: string, asn: number, node: Json, orgNames: ReadonlyMap<string, string>): AsnRecord {
  const org = obj(node.organization);
  const orgId = str(org.orgId);
  const orgName = str(org.orgName) ?? (orgId ? orgNames.get(orgId) : undefined) ?? '';
  const cone = obj(node.cone);
  const degree = obj(node.asnDegree);
  const rank = num(node.rank);
  const asnName = str(node.asnName) ?? '';
  return {
    date,
    asn,
    asn_name: asnName,
    org_id: orgId,
    country_iso: str(obj(node.country).iso),
    source: str(node.source),
    latitude: num(node.latitude),
    longitude: num(node.longitude),
    rank,
    seen: node.seen === undefined ? (rank !== null ? 1 : 0) : bool(node.seen) ? 1 : 0,
    clique_member: bool(node.cliqueMember) ? 1 : 0,
    ixp: node.ixp === null || node.ixp === undefined || node.ixp === false ? null : 1,
    cone_asns: int(cone.numberAsns),
    cone_prefixes: int(cone.numberPrefixes),
    cone_addresses: int(cone.numberAddresses),
    announcing_prefixes: int(obj(node.announcing).numberPrefixes),
    announcing_addresses: int(obj(node.announcing).numberAddresses),
    degree_provider: int(degree.provider),
    degree_peer: int(degree.peer),
    degree_customer: int(degree.customer),
    degree_sibling: int(degree.sibling),
    degree_transit: int(degree.transit),
    degree_total: int(degree.total),
    search_text: searchText(asnName, orgName),
  };
}
