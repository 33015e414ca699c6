// CAIDA RouteViews prefix-to-AS files: `network<TAB>length<TAB>origins`. MOAS origins are joined with `_`,
// AS sets with `,`; every ASN named either way counts as an origin of the prefix (docs/decisions.md).
// Several files (rv2 + rv6) accumulate into one map.
import net from 'node:net';
import { readLines } from '../input/open';
import { parseAsn, type BadLinePolicy } from '../input/bad-lines';

export interface PrefixEntry {
  network: string;
  length: number;
  ipVersion: 4 | 6;
  /** Distinct origin ASNs (an array: a Set per prefix costs ~10x the memory on a million prefixes). */
  origins: number[];
}

const EXPECTED = 'network<TAB>length<TAB>origin ASNs (joined with "_" for MOAS and "," for AS sets)';

export async function parsePfx2as(
  file: string,
  policy: BadLinePolicy,
  into: Map<string, PrefixEntry>,
): Promise<number> {
  let rows = 0;
  for await (const { line, lineNumber } of readLines(file)) {
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(/\s+/);
    const [network, lengthText, originText] = fields;
    const family = network === undefined ? 0 : net.isIP(network);
    const length = Number(lengthText);
    if (
      fields.length !== 3 ||
      family === 0 ||
      !/^\d{1,3}$/.test(lengthText ?? '') ||
      length > (family === 4 ? 32 : 128) ||
      originText === undefined
    ) {
      policy.reject(file, lineNumber, EXPECTED, line);
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
      entry = { network: network!, length, ipVersion: family as 4 | 6, origins: [] };
      into.set(key, entry);
    }
    for (const asn of origins) if (!entry.origins.includes(asn)) entry.origins.push(asn);
    rows += 1;
  }
  return rows;
}
