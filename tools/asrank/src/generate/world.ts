// The synthetic Internet the generator evolves month by month: organizations, ASes in a provider
// hierarchy under a tier-1 clique, peering, address blocks and month-to-month churn.
//
// Structure (why it is realistic enough for AS Rank):
// - every AS gets a hierarchy `order`; an AS only ever buys transit from ASes of lower order, so the
//   provider-to-customer graph is acyclic by construction, and every non-clique AS has at least one provider,
//   so every AS has a provider path up to the clique;
// - providers are chosen by preferential attachment (weight grows with customer count), which gives the
//   heavy-tailed customer counts of the real graph;
// - the clique is a full peering mesh; other peering is concentrated on large and mid transit ASes;
// - most ASes are stubs with 1-3 providers; organizations own 1-5 ASNs; ~3% of registered ASNs are not routed.
import {
  CITIES,
  HUB_CITY_BY_CONTINENT,
  REGISTRIES,
  citiesByCountry,
  type City,
  type Continent,
  type Registry,
  type RegistryInfo,
} from './geography';
import { makeAsName, makeOpaqueId, makeOrgId, makeOrgNames } from './names';
import { Random, WeightedPicker } from './random';

export type Tier = 'clique' | 'large' | 'mid' | 'stub';

export interface Organization {
  /** Position in World.orgs. */
  index: number;
  orgId: string;
  orgName: string;
  registry: Registry;
  country: string;
  /** YYYYMMDD, or '' (RIPE leaves it empty in the real files). */
  changed: string;
  opaqueId: string;
  handle: string;
  /** Indices into World.ases, in the order they joined. */
  members: number[];
}

export interface V4Block {
  /** First /24 of the block (address >>> 8). */
  firstSlash24: number;
  /** log2 of the number of /24s in the block. */
  bits: number;
  /** Number of prefixes announced out of the block (the aggregate plus more-specifics). */
  count: number;
  /** Seed of the prefixes' own generator, so an unchanged AS announces the same prefixes every month. */
  seed: number;
}

export interface V6Block {
  /** First 32 bits of the AS's /32 as two hextets packed in one number (h1 * 65536 + h2). */
  slash32: number;
  count: number;
  seed: number;
}

export interface AutonomousSystem {
  index: number;
  asn: number;
  asName: string;
  orgIndex: number;
  alive: boolean;
  /** Appears in the routing data; unrouted ASNs are only in the organizations file. */
  routed: boolean;
  tier: Tier;
  order: number;
  ixp: boolean;
  /** Indices of provider ASes (all of lower order). */
  providers: number[];
  customerCount: number;
  /** Heavy-tailed appeal as a provider (fitness model): a few transit networks grow much larger than the rest. */
  fitness: number;
  home: City;
  changed: string;
  v4: V4Block | null;
  v6: V6Block | null;
}

export interface WorldOptions {
  seed: number;
  months: number;
  asns: number;
  links: number;
  prefixes: number;
}

export const MAX_ORG_SIZE = 5;
/** Share of all prefixes that are IPv6 (written to the separate rv6 file). */
export const IPV6_PREFIX_SHARE = 0.08;
/** Largest ASN index the link keys can hold (pairKey packs two indices into one safe integer). */
const INDEX_LIMIT = 1 << 21;

// Address space a synthetic block must never fall into (RFC 6890 special-purpose ranges), in /24 units.
const RESERVED_SLASH24_RANGES: readonly [number, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
].map(([network, length]) => {
  const [a, b, c] = String(network).split('.').map(Number) as [number, number, number];
  const first = a * 65536 + b * 256 + c;
  return [first, first + 2 ** (24 - Number(length))] as [number, number];
});
/** 224.0.0.0: multicast and class E start here. */
const UNICAST_END_SLASH24 = 224 * 65536;

function pairKey(first: number, second: number): number {
  return first < second ? first * INDEX_LIMIT + second : second * INDEX_LIMIT + first;
}

function formatYmd(year: number, month: number, day: number): string {
  return `${year}${String(month).padStart(2, '0')}${String(day).padStart(2, '0')}`;
}

export class World {
  readonly ases: AutonomousSystem[] = [];
  readonly orgs: Organization[] = [];
  /** Peering links (pairKey of the two AS indices). The clique mesh is included. */
  readonly peerings = new Set<number>();
  /** Every linked pair, p2c and p2p, to reject duplicate links. */
  private readonly linkedPairs = new Set<number>();
  private readonly usedAsns = new Set<number>();
  /** Transit ASes weighted by attractiveness as a provider (preferential attachment). */
  private readonly providerPicker: WeightedPicker;
  /** Non-clique ASes weighted by how much they peer. */
  private readonly peeringPicker: WeightedPicker;
  private readonly cities = citiesByCountry();
  private readonly hubs = new Map<Continent, City>();
  private nextOrder = 0;
  private nextV4Slash24 = 1 * 65536;
  private readonly nextV6 = new Map<Registry, number>();
  private orgSerial = 0;
  cliqueIndices: number[] = [];
  private readonly random: Random;

  constructor(
    readonly options: WorldOptions,
    private readonly firstMonth: string,
  ) {
    this.random = new Random(options.seed);
    // Room for the registered ASNs of the first month plus every month's births.
    const capacity =
      Math.ceil(options.asns * 1.1) + options.months * (Math.ceil(options.asns * 0.02) + 1) + 64;
    if (capacity >= INDEX_LIMIT) throw new Error(`too many ASes for the generator (limit ${INDEX_LIMIT})`);
    this.providerPicker = new WeightedPicker(capacity);
    this.peeringPicker = new WeightedPicker(capacity);
    for (const [continent, name] of Object.entries(HUB_CITY_BY_CONTINENT)) {
      this.hubs.set(continent as Continent, CITIES.find((city) => city.city === name) as City);
    }
    for (const registry of REGISTRIES) this.nextV6.set(registry.name, 0x100 + this.random.int(0, 0xff));
    this.build();
  }

  // ---------------------------------------------------------------------------------------------
  // Initial month

  private build(): void {
    const { asns: routedTarget } = this.options;
    // Organizations and their ASNs; a registered ASN is unrouted with 3% probability.
    let routed = 0;
    while (routed < routedTarget) {
      const size = 1 + this.random.weightedIndex([68, 16, 8, 5, 3]);
      const org = this.createOrg();
      for (let member = 0; member < size && routed < routedTarget; member++) {
        const isRouted = !this.random.chance(0.03);
        this.createAs(org, isRouted, 0.62);
        if (isRouted) routed++;
      }
    }

    // Tiers: older (16-bit) ASNs tend to be the transit providers, as in the real Internet.
    const routedIndices = this.ases.filter((as) => as.routed).map((as) => as.index);
    const sortKey = new Map(
      routedIndices.map((index) => [
        index,
        this.random.float() + ((this.ases[index] as AutonomousSystem).asn > 65535 ? 0.8 : 0),
      ]),
    );
    routedIndices.sort((a, b) => (sortKey.get(a) as number) - (sortKey.get(b) as number) || a - b);
    const n = routedIndices.length;
    const cliqueSize = Math.max(3, Math.min(19, Math.round(2 * Math.log10(n) + 4)));
    const largeCount = Math.max(1, Math.round(n * 0.004));
    const midCount = Math.max(2, Math.round(n * 0.1));
    routedIndices.forEach((index, position) => {
      const as = this.ases[index] as AutonomousSystem;
      as.tier =
        position < cliqueSize
          ? 'clique'
          : position < cliqueSize + largeCount
            ? 'large'
            : position < cliqueSize + largeCount + midCount
              ? 'mid'
              : 'stub';
    });
    this.cliqueIndices = routedIndices.slice(0, cliqueSize);

    // Route-server ASes of IXPs (listed in the as-rel header): a few stubs that peer widely.
    const stubs = routedIndices.filter((index) => (this.ases[index] as AutonomousSystem).tier === 'stub');
    const ixpCount = Math.min(stubs.length, Math.max(1, Math.round(n / 2000)));
    for (let picked = 0; picked < ixpCount; picked++)
      (this.ases[this.random.pick(stubs)] as AutonomousSystem).ixp = true;

    // Hierarchy: process in order, each AS picking providers among those already placed.
    for (const index of routedIndices) this.attach(index);
    for (let first = 0; first < cliqueSize; first++) {
      for (let second = first + 1; second < cliqueSize; second++)
        this.addPeering(this.cliqueIndices[first] as number, this.cliqueIndices[second] as number);
    }
    this.fillPeerings(this.options.links);
    this.assignPrefixCounts(routedIndices);
  }

  private createOrg(): Organization {
    const registry = REGISTRIES[
      this.random.weightedIndex(REGISTRIES.map((info) => info.weight))
    ] as RegistryInfo;
    const names = makeOrgNames(this.random, registry.name);
    const org: Organization = {
      index: this.orgs.length,
      orgId: '',
      orgName: names.orgName,
      registry: registry.name,
      country: this.random.pick(registry.countries),
      changed: registry.name === 'RIPE' ? '' : this.randomChangedDate(),
      opaqueId: makeOpaqueId(this.random, registry.name),
      handle: names.handle,
      members: [],
    };
    this.orgs.push(org);
    return org;
  }

  private randomChangedDate(): string {
    const lastYear = Number(this.firstMonth.slice(0, 4)) - 1;
    return formatYmd(this.random.int(1995, lastYear), this.random.int(1, 12), this.random.int(1, 28));
  }

  private createAs(org: Organization, routed: boolean, share16Bit: number): AutonomousSystem {
    const registry = REGISTRIES.find((info) => info.name === org.registry) as RegistryInfo;
    const asn = this.allocateAsn(registry, share16Bit);
    if (org.members.length === 0) org.orgId = makeOrgId(org.registry, org.handle, ++this.orgSerial, asn);
    const countryCities = this.cities.get(org.country) as City[];
    const as: AutonomousSystem = {
      index: this.ases.length,
      asn,
      asName: makeAsName(org.registry, org.handle, asn, org.members.length),
      orgIndex: org.index,
      alive: true,
      routed,
      tier: 'stub',
      order: -1,
      ixp: false,
      providers: [],
      customerCount: 0,
      fitness: Math.min(this.random.pareto(1.5), 20),
      home: this.random.chance(0.5) ? (countryCities[0] as City) : this.random.pick(countryCities),
      changed: org.changed === '' ? '' : this.randomChangedDate(),
      v4: null,
      v6: null,
    };
    if (as.index >= this.providerPicker.capacity)
      throw new Error(`too many ASes for the generator (limit ${this.providerPicker.capacity})`);
    this.ases.push(as);
    org.members.push(as.index);
    return as;
  }

  /** A free ASN: 16-bit (excluding 0, 23456 and the private/documentation range) or from the registry's 32-bit block. */
  private allocateAsn(registry: RegistryInfo, share16Bit: number): number {
    const use16Bit = this.random.chance(share16Bit);
    for (let attempt = 0; attempt < 64; attempt++) {
      const asn = use16Bit
        ? this.random.int(1, 64495)
        : this.random.int(registry.asn32[0], registry.asn32[1]);
      if (asn !== 23456 && !this.usedAsns.has(asn)) {
        this.usedAsns.add(asn);
        return asn;
      }
    }
    // The random draw keeps colliding (a nearly full block): take the next free number after the block.
    let asn = registry.asn32[0];
    while (this.usedAsns.has(asn)) asn++;
    this.usedAsns.add(asn);
    return asn;
  }

  /** Attractiveness of a non-clique transit AS as a provider (clique members are drawn separately). */
  private providerWeight(as: AutonomousSystem): number {
    if (!as.alive) return 0;
    const base = as.tier === 'large' ? 30 : as.tier === 'mid' ? 3 : 0;
    return base === 0 ? 0 : as.fitness * (base + as.customerCount);
  }

  /**
   * One provider candidate: a clique member with the given probability (tier-1s mostly sell to other transit
   * networks), otherwise a large or mid transit AS by preferential attachment.
   */
  private drawProvider(cliqueShare: number): number {
    if (this.random.chance(cliqueShare)) return this.random.pick(this.cliqueIndices);
    const provider = this.providerPicker.draw(this.random);
    return provider >= 0 ? provider : this.random.pick(this.cliqueIndices);
  }

  private peeringWeight(as: AutonomousSystem): number {
    if (as.tier === 'clique') return 0;
    if (as.tier === 'large') return 40;
    if (as.tier === 'mid') return 6;
    if (as.ixp) return 20;
    // About a third of the stubs peer at an IXP; the rest only buy transit.
    return as.index % 3 === 0 ? 1 : 0;
  }

  /** Places an AS in the hierarchy: gives it providers of lower order and makes it available as a provider. */
  private attach(index: number): void {
    const as = this.ases[index] as AutonomousSystem;
    as.order = this.nextOrder++;
    if (as.tier === 'large') {
      const count = Math.min(this.cliqueIndices.length, 1 + this.random.weightedIndex([30, 40, 30]));
      const candidates = this.random.shuffle([...this.cliqueIndices]);
      for (const provider of candidates.slice(0, count)) this.addProvider(index, provider);
    } else if (as.tier !== 'clique') {
      const count = 1 + this.random.weightedIndex(as.tier === 'mid' ? [35, 35, 20, 10] : [60, 28, 12]);
      const cliqueShare = as.tier === 'mid' ? 0.15 : 0.03;
      for (let attempt = 0; attempt < count * 4 && as.providers.length < count; attempt++) {
        const provider = this.drawProvider(cliqueShare);
        if (provider !== index && !this.linkedPairs.has(pairKey(index, provider)))
          this.addProvider(index, provider);
      }
      if (as.providers.length === 0) this.addProvider(index, this.random.pick(this.cliqueIndices));
    }
    this.providerPicker.set(index, this.providerWeight(as));
    this.peeringPicker.set(index, this.peeringWeight(as));
  }

  private addProvider(customer: number, provider: number): void {
    const customerAs = this.ases[customer] as AutonomousSystem;
    const providerAs = this.ases[provider] as AutonomousSystem;
    customerAs.providers.push(provider);
    providerAs.customerCount++;
    this.linkedPairs.add(pairKey(customer, provider));
    this.providerPicker.set(provider, this.providerWeight(providerAs));
  }

  private removeProvider(customer: number, provider: number): void {
    const customerAs = this.ases[customer] as AutonomousSystem;
    const providerAs = this.ases[provider] as AutonomousSystem;
    customerAs.providers = customerAs.providers.filter((existing) => existing !== provider);
    providerAs.customerCount--;
    this.linkedPairs.delete(pairKey(customer, provider));
    this.providerPicker.set(provider, this.providerWeight(providerAs));
  }

  private addPeering(first: number, second: number): void {
    const key = pairKey(first, second);
    this.peerings.add(key);
    this.linkedPairs.add(key);
  }

  private removePeering(key: number): void {
    this.peerings.delete(key);
    this.linkedPairs.delete(key);
  }

  /** Adds random peering links until the total link count reaches the target (or the graph is saturated). */
  private fillPeerings(targetLinks: number): void {
    let missing = targetLinks - this.linkCount();
    let attempts = Math.max(missing, 0) * 20 + 100;
    while (missing > 0 && attempts-- > 0) {
      const first = this.peeringPicker.draw(this.random);
      const second = this.peeringPicker.draw(this.random);
      if (first < 0 || second < 0 || first === second || this.linkedPairs.has(pairKey(first, second)))
        continue;
      this.addPeering(first, second);
      missing--;
    }
  }

  linkCount(): number {
    return this.linkedPairs.size;
  }

  /** Spreads the prefix budget over the routed ASes with heavy-tailed counts; every AS originates at least one. */
  private assignPrefixCounts(routedIndices: readonly number[]): void {
    const v6Total = Math.round(this.options.prefixes * IPV6_PREFIX_SHARE);
    const v4Total = this.options.prefixes - v6Total;
    const v4Counts = this.spread(routedIndices, v4Total);
    routedIndices.forEach((index, position) =>
      this.giveV4Block(this.ases[index] as AutonomousSystem, v4Counts[position] as number),
    );
    const v6Holders = routedIndices.filter((index) => {
      const as = this.ases[index] as AutonomousSystem;
      return as.tier !== 'stub' || this.random.chance(0.3);
    });
    const v6Counts = this.spread(v6Holders, v6Total);
    v6Holders.forEach((index, position) => {
      const count = v6Counts[position] as number;
      if (count > 0) this.giveV6Block(this.ases[index] as AutonomousSystem, count);
    });
  }

  /** Splits `total` over `indices`: one each (while the budget lasts), the rest Pareto-weighted (transit weighs more). */
  private spread(indices: readonly number[], total: number): number[] {
    const counts = indices.map(() => 0);
    if (indices.length === 0 || total <= 0) return counts;
    const base = Math.min(1, Math.floor(total / indices.length));
    let remaining = total;
    if (base === 1) {
      counts.fill(1);
      remaining -= indices.length;
    }
    const weights = indices.map((index) => {
      const tier = (this.ases[index] as AutonomousSystem).tier;
      const boost = tier === 'clique' ? 8 : tier === 'large' ? 6 : tier === 'mid' ? 2 : 1;
      // Capped so no single AS needs more than a /10 of address space at full scale.
      return Math.min(this.random.pareto(1.3), 400) * boost;
    });
    const weightTotal = weights.reduce((sum, weight) => sum + weight, 0);
    const share = remaining;
    indices.forEach((_, position) => {
      const extra = Math.floor((share * (weights[position] as number)) / weightTotal);
      counts[position] = (counts[position] as number) + extra;
      remaining -= extra;
    });
    while (remaining > 0) {
      const position = this.random.int(0, indices.length - 1);
      counts[position] = (counts[position] as number) + 1;
      remaining--;
    }
    return counts;
  }

  private giveV4Block(as: AutonomousSystem, count: number): void {
    if (count <= 0) return;
    let bits = Math.ceil(Math.log2(count));
    if (count <= 256) bits += this.random.int(0, 2);
    const size = 2 ** bits;
    let first = Math.ceil(this.nextV4Slash24 / size) * size;
    for (;;) {
      const clash = RESERVED_SLASH24_RANGES.find(([start, end]) => first < end && first + size > start);
      if (!clash) break;
      first = Math.ceil(clash[1] / size) * size;
    }
    if (first + size > UNICAST_END_SLASH24) {
      throw new Error('the generator ran out of IPv4 unicast space: ask for fewer prefixes per ASN');
    }
    this.nextV4Slash24 = first + size;
    as.v4 = { firstSlash24: first, bits, count, seed: this.random.childSeed() };
  }

  private giveV6Block(as: AutonomousSystem, count: number): void {
    const registry = REGISTRIES.find(
      (info) => info.name === (this.orgs[as.orgIndex] as Organization).registry,
    ) as RegistryInfo;
    const next = (this.nextV6.get(registry.name) as number) + this.random.int(1, 4);
    this.nextV6.set(registry.name, next);
    as.v6 = {
      slash32: registry.ipv6Prefix * 65536 + next,
      count: Math.min(count, 4096),
      seed: this.random.childSeed(),
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Month-to-month churn

  /**
   * Moves the world one month on: about 1% of stubs disappear and 1.5% of new ones appear (mostly 32-bit ASNs),
   * about 1.5% of stubs change a provider, about 3% of peering links are replaced, and about 2% of ASes change how
   * many prefixes they announce.
   */
  advanceMonth(): void {
    const live = this.ases.filter((as) => as.alive && as.routed);
    const stubs = live.filter((as) => as.tier === 'stub' && !as.ixp);

    this.retire(stubs.filter(() => this.random.chance(0.01)));

    const births = Math.max(1, Math.round(live.length * 0.015));
    for (let born = 0; born < births; born++) {
      const joinExisting = this.random.chance(0.2);
      const sibling = joinExisting ? this.random.pick(live) : null;
      const siblingOrg = sibling ? (this.orgs[sibling.orgIndex] as Organization) : null;
      // Organizations own at most five ASNs.
      const organization =
        siblingOrg && siblingOrg.members.length < MAX_ORG_SIZE ? siblingOrg : this.createOrg();
      const as = this.createAs(organization, true, 0.15);
      this.attach(as.index);
      const v4Count = 1 + Math.min(Math.floor(this.random.pareto(1.5)) - 1, 64);
      this.giveV4Block(as, v4Count);
      if (this.random.chance(0.3)) this.giveV6Block(as, 1 + this.random.int(0, 2));
    }

    for (const as of stubs) {
      if (!as.alive || !this.random.chance(0.015)) continue;
      const provider = this.drawProvider(0.03);
      if (provider === as.index || this.linkedPairs.has(pairKey(as.index, provider))) continue;
      if (as.providers.length > 1 || this.random.chance(0.5))
        this.removeProvider(as.index, this.random.pick(as.providers));
      this.addProvider(as.index, provider);
    }

    const cliqueKeys = new Set<number>();
    for (const first of this.cliqueIndices)
      for (const second of this.cliqueIndices) if (first < second) cliqueKeys.add(pairKey(first, second));
    const targetLinks = this.linkCount();
    for (const key of [...this.peerings])
      if (!cliqueKeys.has(key) && this.random.chance(0.03)) this.removePeering(key);
    // Slow growth, as in the real graph.
    this.fillPeerings(Math.round(targetLinks * 1.004));

    for (const as of this.ases) {
      if (!as.alive || !as.v4 || !this.random.chance(0.02)) continue;
      const capacity = 2 ** as.v4.bits;
      as.v4.count = Math.max(1, Math.min(capacity, as.v4.count + this.random.int(-2, 3)));
    }
  }

  /** Removes stub ASes with all their links (one pass over the peerings for the whole batch). */
  private retire(retired: readonly AutonomousSystem[]): void {
    const retiredIndices = new Set<number>();
    for (const as of retired) {
      as.alive = false;
      retiredIndices.add(as.index);
      for (const provider of [...as.providers]) this.removeProvider(as.index, provider);
      this.providerPicker.set(as.index, 0);
      this.peeringPicker.set(as.index, 0);
    }
    for (const key of [...this.peerings]) {
      if (retiredIndices.has(Math.floor(key / INDEX_LIMIT)) || retiredIndices.has(key % INDEX_LIMIT))
        this.removePeering(key);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Views used by the writers

  liveRouted(): AutonomousSystem[] {
    return this.ases.filter((as) => as.alive && as.routed);
  }

  /** Every link once: `code` -1 with `first` the provider, or 0 for peers. */
  *links(): Generator<{ first: AutonomousSystem; second: AutonomousSystem; code: -1 | 0 }> {
    for (const as of this.ases) {
      if (!as.alive) continue;
      for (const provider of as.providers)
        yield { first: this.ases[provider] as AutonomousSystem, second: as, code: -1 };
    }
    for (const key of this.peerings) {
      yield {
        first: this.ases[Math.floor(key / INDEX_LIMIT)] as AutonomousSystem,
        second: this.ases[key % INDEX_LIMIT] as AutonomousSystem,
        code: 0,
      };
    }
  }

  /** The big interconnection city of a continent, where long-haul links are often observed. */
  hubFor(continent: Continent): City {
    return this.hubs.get(continent) as City;
  }
}
