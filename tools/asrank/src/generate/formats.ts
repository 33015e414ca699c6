// Writers for one month of CAIDA-format files, from the World's current state. Layouts:
//
// YYYYMMDD.as-rel2.txt (CAIDA serial-2): comment header with `# source:` lines, `# input clique:`,
//   `# inferred clique: a b c` and `# IXP ASes: ...`; then one row per link, sorted by (asn0, asn1):
//   `provider|customer|-1|bgp` or `peer|peer|0|bgp` (lower ASN first for peers).
// YYYYMMDD.ppdc-ases.txt (CAIDA customer cones): `#` comment header, then one line per routed AS, sorted by
//   ASN: `<cone_as> <member> <member> ...` = the AS itself first, then every OTHER AS in its customer cone
//   (the recursive closure of its p2c links) in ascending order. A stub's line is just its own ASN.
// YYYYMMDD.as-org2info.txt (CAIDA AS Organizations, 6-field layout): `# name:`/`# date:` header, the org table
//   `# format:org_id|changed|org_name|country|source` FIRST (sorted by org_id), then the AS table
//   `# format:aut|changed|aut_name|org_id|opaque_id|source` (sorted by ASN). RIPE rows have an empty
//   `changed`, as in the real files. About 3% of the listed ASNs are registered but not routed.
// routeviews-rv2-YYYYMMDD-1200.pfx2as / routeviews-rv6-YYYYMMDD-1200.pfx2as (CAIDA prefix2as): no header,
//   `network<TAB>length<TAB>origin`, sorted by address; MOAS origins joined with `_`, AS sets with `,`.
// YYYYMMDD.as-rel-geo.txt (modelled on CAIDA's as-rel-geo, simplified to location ids only):
//   `# format:asn0|asn1|loc_id,loc_id,...` with asn0 < asn1, one row per located link (about 85% of the
//   links), sorted by (asn0, asn1); every loc_id is a row of the locations file of the same month.
// YYYYMMDD.locations.txt: `# format:loc_id|continent|country|region|city|latitude|longitude|population`,
//   loc_id `City-Region-CC` as in AS Rank (`Aachen-NW-DE`), continent spelled out (`Europe`).
import { CITIES, locationId, type City } from './geography';
import { writeLines } from './output';
import { Random } from './random';
import type { AutonomousSystem, Organization, World } from './world';

export interface MonthContext {
  world: World;
  /** YYYYMMDD */
  compactDate: string;
  seed: number;
  gzip: boolean;
}

const SYNTHETIC_NOTE = 'synthetic data from `asrank generate` (not real CAIDA data)';
/** Packs an ordered ASN pair and a tie-breaker into one float so a Float64Array sorts rows natively. */
const ASN_FACTOR = 2 ** 21;

function checkAsnPackable(asn: number): void {
  if (asn >= ASN_FACTOR)
    throw new Error(`generated ASN ${asn} is above the generator's limit ${ASN_FACTOR - 1}`);
}

export async function writeAsRel2(path: string, context: MonthContext): Promise<void> {
  const { world, compactDate } = context;
  const clique = world.cliqueIndices
    .map((index) => (world.ases[index] as AutonomousSystem).asn)
    .sort((a, b) => a - b);
  const ixps = world
    .liveRouted()
    .filter((as) => as.ixp)
    .map((as) => as.asn)
    .sort((a, b) => a - b);
  const rows: number[] = [];
  for (const link of world.links()) {
    checkAsnPackable(link.first.asn);
    checkAsnPackable(link.second.asn);
    const [first, second] =
      link.code === 0 && link.first.asn > link.second.asn
        ? [link.second.asn, link.first.asn]
        : [link.first.asn, link.second.asn];
    rows.push((first * ASN_FACTOR + second) * 2 + (link.code === -1 ? 0 : 1));
  }
  const sorted = Float64Array.from(rows).sort();
  await writeLines(path, context.gzip, async (out) => {
    await out.line(`# ${SYNTHETIC_NOTE}: seed ${context.seed}, month ${compactDate}`);
    await out.line(`# source:topology|BGP|${compactDate}|routeviews|route-views2`);
    await out.line(`# source:topology|BGP|${compactDate}|ripe|rrc00`);
    await out.line(`# input clique: ${clique.join(' ')}`);
    await out.line(`# inferred clique: ${clique.join(' ')}`);
    await out.line(`# IXP ASes: ${ixps.join(' ')}`);
    for (const key of sorted) {
      const pair = Math.floor(key / 2);
      const code = key % 2 === 0 ? '-1' : '0';
      await out.line(`${Math.floor(pair / ASN_FACTOR)}|${pair % ASN_FACTOR}|${code}|bgp`);
    }
  });
}

export async function writePpdcAses(path: string, context: MonthContext): Promise<void> {
  const routed = context.world.liveRouted().sort((a, b) => a.asn - b.asn);
  const denseId = new Map<number, number>();
  routed.forEach((as, position) => denseId.set(as.index, position));
  // Customers in compressed-sparse-row form: offsets[i]..offsets[i+1] index into `customers`.
  const offsets = new Int32Array(routed.length + 1);
  for (const as of routed) {
    for (const provider of as.providers) {
      const slot = (denseId.get(provider) as number) + 1;
      offsets[slot] = (offsets[slot] as number) + 1;
    }
  }
  for (let position = 0; position < routed.length; position++)
    offsets[position + 1] = (offsets[position + 1] as number) + (offsets[position] as number);
  const customers = new Int32Array(offsets[routed.length] as number);
  const fill = offsets.slice(0, routed.length);
  routed.forEach((as, position) => {
    for (const provider of as.providers) {
      const providerId = denseId.get(provider) as number;
      customers[fill[providerId] as number] = position;
      fill[providerId] = (fill[providerId] as number) + 1;
    }
  });
  const visitedBy = new Int32Array(routed.length).fill(-1);
  const stack = new Int32Array(routed.length);
  const members = new Uint32Array(routed.length);
  await writeLines(path, context.gzip, async (out) => {
    await out.line(`# ${SYNTHETIC_NOTE}: seed ${context.seed}, month ${context.compactDate}`);
    await out.line(
      '# format:<cone_as> <member_as> ... (the AS first, then every other AS in its customer cone, ascending)',
    );
    for (let root = 0; root < routed.length; root++) {
      // Depth-first walk down the customer links; `visitedBy` stamps make each walk O(cone edges).
      let count = 0;
      let top = 0;
      stack[top++] = root;
      visitedBy[root] = root;
      while (top > 0) {
        const current = stack[--top] as number;
        if (current !== root) members[count++] = (routed[current] as AutonomousSystem).asn;
        for (let edge = offsets[current] as number; edge < (offsets[current + 1] as number); edge++) {
          const customer = customers[edge] as number;
          if (visitedBy[customer] !== root) {
            visitedBy[customer] = root;
            stack[top++] = customer;
          }
        }
      }
      const asn = (routed[root] as AutonomousSystem).asn;
      await out.line(count === 0 ? String(asn) : `${asn} ${members.subarray(0, count).sort().join(' ')}`);
    }
  });
}

export async function writeAsOrg(path: string, context: MonthContext): Promise<void> {
  const { world } = context;
  const listed = world.ases.filter((as) => as.alive).sort((a, b) => a.asn - b.asn);
  const orgIndices = [...new Set(listed.map((as) => as.orgIndex))];
  const orgs = orgIndices
    .map((index) => world.orgs[index] as Organization)
    .sort((a, b) => (a.orgId < b.orgId ? -1 : a.orgId > b.orgId ? 1 : 0));
  await writeLines(path, context.gzip, async (out) => {
    await out.line('# name: AS Org');
    await out.line(`# date: ${context.compactDate.slice(0, 6)}`);
    await out.line(`# ${SYNTHETIC_NOTE}: seed ${context.seed}`);
    await out.line('# format:org_id|changed|org_name|country|source');
    for (const org of orgs)
      await out.line(`${org.orgId}|${org.changed}|${org.orgName}|${org.country}|${org.registry}`);
    await out.line('# format:aut|changed|aut_name|org_id|opaque_id|source');
    for (const as of listed) {
      const org = world.orgs[as.orgIndex] as Organization;
      await out.line(`${as.asn}|${as.changed}|${as.asName}|${org.orgId}|${org.opaqueId}|${org.registry}`);
    }
  });
}

/** Second origin of a MOAS prefix: the AS's first provider, else a routed sibling; null when it has neither. */
function moasPartner(world: World, as: AutonomousSystem): number | null {
  const provider = as.providers[0];
  if (provider !== undefined) return (world.ases[provider] as AutonomousSystem).asn;
  const org = world.orgs[as.orgIndex] as Organization;
  for (const member of org.members) {
    const sibling = world.ases[member] as AutonomousSystem;
    if (sibling.index !== as.index && sibling.alive && sibling.routed) return sibling.asn;
  }
  return null;
}

/** Origin field: about 1% of prefixes are MOAS (`a_b`) and 0.05% carry an AS set (`a,b`). */
function originField(as: AutonomousSystem, partner: number | null, draw: number): string {
  if (partner === null || draw >= 0.0105) return String(as.asn);
  return draw < 0.01
    ? draw < 0.005
      ? `${as.asn}_${partner}`
      : `${partner}_${as.asn}`
    : `${as.asn},${partner}`;
}

/**
 * The prefixes an AS announces out of its block: the aggregate plus distinct more-specifics down to /24.
 * Drawn from the block's own seeded generator, so the same count gives the same prefixes every month and a
 * count one higher adds exactly one prefix.
 */
function v4Prefixes(as: AutonomousSystem): { network: number; length: number; draw: number }[] {
  const block = as.v4;
  if (!block) return [];
  const random = new Random(block.seed);
  const capacity = 2 * 2 ** block.bits - 1;
  const count = Math.min(block.count, capacity);
  const seen = new Set<number>([1]);
  const nodes: { network: number; length: number; draw: number }[] = [
    { network: block.firstSlash24 * 256, length: 24 - block.bits, draw: random.float() },
  ];
  while (nodes.length < count) {
    const depth = random.chance(0.6) ? block.bits : random.int(1, block.bits);
    const position = random.int(0, 2 ** depth - 1);
    const heapKey = 2 ** depth + position;
    if (seen.has(heapKey)) continue;
    seen.add(heapKey);
    const slash24s = 2 ** (block.bits - depth);
    nodes.push({
      network: (block.firstSlash24 + position * slash24s) * 256,
      length: 24 - block.bits + depth,
      draw: random.float(),
    });
  }
  return nodes.sort((a, b) => a.network - b.network || a.length - b.length);
}

function formatV4(address: number): string {
  return `${address >>> 24}.${(address >>> 16) & 255}.${(address >>> 8) & 255}.${address & 255}`;
}

export async function writePfx2asV4(path: string, context: MonthContext): Promise<void> {
  const { world } = context;
  // Blocks are handed out in increasing address order, so sorting the ASes by block sorts the whole file.
  const holders = world.liveRouted().filter((as) => as.v4 !== null);
  holders.sort(
    (a, b) =>
      (a.v4 as { firstSlash24: number }).firstSlash24 - (b.v4 as { firstSlash24: number }).firstSlash24,
  );
  await writeLines(path, context.gzip, async (out) => {
    for (const as of holders) {
      const partner = moasPartner(world, as);
      for (const prefix of v4Prefixes(as))
        await out.line(
          `${formatV4(prefix.network)}\t${prefix.length}\t${originField(as, partner, prefix.draw)}`,
        );
    }
  });
}

export async function writePfx2asV6(path: string, context: MonthContext): Promise<void> {
  const { world } = context;
  const holders = world.liveRouted().filter((as) => as.v6 !== null);
  holders.sort((a, b) => (a.v6 as { slash32: number }).slash32 - (b.v6 as { slash32: number }).slash32);
  await writeLines(path, context.gzip, async (out) => {
    for (const as of holders) {
      const block = as.v6 as { slash32: number; count: number; seed: number };
      const high = Math.floor(block.slash32 / 65536).toString(16);
      const low = (block.slash32 % 65536).toString(16);
      const random = new Random(block.seed);
      const partner = moasPartner(world, as);
      const subnets = new Set<number>();
      while (subnets.size < block.count - 1) subnets.add(random.int(1, 65535));
      await out.line(`${high}:${low}::\t32\t${originField(as, partner, random.float())}`);
      for (const subnet of [...subnets].sort((a, b) => a - b)) {
        await out.line(
          `${high}:${low}:${subnet.toString(16)}::\t48\t${originField(as, partner, random.float())}`,
        );
      }
    }
  });
}

/** Stable small hash of a link, so a link keeps its locations from month to month. */
function linkHash(seed: number, first: number, second: number): number {
  let hash = Math.imul(first ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(second, 0xc2b2ae35) ^ seed;
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}

export async function writeAsRelGeo(path: string, context: MonthContext): Promise<void> {
  const { world } = context;
  const rows: { first: AutonomousSystem; second: AutonomousSystem }[] = [];
  for (const link of world.links()) {
    const [first, second] =
      link.first.asn < link.second.asn ? [link.first, link.second] : [link.second, link.first];
    rows.push({ first, second });
  }
  rows.sort((a, b) => a.first.asn - b.first.asn || a.second.asn - b.second.asn);
  await writeLines(path, context.gzip, async (out) => {
    await out.line(`# ${SYNTHETIC_NOTE}: seed ${context.seed}, month ${context.compactDate}`);
    await out.line('# format:asn0|asn1|loc_id,loc_id,...');
    for (const { first, second } of rows) {
      const hash = linkHash(context.seed, first.asn, second.asn);
      if (hash % 100 < 15) continue;
      const candidates: City[] = [];
      for (const city of [
        first.home,
        second.home,
        world.hubFor(first.home.continent),
        world.hubFor(second.home.continent),
      ]) {
        if (!candidates.includes(city)) candidates.push(city);
      }
      const count = Math.min(candidates.length, 1 + ((hash >>> 8) % 3));
      const rotation = (hash >>> 16) % candidates.length;
      const chosen: string[] = [];
      for (let offset = 0; offset < count; offset++)
        chosen.push(locationId(candidates[(rotation + offset) % candidates.length] as City));
      await out.line(`${first.asn}|${second.asn}|${chosen.join(',')}`);
    }
  });
}

export async function writeLocations(path: string, context: MonthContext): Promise<void> {
  const sorted = [...CITIES].sort((a, b) => (locationId(a) < locationId(b) ? -1 : 1));
  await writeLines(path, context.gzip, async (out) => {
    await out.line(`# ${SYNTHETIC_NOTE}; coordinates and populations of real cities, approximate`);
    await out.line('# format:loc_id|continent|country|region|city|latitude|longitude|population');
    for (const city of sorted) {
      await out.line(
        `${locationId(city)}|${city.continent}|${city.country}|${city.region}|${city.city}|${city.latitude}|${city.longitude}|${city.population}`,
      );
    }
  });
}
