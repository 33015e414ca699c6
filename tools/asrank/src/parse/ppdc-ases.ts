// CAIDA customer cones (`YYYYMMDD.ppdc-ases.txt`): `asn member member ...` (space separated), the AS itself
// normally listed first among its members.
import { parseAsn, type BadLinePolicy } from '../input/bad-lines';

export async function parsePpdcAses(file: string, policy: BadLinePolicy): Promise<Map<number, Uint32Array>> {
  const cones = new Map<number, Uint32Array>();
  for await (const { line, lineNumber } of policy.lines(file)) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const tokens = line.trim().split(/\s+/);
    const asn = parseAsn(tokens[0] ?? '');
    const members = tokens.map((t) => parseAsn(t));
    if (asn === null || members.some((m) => m === null)) {
      policy.reject(file, lineNumber, 'space-separated ASNs: the cone owner, then its cone members', line);
      continue;
    }
    const set = new Set(members as number[]);
    set.add(asn);
    cones.set(asn, Uint32Array.from(set).sort());
  }
  return cones;
}
