// CAIDA AS relationships, serial-1 (`a|b|-1|` / `a|b|0`) and serial-2 (`a|b|rel|source`).
// `-1`: a is the provider of b; `0`: peers; `1`: siblings (rare, serial-2). Header comments carry the clique
// (`# inferred clique:` in serial-1, `# input clique:` in newer files) and the IXP route-server ASNs.
import { parseAsn, type BadLinePolicy } from '../input/bad-lines';

export type RelationshipCode = -1 | 0 | 1;

export interface AsRelLink {
  asn0: number;
  asn1: number;
  code: RelationshipCode;
}

export interface AsRelFile {
  links: AsRelLink[];
  clique: number[];
  ixps: number[];
  /** Serial-2 files name the inference source of each link (bgp, mlp, ...). */
  serial: 1 | 2;
  lineCount: number;
}

const EXPECTED = 'asn|asn|relationship (-1, 0 or 1) with an optional |source field';

function asnList(text: string): number[] {
  return text
    .trim()
    .split(/\s+/)
    .filter((token) => token !== '')
    .map((token) => parseAsn(token))
    .filter((asn): asn is number => asn !== null);
}

export async function parseAsRel(file: string, policy: BadLinePolicy): Promise<AsRelFile> {
  const links: AsRelLink[] = [];
  let inferredClique: number[] | null = null;
  let inputClique: number[] | null = null;
  let ixps: number[] = [];
  let serial: 1 | 2 = 1;
  for await (const { line, lineNumber } of policy.lines(file)) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const comment = /^#\s*([^:]+):(.*)$/.exec(line);
      if (!comment) continue;
      const label = comment[1]!.trim().toLowerCase();
      const value = comment[2]!;
      if (label === 'inferred clique') inferredClique = asnList(value);
      else if (label === 'input clique') inputClique = asnList(value);
      else if (label === 'ixp ases') ixps = asnList(value);
      continue;
    }
    const fields = line.split('|');
    const asn0 = parseAsn(fields[0] ?? '');
    const asn1 = parseAsn(fields[1] ?? '');
    const rel = fields[2];
    if (
      fields.length < 3 ||
      fields.length > 4 ||
      asn0 === null ||
      asn1 === null ||
      (rel !== '-1' && rel !== '0' && rel !== '1')
    ) {
      policy.reject(file, lineNumber, EXPECTED, line);
      continue;
    }
    if (asn0 === asn1) {
      policy.reject(
        file,
        lineNumber,
        'two different ASNs (a link from an AS to itself is not a relationship)',
        line,
      );
      continue;
    }
    if (fields.length === 4) serial = 2;
    links.push({ asn0, asn1, code: Number(rel) as RelationshipCode });
  }
  return {
    links,
    clique: inferredClique ?? inputClique ?? [],
    ixps,
    serial,
    lineCount: policy.linesReadFrom(file),
  };
}
