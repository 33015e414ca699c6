import type { AsnDegree } from './types';

/**
 * Relationship code of an as-rel line `a|b|code`: -1 = a is the provider of b, 0 = a and b are peers,
 * 1 = a and b are siblings (as-rel2 files use it rarely).
 */
export type RelationshipCode = -1 | 0 | 1;

export interface RelationshipLink {
  asn0: number;
  asn1: number;
  code: RelationshipCode;
}

function sortedDistinct(values: number[]): number[] {
  values.sort((a, b) => a - b);
  let kept = 0;
  for (let index = 0; index < values.length; index += 1) {
    const value = values[index] as number;
    if (kept === 0 || values[kept - 1] !== value) values[kept++] = value;
  }
  values.length = kept;
  return values;
}

const NONE: readonly number[] = Object.freeze([]);

function isAsn(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= 0xffffffff;
}

/**
 * The AS relationship graph of one month. ASNs are mapped to dense indices in ascending ASN order so the cone walk can
 * use typed arrays; neighbour lists are sorted and free of duplicates (a link listed twice counts once). Self-links are
 * ignored. Contradicting lines (a provider of b and b provider of a) are kept as given: cones stay cycle-safe.
 */
export class AsGraph {
  /** ASNs in ascending order; position = dense index. */
  readonly asnByIndex: Uint32Array;
  private readonly indexByAsn: Map<number, number>;
  private readonly customerLists: number[][];
  private readonly providerLists: number[][];
  private readonly peerLists: number[][];
  private readonly siblingLists: number[][];
  /** Customers as dense indices in CSR form (offsets into customerIndexData), for the cone walk. */
  readonly customerIndexOffsets: Uint32Array;
  readonly customerIndexData: Uint32Array;

  private constructor(links: readonly RelationshipLink[]) {
    const asnSet = new Set<number>();
    for (const link of links) {
      // Typed arrays would silently wrap a bad ASN, so reject it here with the offending link.
      if (
        !isAsn(link.asn0) ||
        !isAsn(link.asn1) ||
        (link.code !== -1 && link.code !== 0 && link.code !== 1)
      ) {
        throw new RangeError(
          `invalid AS relationship ${JSON.stringify(link)}: ASNs must be whole numbers from 0 to 4294967295 and code -1, 0 or 1`,
        );
      }
      asnSet.add(link.asn0);
      asnSet.add(link.asn1);
    }
    this.asnByIndex = Uint32Array.from(asnSet).sort();
    this.indexByAsn = new Map();
    this.asnByIndex.forEach((asn, index) => this.indexByAsn.set(asn, index));
    const size = this.asnByIndex.length;
    const emptyLists = (): number[][] => Array.from({ length: size }, () => []);
    this.customerLists = emptyLists();
    this.providerLists = emptyLists();
    this.peerLists = emptyLists();
    this.siblingLists = emptyLists();
    for (const { asn0, asn1, code } of links) {
      if (asn0 === asn1) continue;
      const index0 = this.indexByAsn.get(asn0) as number;
      const index1 = this.indexByAsn.get(asn1) as number;
      if (code === -1) {
        (this.customerLists[index0] as number[]).push(asn1);
        (this.providerLists[index1] as number[]).push(asn0);
      } else if (code === 0) {
        (this.peerLists[index0] as number[]).push(asn1);
        (this.peerLists[index1] as number[]).push(asn0);
      } else {
        (this.siblingLists[index0] as number[]).push(asn1);
        (this.siblingLists[index1] as number[]).push(asn0);
      }
    }
    for (const lists of [this.customerLists, this.providerLists, this.peerLists, this.siblingLists]) {
      for (const list of lists) sortedDistinct(list);
    }
    this.customerIndexOffsets = new Uint32Array(size + 1);
    let total = 0;
    for (let index = 0; index < size; index += 1) {
      total += (this.customerLists[index] as number[]).length;
      this.customerIndexOffsets[index + 1] = total;
    }
    this.customerIndexData = new Uint32Array(total);
    let position = 0;
    for (const list of this.customerLists) {
      for (const customer of list)
        this.customerIndexData[position++] = this.indexByAsn.get(customer) as number;
    }
  }

  static fromLinks(links: Iterable<RelationshipLink>): AsGraph {
    return new AsGraph(Array.isArray(links) ? links : [...links]);
  }

  /** Every ASN that appears in a link, ascending. */
  asns(): number[] {
    return Array.from(this.asnByIndex);
  }

  get size(): number {
    return this.asnByIndex.length;
  }

  has(asn: number): boolean {
    return this.indexByAsn.has(asn);
  }

  /** Dense index of an ASN (ascending ASN order), undefined when the ASN has no link. */
  indexOf(asn: number): number | undefined {
    return this.indexByAsn.get(asn);
  }

  private listOf(lists: number[][], asn: number): readonly number[] {
    const index = this.indexByAsn.get(asn);
    return index === undefined ? NONE : (lists[index] as number[]);
  }

  customers(asn: number): readonly number[] {
    return this.listOf(this.customerLists, asn);
  }

  providers(asn: number): readonly number[] {
    return this.listOf(this.providerLists, asn);
  }

  peers(asn: number): readonly number[] {
    return this.listOf(this.peerLists, asn);
  }

  /** Neighbours joined by an explicit sibling link (code 1), not by shared ownership. */
  siblings(asn: number): readonly number[] {
    return this.listOf(this.siblingLists, asn);
  }

  /** Distinct neighbours of any relationship, ascending. */
  neighbours(asn: number): number[] {
    return sortedDistinct([
      ...this.customers(asn),
      ...this.providers(asn),
      ...this.peers(asn),
      ...this.siblings(asn),
    ]);
  }
}

/**
 * Recursive customer cones: an AS's cone is the AS itself plus every AS reachable along provider-to-customer links.
 * Each cone is a depth-first walk over the customer CSR arrays with one reusable visited-stamp array (no Sets), so it is
 * cycle-safe (a stamped AS is never entered twice) and costs time proportional to the links inside each cone, with
 * memory proportional to the output. Returns sorted member ASNs per AS.
 */
export function computeCustomerCones(graph: AsGraph): Map<number, Uint32Array> {
  const size = graph.size;
  const offsets = graph.customerIndexOffsets;
  const customerData = graph.customerIndexData;
  const asnByIndex = graph.asnByIndex;
  const stamp = new Uint32Array(size);
  const stack = new Uint32Array(size);
  const members = new Uint32Array(size);
  const cones = new Map<number, Uint32Array>();
  for (let root = 0; root < size; root += 1) {
    const currentStamp = root + 1;
    let stackSize = 0;
    let memberCount = 0;
    stamp[root] = currentStamp;
    stack[stackSize++] = root;
    while (stackSize > 0) {
      const node = stack[--stackSize] as number;
      members[memberCount++] = node;
      const end = offsets[node + 1] as number;
      for (let edge = offsets[node] as number; edge < end; edge += 1) {
        const customer = customerData[edge] as number;
        if (stamp[customer] !== currentStamp) {
          stamp[customer] = currentStamp;
          stack[stackSize++] = customer;
        }
      }
    }
    // Dense indices follow ascending ASN order, so sorting indices sorts ASNs.
    const cone = members.slice(0, memberCount).sort();
    for (let position = 0; position < memberCount; position += 1)
      cone[position] = asnByIndex[cone[position] as number] as number;
    cones.set(asnByIndex[root] as number, cone);
  }
  return cones;
}

/** Relationship counts of one AS; see computeDegrees for the definitions. */
export type AsnDegreeCounts = AsnDegree;

/**
 * Degrees of every AS from relationships alone. provider/customer/peer count neighbours by relationship; sibling counts
 * neighbours owned by the same organization (or joined by a sibling link); total counts distinct neighbours (CAIDA's
 * "global" degree). Transit degree, which CAIDA measures from paths, is approximated (see docs/decisions.md): an AS with
 * at least one customer can appear in the middle of a valley-free path next to any neighbour, so its transit degree is
 * customers + providers + peers (+ siblings), i.e. all its distinct neighbours; an AS without customers has 0.
 */
export function computeDegrees(
  graph: AsGraph,
  orgOf: (asn: number) => string | undefined,
): Map<number, AsnDegreeCounts> {
  const degrees = new Map<number, AsnDegreeCounts>();
  for (const asn of graph.asnByIndex) {
    const org = orgOf(asn);
    const neighbours = graph.neighbours(asn);
    const explicitSiblings = graph.siblings(asn);
    let sibling = 0;
    for (const neighbour of neighbours) {
      if ((org !== undefined && orgOf(neighbour) === org) || explicitSiblings.includes(neighbour))
        sibling += 1;
    }
    const customer = graph.customers(asn).length;
    degrees.set(asn, {
      provider: graph.providers(asn).length,
      peer: graph.peers(asn).length,
      customer,
      sibling,
      transit: customer > 0 ? neighbours.length : 0,
      total: neighbours.length,
    });
  }
  return degrees;
}

/** Degrees of an organization: ASN-level counts towards ASNs outside it, and counts of distinct neighbouring orgs. */
export interface OrgDegreeCounts {
  asnDegree: AsnDegreeCounts;
  orgDegree: { total: number; transit: number };
}

/**
 * Organization degrees. An org's neighbours are the ASNs adjacent to any of its members that belong to other orgs; its
 * ASN-level provider/customer/peer/sibling counts are distinct neighbour ASNs in that relationship with some member,
 * total = distinct neighbour ASNs, transit as for ASNs (all neighbours when the org has a customer, else 0). The org
 * degree counts distinct neighbouring orgs (an ASN without an org counts as an org of its own), and its transit part
 * follows the same rule. Only ASNs that appear in the graph and have an org contribute.
 */
export function computeOrgDegrees(
  graph: AsGraph,
  orgOf: (asn: number) => string | undefined,
): Map<string, OrgDegreeCounts> {
  const membersByOrg = new Map<string, number[]>();
  for (const asn of graph.asnByIndex) {
    const org = orgOf(asn);
    if (org === undefined) continue;
    const members = membersByOrg.get(org);
    if (members) members.push(asn);
    else membersByOrg.set(org, [asn]);
  }
  const result = new Map<string, OrgDegreeCounts>();
  for (const [org, members] of membersByOrg) {
    const outside = (asn: number): boolean => orgOf(asn) !== org;
    const providers = new Set<number>();
    const customers = new Set<number>();
    const peers = new Set<number>();
    const siblings = new Set<number>();
    for (const member of members) {
      for (const asn of graph.providers(member)) if (outside(asn)) providers.add(asn);
      for (const asn of graph.customers(member)) if (outside(asn)) customers.add(asn);
      for (const asn of graph.peers(member)) if (outside(asn)) peers.add(asn);
      for (const asn of graph.siblings(member)) if (outside(asn)) siblings.add(asn);
    }
    const neighbours = new Set<number>([...providers, ...customers, ...peers, ...siblings]);
    const neighbourOrgs = new Set<string>();
    for (const asn of neighbours) neighbourOrgs.add(orgOf(asn) ?? `\u0000asn:${asn}`);
    const hasCustomer = customers.size > 0;
    result.set(org, {
      asnDegree: {
        provider: providers.size,
        peer: peers.size,
        customer: customers.size,
        sibling: siblings.size,
        transit: hasCustomer ? neighbours.size : 0,
        total: neighbours.size,
      },
      orgDegree: { total: neighbourOrgs.size, transit: hasCustomer ? neighbourOrgs.size : 0 },
    });
  }
  return result;
}

/** An organization's links to ASNs outside it, as its `asnLinks` and `neighbors` count them. */
export interface OrgLinkCounts {
  /** Links whose near end (asn0) is a member and whose far end (asn1) is not. */
  links: number;
  /** The distinct far ends of those links. */
  neighbours: number;
}

/**
 * Counts each organization's links to ASNs of other organizations or of none, and their distinct far ends, from links
 * listed once per direction (as `asn_links` holds them). Loads keep both on the organization's row, so the API does
 * not look up the organization of every far end of its members' links (docs/performance.md, fifty-sixth round).
 */
export function countOrgLinks(
  links: Iterable<{ asn0: number; asn1: number }>,
  orgOf: (asn: number) => string | null | undefined,
): Map<string, OrgLinkCounts> {
  const farEndsOf = new Map<string, { links: number; farEnds: Set<number> }>();
  for (const { asn0, asn1 } of links) {
    const org = orgOf(asn0);
    if (org === null || org === undefined || orgOf(asn1) === org) continue;
    const tally = farEndsOf.get(org);
    if (tally) {
      tally.links += 1;
      tally.farEnds.add(asn1);
    } else farEndsOf.set(org, { links: 1, farEnds: new Set([asn1]) });
  }
  return new Map(
    [...farEndsOf].map(([org, tally]) => [org, { links: tally.links, neighbours: tally.farEnds.size }]),
  );
}

/**
 * Cone of each organization: the union of its members' cones (sorted ASNs). Members without a cone contribute
 * themselves, so an org's cone always contains its members.
 */
export function computeOrgCones(
  cones: ReadonlyMap<number, ArrayLike<number>>,
  membersByOrg: ReadonlyMap<string, readonly number[]>,
): Map<string, Uint32Array> {
  const result = new Map<string, Uint32Array>();
  for (const [org, members] of membersByOrg) {
    let total = 0;
    for (const member of members) total += cones.get(member)?.length ?? 1;
    const merged = new Uint32Array(total);
    let position = 0;
    for (const member of members) {
      const cone = cones.get(member);
      if (cone === undefined) merged[position++] = member;
      else for (let index = 0; index < cone.length; index += 1) merged[position++] = cone[index] as number;
    }
    merged.sort();
    let kept = 0;
    for (let index = 0; index < merged.length; index += 1) {
      if (kept === 0 || merged[kept - 1] !== merged[index]) merged[kept++] = merged[index] as number;
    }
    result.set(org, merged.slice(0, kept));
  }
  return result;
}
