import { ArgumentError, quoteValue } from './errors';

/** A parsed IP prefix; the network address is masked to the length and printed canonically. */
export interface ParsedPrefix {
  ipVersion: 4 | 6;
  /** Canonical network address (dotted quad, or RFC 5952 compressed IPv6). */
  network: string;
  length: number;
  /** First address of the prefix as an unsigned integer. */
  firstAddress: bigint;
}

function parseIpv4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  // Plain number arithmetic (exact below 2^53), one BigInt at the end: the ingest parses ~700k prefixes a month.
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return BigInt(value);
}

function parseIpv6(text: string): bigint | null {
  let body = text;
  // An embedded IPv4 tail (::ffff:192.0.2.1) stands for the last two groups: rewrite it as hex groups.
  if (body.includes('.')) {
    const lastColon = body.lastIndexOf(':');
    const v4 = lastColon < 0 ? null : parseIpv4(body.slice(lastColon + 1));
    if (v4 === null) return null;
    body = `${body.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const parseGroups = (part: string): bigint[] | null => {
    if (part === '') return [];
    const groups = part.split(':');
    if (!groups.every((group) => /^[0-9a-fA-F]{1,4}$/.test(group))) return null;
    return groups.map((group) => BigInt(parseInt(group, 16)));
  };
  const head = parseGroups(halves[0] ?? '');
  const rest = halves.length === 2 ? parseGroups(halves[1] ?? '') : [];
  if (head === null || rest === null) return null;
  const explicit = head.length + rest.length;
  if (halves.length === 2 ? explicit > 7 : explicit !== 8) return null;
  const groups = [...head, ...Array<bigint>(8 - explicit).fill(0n), ...rest];
  return groups.reduce((value, group) => (value << 16n) | group, 0n);
}

function formatIpv4(value: bigint): string {
  const number = Number(value);
  return `${Math.floor(number / 16777216)}.${Math.floor(number / 65536) % 256}.${Math.floor(number / 256) % 256}.${number % 256}`;
}

/** RFC 5952: lower-case hex, leading zeros dropped, the longest run (2+) of zero groups compressed to `::`. */
function formatIpv6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, index) =>
    Number((value >> BigInt(112 - 16 * index)) & 0xffffn),
  );
  let bestStart = -1;
  let bestLength = 0;
  for (let start = 0; start < 8;) {
    if (groups[start] !== 0) {
      start += 1;
      continue;
    }
    let end = start;
    while (end < 8 && groups[end] === 0) end += 1;
    if (end - start > bestLength && end - start >= 2) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/**
 * Parses a prefix given as network address and length (IPv4 or IPv6, told apart by the address). Host bits set in the
 * address are masked off (routing data sometimes carries them); a malformed address or length is an ArgumentError.
 */
export function parsePrefix(network: string, length: number, argument = 'prefix'): ParsedPrefix {
  const text = typeof network === 'string' ? network.trim() : '';
  const ipVersion = text.includes(':') ? 6 : 4;
  const bits = ipVersion === 4 ? 32 : 128;
  const address = ipVersion === 4 ? parseIpv4(text) : parseIpv6(text);
  if (address === null) {
    throw new ArgumentError(
      argument,
      `${argument} has an invalid IPv${ipVersion} network address ${quoteValue(network)}`,
    );
  }
  if (!Number.isInteger(length) || length < 0 || length > bits) {
    throw new ArgumentError(
      argument,
      `${argument} length must be a whole number from 0 to ${bits} for IPv${ipVersion}; got ${quoteValue(length)}`,
    );
  }
  const hostBits = BigInt(bits - length);
  const firstAddress = (address >> hostBits) << hostBits;
  return {
    ipVersion,
    network: ipVersion === 4 ? formatIpv4(firstAddress) : formatIpv6(firstAddress),
    length,
    firstAddress,
  };
}

/** Parses `network/length` text, e.g. `192.0.2.0/24` or `2001:db8::/32`. */
export function parsePrefixText(text: string, argument = 'prefix'): ParsedPrefix {
  const match = /^\s*([^/\s]+)\/(\d{1,3})\s*$/.exec(typeof text === 'string' ? text : '');
  if (!match)
    throw new ArgumentError(
      argument,
      `${argument} must be written network/length (e.g. 192.0.2.0/24); got ${quoteValue(text)}`,
    );
  return parsePrefix(match[1] as string, Number(match[2]), argument);
}

/** Number of addresses a prefix covers. */
export function prefixSize(prefix: ParsedPrefix): bigint {
  return 1n << BigInt((prefix.ipVersion === 4 ? 32 : 128) - prefix.length);
}

/** Orders prefixes by address: IPv4 before IPv6, then first address, then shorter (wider) first. */
export function comparePrefixes(a: ParsedPrefix, b: ParsedPrefix): number {
  if (a.ipVersion !== b.ipVersion) return a.ipVersion - b.ipVersion;
  if (a.firstAddress !== b.firstAddress) return a.firstAddress < b.firstAddress ? -1 : 1;
  return a.length - b.length;
}

/** Addresses covered by a set of prefixes, each address counted once however many prefixes overlap it. */
export function countUniqueAddresses(prefixes: Iterable<ParsedPrefix>): { v4: number; v6: bigint } {
  const sorted = [...prefixes].sort(comparePrefixes);
  let v4 = 0n;
  let v6 = 0n;
  let coveredUntil = -1n;
  let family = 0;
  for (const prefix of sorted) {
    if (prefix.ipVersion !== family) {
      family = prefix.ipVersion;
      coveredUntil = -1n;
    }
    const end = prefix.firstAddress + prefixSize(prefix);
    const start = prefix.firstAddress > coveredUntil ? prefix.firstAddress : coveredUntil;
    if (end > start) {
      if (family === 4) v4 += end - start;
      else v6 += end - start;
      coveredUntil = end;
    }
  }
  return { v4: Number(v4), v6 };
}

/** Prefix and address counts of one cone. Prefixes originated by several of the cone's ASNs (MOAS) count once. */
export interface ConePrefixStats {
  numberPrefixes: number;
  numberPrefixesV4: number;
  numberPrefixesV6: number;
  numberAddressesV4: number;
  numberAddressesV6: bigint;
}

/** Accumulates distinct prefixes fed in address order, merging overlapping ranges so each address counts once. */
class RangeMerger {
  private prefixesV4 = 0;
  private prefixesV6 = 0;
  private addressesV4 = 0;
  private addressesV6 = 0n;
  private coveredV4 = -1;
  private coveredV6 = -1n;

  constructor(
    private readonly firstV6Id: number,
    private readonly v4Start: Float64Array,
    private readonly v4End: Float64Array,
    private readonly v6Start: readonly bigint[],
    private readonly v6End: readonly bigint[],
  ) {}

  add(id: number): void {
    if (id < this.firstV6Id) {
      this.prefixesV4 += 1;
      const end = this.v4End[id] as number;
      const start = Math.max(this.v4Start[id] as number, this.coveredV4);
      if (end > start) {
        this.addressesV4 += end - start;
        this.coveredV4 = end;
      }
    } else {
      this.prefixesV6 += 1;
      const first = this.v6Start[id - this.firstV6Id] as bigint;
      const end = this.v6End[id - this.firstV6Id] as bigint;
      const start = first > this.coveredV6 ? first : this.coveredV6;
      if (end > start) {
        this.addressesV6 += end - start;
        this.coveredV6 = end;
      }
    }
  }

  stats(): ConePrefixStats {
    return {
      numberPrefixes: this.prefixesV4 + this.prefixesV6,
      numberPrefixesV4: this.prefixesV4,
      numberPrefixesV6: this.prefixesV6,
      numberAddressesV4: this.addressesV4,
      numberAddressesV6: this.addressesV6,
    };
  }
}

/**
 * Prefix statistics of many cones at once (the ingest needs them for every AS). Distinct prefixes are numbered once in
 * address order; each cone then marks its members' prefix numbers with a reusable stamp array (MOAS prefixes count
 * once) and sorts them, or, when the cone holds so many that sorting would cost more, sets them in a bitmap over all
 * prefixes and scans it once; either way the covered ranges are merged in address order. IPv4 ranges use
 * plain doubles (exact below 2^53); IPv6 uses BigInt only for the IPv6 part.
 */
export function computeConePrefixStats<K>(
  cones: ReadonlyMap<K, ArrayLike<number>>,
  prefixesByAsn: ReadonlyMap<number, readonly ParsedPrefix[]>,
): Map<K, ConePrefixStats> {
  const distinct = new Map<string, ParsedPrefix>();
  for (const prefixes of prefixesByAsn.values()) {
    for (const prefix of prefixes) {
      const key = `${prefix.network}/${prefix.length}`;
      if (!distinct.has(key)) distinct.set(key, prefix);
    }
  }
  const ordered = [...distinct.values()].sort(comparePrefixes);
  const prefixCount = ordered.length;
  const idByKey = new Map<string, number>();
  ordered.forEach((prefix, id) => idByKey.set(`${prefix.network}/${prefix.length}`, id));
  let firstV6Id = prefixCount;
  const v4Start = new Float64Array(prefixCount);
  const v4End = new Float64Array(prefixCount);
  const v6Start: bigint[] = [];
  const v6End: bigint[] = [];
  ordered.forEach((prefix, id) => {
    if (prefix.ipVersion === 4) {
      v4Start[id] = Number(prefix.firstAddress);
      v4End[id] = Number(prefix.firstAddress + prefixSize(prefix));
    } else {
      if (firstV6Id === prefixCount) firstV6Id = id;
      v6Start[id - firstV6Id] = prefix.firstAddress;
      v6End[id - firstV6Id] = prefix.firstAddress + prefixSize(prefix);
    }
  });
  const prefixIdsByAsn = new Map<number, Uint32Array>();
  for (const [asn, prefixes] of prefixesByAsn) {
    prefixIdsByAsn.set(
      asn,
      Uint32Array.from(prefixes, (prefix) => idByKey.get(`${prefix.network}/${prefix.length}`) as number),
    );
  }

  const stamp = new Uint32Array(prefixCount);
  const collected = new Uint32Array(prefixCount);
  const bitmap = new Uint8Array(prefixCount);
  // Above this many prefix entries one linear scan of a bitmap over all prefixes is cheaper than sorting.
  const scanThreshold = prefixCount / Math.max(1, Math.log2(prefixCount + 1));
  const result = new Map<K, ConePrefixStats>();
  let currentStamp = 0;
  for (const [key, members] of cones) {
    let entryCount = 0;
    for (let memberIndex = 0; memberIndex < members.length; memberIndex += 1) {
      entryCount += prefixIdsByAsn.get(members[memberIndex] as number)?.length ?? 0;
    }
    const merge = new RangeMerger(firstV6Id, v4Start, v4End, v6Start, v6End);
    if (entryCount > scanThreshold) {
      for (let memberIndex = 0; memberIndex < members.length; memberIndex += 1) {
        const ids = prefixIdsByAsn.get(members[memberIndex] as number);
        if (ids !== undefined)
          for (let index = 0; index < ids.length; index += 1) bitmap[ids[index] as number] = 1;
      }
      for (let id = 0; id < prefixCount; id += 1) {
        if (bitmap[id] === 1) {
          bitmap[id] = 0;
          merge.add(id);
        }
      }
    } else {
      currentStamp += 1;
      let count = 0;
      for (let memberIndex = 0; memberIndex < members.length; memberIndex += 1) {
        const ids = prefixIdsByAsn.get(members[memberIndex] as number);
        if (ids === undefined) continue;
        for (let index = 0; index < ids.length; index += 1) {
          const id = ids[index] as number;
          if (stamp[id] !== currentStamp) {
            stamp[id] = currentStamp;
            collected[count++] = id;
          }
        }
      }
      const sortedIds = collected.subarray(0, count).sort();
      for (let index = 0; index < count; index += 1) merge.add(sortedIds[index] as number);
    }
    result.set(key, merge.stats());
  }
  return result;
}
