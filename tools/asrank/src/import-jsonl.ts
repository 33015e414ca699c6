// `asrank import-jsonl --date D DIR`: loads the JSON-lines dumps that clients of the public AS Rank API produce (one
// GraphQL node per line, shaped as the spec's Asn / Organization / AsnLink, optionally wrapped as {"node": ...}), so
// a user can mirror the public service and serve it locally. Files: asns.jsonl, organizations.jsonl (or orgs.jsonl),
// asnLinks.jsonl (or links.jsonl), optionally dataset.jsonl and locations.jsonl; any may be .gz/.bz2 compressed.
import fs from 'node:fs';
import path from 'node:path';
import { LINK_RELATIONSHIPS, parseDateArgument, rankLinks } from '@asrank/domain';
import {
  searchText,
  type AsnLinksTable,
  type AsnRecord,
  type DatabaseHandle,
  type OrganizationRecord,
} from '@asrank/db';
import { readLines, InputFileError } from './input/open';
import { BadLinePolicy, MalformedLineError } from './input/bad-lines';
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
const str = (value: unknown): string | null =>
  value === null || value === undefined || value === '' ? null : String(value);
const bool = (value: unknown): boolean => value === true || value === 'true' || value === 1 || value === '1';

const UINT32_MAX = 4294967295;
// The API serves every count but addresses as a GraphQL Int (32-bit; the `integer` columns are too), so a larger
// value would load and then fail every query that returns it. Address counts exceed 2^31 (the IPv4 space alone
// is 2^32) and are stored as bigint and served as Float: they may go up to the largest integer a JS number holds
// exactly, as every value passes through one on its way to either store.
const INT_MAX = 2147483647;
const ADDRESSES_MAX = Number.MAX_SAFE_INTEGER;

/** A field of a node that is present but invalid; the node's whole line is malformed. */
class FieldError extends Error {}

/** The node parsed by `parse`, or null after the policy has rejected its line for a FieldError. */
function parsed<T>(
  policy: BadLinePolicy,
  file: string,
  lineNumber: number,
  line: string,
  parse: () => T,
): T | null {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof FieldError)) throw error;
    // One bad field: the message says what is wrong with it, not what a line must be.
    if (!policy.skipBadLines) throw new MalformedLineError(file, lineNumber, error.message, line, 'problem');
    policy.reject(file, lineNumber, error.message, line);
    return null;
  }
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/**
 * A whole number given as a JSON number or a string of decimal digits (dumps have both: CAIDA's API responses
 * carry `"numberAsnsSeen": "65955"` beside plain numbers); null when absent. Anything else is a FieldError rather
 * than a NULL, a 0 or a REAL in an integer column.
 */
function integer(value: unknown, field: string, min = 0, max = INT_MAX): number | null {
  if (value === undefined || value === null) return null;
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d+$/.test(value)
        ? Number(value)
        : NaN;
  if (!Number.isInteger(n) || n < min || n > max)
    throw new FieldError(
      `${field} must be an integer from ${min} to ${max} (a JSON number or a string of decimal digits), got ${shown(value)}`,
    );
  return n + 0; // -0 is an integer too, and would be stored as such
}
const count = (value: unknown, field: string): number => integer(value, field) ?? 0;
const addresses = (value: unknown, field: string): number => integer(value, field, 0, ADDRESSES_MAX) ?? 0;
const rankOf = (value: unknown, field: string): number | null => integer(value, field, 1);

/** A latitude or longitude in degrees (a JSON number or a decimal string); null when absent. */
function degrees(value: unknown, field: string, limit: 90 | 180): number | null {
  if (value === undefined || value === null) return null;
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(value)
        ? Number(value)
        : NaN;
  if (!Number.isFinite(n) || Math.abs(n) > limit)
    throw new FieldError(`${field} must be a number from -${limit} to ${limit}, got ${shown(value)}`);
  return n;
}

/** A nested object of counts (cone, asnDegree, ...); {} when absent, so its counts take their defaults. */
function group(value: unknown, field: string): Json {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new FieldError(`${field} must be an object, got ${shown(value)}`);
  return value as Json;
}

/**
 * An ASN given as a string of decimal digits (the API's type) or as a JSON integer, bare or as an Asn object's
 * `asn`; null when it is neither. Unlike CAIDA's text files, no asdot: a JSON 1.5 is a fraction, not AS65541.
 */
function asnOf(value: unknown): number | null {
  const asn =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json).asn : value;
  if (typeof asn === 'number') return Number.isInteger(asn) && asn >= 0 && asn <= UINT32_MAX ? asn + 0 : null;
  if (typeof asn !== 'string' || !/^\d{1,10}$/.test(asn)) return null;
  const n = Number(asn);
  return n <= UINT32_MAX ? n : null;
}
const ASN_TEXT = 'a string of decimal digits or a JSON integer, at most 4294967295';

/** A list of ASNs (the Dataset's clique and asnIxs) as the API's decimal strings. */
function asnList(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) throw new FieldError(`${field} must be a list of ASNs, got ${shown(value)}`);
  return value.map((item) => {
    const asn = asnOf(item);
    if (asn === null || (typeof item === 'object' && item !== null))
      throw new FieldError(`${field} must be a list of ASNs (${ASN_TEXT}), got ${shown(item)}`);
    return String(asn);
  });
}

const RELATIONSHIPS = new Set<string>(LINK_RELATIONSHIPS);
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

  const organizations = new Map<string, OrganizationRecord>();
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
      const org = parsed(policy, orgsFile, lineNumber, line, () => organizationRow(date, orgId, node));
      if (org === null) continue;
      const members = obj(node.members);
      if (members.numberAsns !== undefined) givenNumberAsns.add(orgId);
      if (members.numberAsnsSeen !== undefined) givenNumberAsnsSeen.add(orgId);
      orgNames.set(orgId, org.org_name);
      organizations.set(orgId, org);
    }
  }

  const asns = new Map<number, AsnRecord>();
  if (asnsFile) {
    for await (const { node, lineNumber, line } of nodes(asnsFile, policy, 'one JSON Asn node per line')) {
      const asn = asnOf(node.asn);
      if (asn === null) {
        policy.reject(asnsFile, lineNumber, `an Asn node with "asn" ${ASN_TEXT}`, line);
        continue;
      }
      const row = parsed(policy, asnsFile, lineNumber, line, () => asnRow(date, asn, node, orgNames, ''));
      if (row === null) continue;
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
          `an AsnLink node with two different "asn0"/"asn1" ASNs (${ASN_TEXT}) and "relationship" provider, customer, peer or sibling`,
          line,
        );
        continue;
      }
      // Every field of the line, its nested ends' included, is checked before anything is kept: a skipped line
      // leaves no half of a link and no end behind.
      const link = parsed(policy, linksFile, lineNumber, line, () => ({
        shared: {
          date,
          number_paths: integer(node.numberPaths, 'numberPaths'),
          rank: rankOf(node.rank, 'rank'),
          corrected_by: integer(node.correctedBy, 'correctedBy'),
        },
        // The ends are often nested Asn objects (asn1 { asn asnName rank organization ... }): keep what they carry.
        ends: (
          [
            [asn0, node.asn0, 'asn0.'],
            [asn1, node.asn1, 'asn1.'],
          ] as const
        ).map(([asn, end, prefix]) => ({
          asn,
          end: obj(end),
          row: asnRow(date, asn, obj(end), orgNames, prefix),
        })),
      }));
      if (link === null) continue;
      const forward = {
        ...link.shared,
        asn0,
        asn1,
        relationship: relationship as AsnLinksTable['relationship'],
        canonical: asn0 < asn1 ? 1 : 0,
      };
      const backward = {
        ...link.shared,
        asn0: asn1,
        asn1: asn0,
        relationship: REVERSE[relationship]!,
        canonical: asn1 < asn0 ? 1 : 0,
      };
      links.set(linkKey(asn0, asn1), forward);
      links.set(linkKey(asn1, asn0), backward);
      for (const { asn, end, row } of link.ends) {
        if (asns.has(asn)) continue;
        // An end of a routed link was seen in the routing data, whatever the nested object omits.
        if (end.seen === undefined) row.seen = 1;
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
  const dataset = (datasetFile ? await readDataset(datasetFile, policy) : null) ?? datasetNode({});
  const sortedAsns = [...asns.values()].sort((a, b) => a.asn - b.asn);
  const sortedOrgs = [...organizations.values()].sort((a, b) =>
    a.org_id < b.org_id ? -1 : a.org_id > b.org_id ? 1 : 0,
  );
  const sortedLinks = [...links.values()].sort((a, b) => a.asn0 - b.asn0 || a.asn1 - b.asn1);
  const month: MonthData = {
    date,
    dataset: {
      date,
      dataset_id: str(dataset.node.datasetId) ?? date.replaceAll('-', ''),
      ip_version: dataset.ipVersion,
      modified_at: str(dataset.node.modifiedAt) ?? `${date}T00:00:00.000Z`,
      country_iso: str(obj(dataset.node.country).iso),
      clique: JSON.stringify(
        dataset.clique ?? sortedAsns.filter((a) => a.clique_member === 1).map((a) => String(a.asn)),
      ),
      asn_ixs: JSON.stringify(dataset.asnIxs),
      asn_reserved_ranges: JSON.stringify(
        Array.isArray(dataset.node.asnReservedRanges) ? dataset.node.asnReservedRanges : [],
      ),
      asn_assigned_ranges: JSON.stringify(
        Array.isArray(dataset.node.asnAssignedRanges) ? dataset.node.asnAssignedRanges : [],
      ),
      sources: JSON.stringify([
        ...(Array.isArray(dataset.node.sources) ? dataset.node.sources : []),
        {
          url: '',
          date: date.replaceAll('-', ''),
          name: `Imported from AS Rank API JSON-lines dumps (${path.basename(path.resolve(options.dir))})`,
        },
      ]),
      number_addresses: dataset.numberAddresses ?? 0,
      number_prefixes: dataset.numberPrefixes ?? 0,
      number_asns: dataset.numberAsns ?? sortedAsns.length,
      number_asns_seen: dataset.numberAsnsSeen ?? sortedAsns.filter((a) => a.seen === 1).length,
      number_organizations: dataset.numberOrganizations ?? sortedOrgs.length,
      number_organizations_seen:
        dataset.numberOrganizationsSeen ?? sortedOrgs.filter((o) => o.seen === 1).length,
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

/** The Dataset node's checked fields (null when absent) beside the node itself for its free-form ones. */
function datasetNode(node: Json) {
  const ipVersion = integer(node.ipVersion, 'ipVersion') ?? 4;
  if (ipVersion !== 4 && ipVersion !== 6)
    throw new FieldError(`ipVersion must be 4 or 6, got ${shown(node.ipVersion)}`);
  return {
    node,
    ipVersion,
    clique: node.clique === undefined || node.clique === null ? null : asnList(node.clique, 'clique'),
    asnIxs: node.asnIxs === undefined || node.asnIxs === null ? [] : asnList(node.asnIxs, 'asnIxs'),
    numberAddresses: integer(node.numberAddresses, 'numberAddresses', 0, ADDRESSES_MAX),
    numberPrefixes: integer(node.numberPrefixes, 'numberPrefixes'),
    numberAsns: integer(node.numberAsns, 'numberAsns'),
    numberAsnsSeen: integer(node.numberAsnsSeen, 'numberAsnsSeen'),
    numberOrganizations: integer(node.numberOrganizations, 'numberOrganizations'),
    numberOrganizationsSeen: integer(node.numberOrganizationsSeen, 'numberOrganizationsSeen'),
  };
}

/** The first Dataset node of the file whose line is not malformed (null when there is none). */
async function readDataset(
  file: string,
  policy: BadLinePolicy,
): Promise<ReturnType<typeof datasetNode> | null> {
  for await (const { node, lineNumber, line } of nodes(file, policy, 'one JSON Dataset node per line')) {
    const dataset = parsed(policy, file, lineNumber, line, () => datasetNode(node));
    if (dataset !== null) return dataset;
  }
  return null;
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

/**
 * An asns row from an Asn node (missing fields become empty/zero; `seen` defaults to "has a rank"). `prefix` names
 * the node in errors ("asn1." for a link's nested end).
 */
function asnRow(
  date: string,
  asn: number,
  node: Json,
  orgNames: ReadonlyMap<string, string>,
  prefix: string,
): AsnRecord {
  const org = obj(node.organization);
  const orgId = str(org.orgId);
  const orgName = str(org.orgName) ?? (orgId ? orgNames.get(orgId) : undefined) ?? '';
  const cone = group(node.cone, `${prefix}cone`);
  const degree = group(node.asnDegree, `${prefix}asnDegree`);
  const announcing = group(node.announcing, `${prefix}announcing`);
  const rank = rankOf(node.rank, `${prefix}rank`);
  const asnName = str(node.asnName) ?? '';
  return {
    date,
    asn,
    asn_name: asnName,
    org_id: orgId,
    country_iso: str(obj(node.country).iso),
    source: str(node.source),
    latitude: degrees(node.latitude, `${prefix}latitude`, 90),
    longitude: degrees(node.longitude, `${prefix}longitude`, 180),
    rank,
    seen: node.seen === undefined ? (rank !== null ? 1 : 0) : bool(node.seen) ? 1 : 0,
    clique_member: bool(node.cliqueMember) ? 1 : 0,
    ixp: node.ixp === null || node.ixp === undefined || node.ixp === false ? null : 1,
    cone_asns: count(cone.numberAsns, `${prefix}cone.numberAsns`),
    cone_prefixes: count(cone.numberPrefixes, `${prefix}cone.numberPrefixes`),
    cone_addresses: addresses(cone.numberAddresses, `${prefix}cone.numberAddresses`),
    announcing_prefixes: count(announcing.numberPrefixes, `${prefix}announcing.numberPrefixes`),
    announcing_addresses: addresses(announcing.numberAddresses, `${prefix}announcing.numberAddresses`),
    degree_provider: count(degree.provider, `${prefix}asnDegree.provider`),
    degree_peer: count(degree.peer, `${prefix}asnDegree.peer`),
    degree_customer: count(degree.customer, `${prefix}asnDegree.customer`),
    degree_sibling: count(degree.sibling, `${prefix}asnDegree.sibling`),
    degree_transit: count(degree.transit, `${prefix}asnDegree.transit`),
    degree_total: count(degree.total, `${prefix}asnDegree.total`),
    search_text: searchText(asnName, orgName),
  };
}

/** An organizations row from an Organization node (missing counts become zero, filled in later from the ASNs). */
function organizationRow(date: string, orgId: string, node: Json): OrganizationRecord {
  const members = group(node.members, 'members');
  const cone = group(node.cone, 'cone');
  const degree = group(node.asnDegree, 'asnDegree');
  const orgDegree = group(node.orgDegree, 'orgDegree');
  const orgName = str(node.orgName) ?? '';
  const rank = rankOf(node.rank, 'rank');
  const numberAsnsSeen = count(members.numberAsnsSeen, 'members.numberAsnsSeen');
  return {
    date,
    org_id: orgId,
    org_name: orgName,
    country_iso: str(obj(node.country).iso),
    rank,
    seen: rank !== null || numberAsnsSeen > 0 ? 1 : 0,
    number_asns: count(members.numberAsns, 'members.numberAsns'),
    number_asns_seen: numberAsnsSeen,
    cone_asns: count(cone.numberAsns, 'cone.numberAsns'),
    cone_prefixes: count(cone.numberPrefixes, 'cone.numberPrefixes'),
    cone_addresses: addresses(cone.numberAddresses, 'cone.numberAddresses'),
    degree_provider: count(degree.provider, 'asnDegree.provider'),
    degree_peer: count(degree.peer, 'asnDegree.peer'),
    degree_customer: count(degree.customer, 'asnDegree.customer'),
    degree_sibling: count(degree.sibling, 'asnDegree.sibling'),
    degree_transit: count(degree.transit, 'asnDegree.transit'),
    degree_total: count(degree.total, 'asnDegree.total'),
    org_degree_total: count(orgDegree.total, 'orgDegree.total'),
    org_degree_transit: count(orgDegree.transit, 'orgDegree.transit'),
    search_text: searchText(orgName, orgId),
  };
}
