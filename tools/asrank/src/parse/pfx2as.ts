// CAIDA RouteViews prefix-to-AS files: `network<TAB>length<TAB>origins`. MOAS origins are joined with `_`,
// AS sets with `,`; every ASN named either way counts as an origin of the prefix (docs/decisions.md).
// Several files (rv2 + rv6) accumulate into one map.
import net from 'node:net';
import { ArgumentError, parsePrefix } from '@asrank/domain';
import { parseAsn, type BadLinePolicy } from '../input/bad-lines';

export interface PrefixEntry {
  network: string;
  length: number;
  ipVersion: 4 | 6;
  /** Distinct origin ASNs (an array: a Set per prefix costs ~10x the memory on a million prefixes). */
  origins: number[];
}

const EXPECTED = 'network<TAB>length<TAB>origin ASNs (joined with "_" for MOAS and "," for AS sets)';

/**
 * The network's IP version, or null when it is not a network address. The build step's parsePrefix has the last
 * word: a line it would refuse must be refused here, with its file and line and skippable, instead of aborting
 * the whole load later. net.isIP alone accepts IPv6 zone ids ("fe80::1%eth0"), which no prefix has.
 */
function networkVersion(network: string): 4 | 6 | null {
  if (net.isIP(network) === 0) return null;
  try {
    return parsePrefix(network, 0).ipVersion;
  } catch (error) {
    if (error instanceof ArgumentError) return null;
    throw error;
  }
}

export async function parsePfx2as(
  file: string,
  policy: BadLinePolicy,
  into: Map<string, PrefixEntry>,
): Promise<number> {
  let rows = 0;
  for await (const { line, lineNumber } of policy.lines(file)) {
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(/\s+/);
    const [network, lengthText, originText] = fields;
    if (
      fields.length !== 3 ||
      network === undefined ||
      originText === undefined ||
      !/^\d{1,3}$/.test(lengthText ?? '')
    ) {
      policy.reject(file, lineNumber, EXPECTED, line);
      continue;
    }
    const ipVersion = networkVersion(network);
    if (ipVersion === null) {
      policy.reject(file, lineNumber, `${EXPECTED} with an IPv4 or IPv6 network address (no zone id)`, line);
      continue;
    }
    const length = Number(lengthText);
    const maxLength = ipVersion === 4 ? 32 : 128;
    if (length > maxLength) {
      policy.reject(
        file,
        lineNumber,
        `${EXPECTED} with a length of at most ${maxLength} for an IPv${ipVersion} network`,
        line,
      );
      continue;
    }
    const origins: number[] = [];
    let valid = true;
    for (const token of originText.split(/[_,]/)) {
      const asn = parseAsn(token);
      if (asn === null) valid = false;
      else origins.push(asn);
    }
    if (!valid || origins.length === 0) {
      policy.reject(file, lineNumber, EXPECTED, line);
      continue;
    }
    const key = `${network}/${length}`;
    let entry = into.get(key);
    if (!entry) {
      entry = { network, length, ipVersion, origins: [] };
      into.set(key, entry);
    }
    for (const asn of origins) if (!entry.origins.includes(asn)) entry.origins.push(asn);
    rows += 1;
  }
  return rows;
}
