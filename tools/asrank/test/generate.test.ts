// Tests of the synthetic CAIDA-format generator and of the committed sample. The readers below are written
// from the formats' definitions (not from the generator's code), so the tests check the files the way an
// ingest would read them.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import os from 'node:os';
import { ArgumentError, AsGraph, computeCustomerCones } from '@asrank/domain';
import { generateDataset, type GeneratedFiles, type GeneratedManifest } from '../src/generate';
import { SAMPLE_DATA_DIR, SAMPLE_OPTIONS } from '../src/generate/sample';

const AS_REL2_ROW = /^(\d+)\|(\d+)\|(-1|0)\|bgp$/;
const PPDC_ROW = /^\d+( \d+)*$/;
const ORG_ROW = /^([^|]+)\|(\d{8})?\|([^|]*)\|([A-Z]{2})\|(ARIN|RIPE|APNIC|LACNIC|AFRINIC)$/;
const AUT_ROW = /^(\d+)\|(\d{8})?\|([^|]+)\|([^|]+)\|([^|]*)\|(ARIN|RIPE|APNIC|LACNIC|AFRINIC)$/;
const PFX2AS_V4_ROW = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\t(\d{1,2})\t(\d+(?:[_,]\d+)*)$/;
const PFX2AS_V6_ROW = /^([0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)::\t(\d{1,3})\t(\d+(?:[_,]\d+)*)$/;
const GEO_ROW = /^(\d+)\|(\d+)\|([^|,]+(?:,[^|,]+)*)$/;
const LOCATION_ROW =
  /^([^|]+)\|(Africa|Asia|Europe|North America|Oceania|South America)\|([A-Z]{2})\|([^|]+)\|([^|]+)\|(-?\d+(?:\.\d+)?)\|(-?\d+(?:\.\d+)?)\|(\d+)$/;

function readLines(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}

function dataLines(file: string): string[] {
  return readLines(file).filter((line) => !line.startsWith('#'));
}

function expectAllMatch(lines: readonly string[], pattern: RegExp, file: string): void {
  const bad = lines.filter((line) => !pattern.test(line));
  expect({ file, bad: bad.slice(0, 5) }).toEqual({ file, bad: [] });
}

interface Relationships {
  clique: number[];
  ixps: number[];
  /** provider -> customers */
  customers: Map<number, number[]>;
  /** customer -> providers */
  providers: Map<number, number[]>;
  peers: Set<string>;
  asns: Set<number>;
  /** "a|b|code" with a<b for peers, provider first for p2c */
  links: Set<string>;
}

function pairId(first: number, second: number): string {
  return first < second ? `${first}|${second}` : `${second}|${first}`;
}

function readAsRel2(file: string): Relationships {
  const lines = readLines(file);
  const header = lines.filter((line) => line.startsWith('#'));
  const cliqueLine = header.find((line) => line.startsWith('# inferred clique: '));
  const ixpLine = header.find((line) => line.startsWith('# IXP ASes:'));
  if (!cliqueLine || !ixpLine) throw new Error(`${file}: missing clique or IXP header`);
  const relationships: Relationships = {
    clique: cliqueLine.slice('# inferred clique: '.length).split(' ').map(Number),
    ixps: ixpLine.slice('# IXP ASes:'.length).trim().split(' ').filter(Boolean).map(Number),
    customers: new Map(),
    providers: new Map(),
    peers: new Set(),
    asns: new Set(),
    links: new Set(),
  };
  for (const line of lines) {
    if (line.startsWith('#')) continue;
    const match = AS_REL2_ROW.exec(line);
    if (!match) throw new Error(`${file}: bad row ${line}`);
    const first = Number(match[1]);
    const second = Number(match[2]);
    relationships.asns.add(first);
    relationships.asns.add(second);
    relationships.links.add(`${first}|${second}|${match[3]}`);
    if (match[3] === '-1') {
      relationships.customers.set(first, [...(relationships.customers.get(first) ?? []), second]);
      relationships.providers.set(second, [...(relationships.providers.get(second) ?? []), first]);
    } else {
      relationships.peers.add(pairId(first, second));
    }
  }
  return relationships;
}

/** Recursive customer closure (the AS itself included), computed by a plain depth-first walk. */
function customerCone(relationships: Relationships, asn: number): Set<number> {
  const cone = new Set<number>([asn]);
  const stack = [asn];
  while (stack.length > 0) {
    const current = stack.pop() as number;
    for (const customer of relationships.customers.get(current) ?? []) {
      if (!cone.has(customer)) {
        cone.add(customer);
        stack.push(customer);
      }
    }
  }
  return cone;
}

function hashTree(root: string): Map<string, string> {
  const hashes = new Map<string, string>();
  const walk = (directory: string): void => {
    for (const name of readdirSync(directory).sort()) {
      const full = path.join(directory, name);
      if (statSync(full).isDirectory()) walk(full);
      else
        hashes.set(path.relative(root, full), createHash('sha256').update(readFileSync(full)).digest('hex'));
    }
  };
  walk(root);
  return hashes;
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'asrank-generate-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let runCounter = 0;
function freshDir(label: string): string {
  return path.join(scratch, `${label}-${runCounter++}`);
}

describe('generateDataset: format of every file', () => {
  let files: GeneratedFiles;
  beforeAll(async () => {
    files = await generateDataset({ outDir: freshDir('formats'), seed: 7, asns: 400, months: 2 });
  });

  test('writes one folder per month, first days of consecutive months, and a manifest with relative paths', () => {
    expect(files.months.map((month) => month.date)).toEqual(['2024-01-01', '2024-02-01']);
    const manifest = JSON.parse(readFileSync(files.manifest, 'utf8')) as GeneratedManifest;
    expect(manifest.synthetic).toBe(true);
    expect(manifest.options).toMatchObject({
      seed: 7,
      asns: 400,
      months: 2,
      links: 2500,
      prefixes: 5000,
      gzip: false,
    });
    for (const [index, month] of manifest.months.entries()) {
      const absolute = files.months[index];
      expect(path.join(files.outDir, month.asRel)).toBe(absolute?.asRel);
      for (const file of [
        month.asRel,
        month.ppdcAses,
        month.asOrg,
        ...month.pfx2as,
        month.asRelGeo,
        month.locations,
      ]) {
        expect(path.isAbsolute(file)).toBe(false);
        expect(existsSync(path.join(files.outDir, file))).toBe(true);
      }
    }
    expect(path.basename(files.months[0]?.pfx2as[0] ?? '')).toBe('routeviews-rv2-20240101-1200.pfx2as');
    expect(path.basename(files.months[0]?.pfx2as[1] ?? '')).toBe('routeviews-rv6-20240101-1200.pfx2as');
  });

  test('as-rel2: serial-2 header (source, inferred clique, IXP ASes) and provider|customer|-1|bgp / peer|peer|0|bgp rows', () => {
    for (const month of files.months) {
      const lines = readLines(month.asRel);
      const header = lines.filter((line) => line.startsWith('#'));
      expect(header.some((line) => /^# source:topology\|BGP\|\d{8}\|/.test(line))).toBe(true);
      expect(header.some((line) => /^# inferred clique: \d+( \d+)+$/.test(line))).toBe(true);
      expect(header.some((line) => /^# IXP ASes: \d+( \d+)*$/.test(line))).toBe(true);
      // The header comes first, as in the real files.
      expect(lines.findIndex((line) => !line.startsWith('#'))).toBe(header.length);
      const rows = dataLines(month.asRel);
      expectAllMatch(rows, AS_REL2_ROW, month.asRel);
      const badRows = rows.filter((row) => {
        const [first, second, code] = row.split('|').map(Number) as [number, number, number];
        return first === second || (code === 0 && first > second);
      });
      expect(badRows).toEqual([]);
      const keys = rows.map((row) => row.split('|').slice(0, 2).map(Number) as [number, number]);
      const sorted = [...keys].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      expect(keys).toEqual(sorted);
      expect(new Set(keys.map(([a, b]) => pairId(a, b))).size).toBe(keys.length);
    }
  });

  test('ppdc-ases, as-org2info (org table first, 6-field AS table), pfx2as, as-rel-geo and locations rows all parse', () => {
    for (const month of files.months) {
      expectAllMatch(dataLines(month.ppdcAses), PPDC_ROW, month.ppdcAses);

      const orgLines = readLines(month.asOrg);
      const orgHeader = orgLines.indexOf('# format:org_id|changed|org_name|country|source');
      const autHeader = orgLines.indexOf('# format:aut|changed|aut_name|org_id|opaque_id|source');
      expect(orgLines[0]).toBe('# name: AS Org');
      expect(orgHeader).toBeGreaterThan(0);
      expect(autHeader).toBeGreaterThan(orgHeader);
      const orgRows = orgLines.slice(orgHeader + 1, autHeader);
      const autRows = orgLines.slice(autHeader + 1);
      expectAllMatch(orgRows, ORG_ROW, month.asOrg);
      expectAllMatch(autRows, AUT_ROW, month.asOrg);
      const orgIds = new Set(orgRows.map((row) => row.split('|')[0]));
      expect(orgIds.size).toBe(orgRows.length);
      for (const row of autRows) expect(orgIds.has(row.split('|')[3])).toBe(true);

      const [v4File, v6File] = month.pfx2as as [string, string];
      const v4Rows = readLines(v4File);
      expectAllMatch(v4Rows, PFX2AS_V4_ROW, v4File);
      const invalidPrefixes = v4Rows.filter((row) => {
        const match = PFX2AS_V4_ROW.exec(row) as RegExpExecArray;
        const octets = match.slice(1, 5).map(Number) as [number, number, number, number];
        const length = Number(match[5]);
        const address = ((octets[0] * 256 + octets[1]) * 256 + octets[2]) * 256 + octets[3];
        const aligned = address % 2 ** (32 - length) === 0; // host bits are zero
        const publicUnicast = ![0, 10, 127].includes(octets[0]) && octets[0] < 224;
        return Math.max(...octets) > 255 || length < 8 || length > 24 || !aligned || !publicUnicast;
      });
      expect(invalidPrefixes).toEqual([]);
      const v6Rows = readLines(v6File);
      expect(v6Rows.length).toBeGreaterThan(0);
      expectAllMatch(v6Rows, PFX2AS_V6_ROW, v6File);

      const locationRows = dataLines(month.locations);
      expect(readLines(month.locations)).toContain(
        '# format:loc_id|continent|country|region|city|latitude|longitude|population',
      );
      expectAllMatch(locationRows, LOCATION_ROW, month.locations);
      const locationIds = new Set(locationRows.map((row) => row.split('|')[0]));
      const badIds = locationRows.filter((row) => {
        const [id, , country, region, city] = row.split('|');
        return id !== `${city}-${region}-${country}`;
      });
      expect(badIds).toEqual([]);

      const relationships = readAsRel2(month.asRel);
      const geoRows = dataLines(month.asRelGeo);
      expect(readLines(month.asRelGeo)).toContain('# format:asn0|asn1|loc_id,loc_id,...');
      expectAllMatch(geoRows, GEO_ROW, month.asRelGeo);
      const linkedPairs = new Set(
        [...relationships.links]
          .map((link) => link.split('|').map(Number))
          .map(([a, b]) => pairId(a as number, b as number)),
      );
      const badGeoRows = geoRows.filter((row) => {
        const [first, second, locations] = row.split('|') as [string, string, string];
        return (
          Number(first) >= Number(second) ||
          !linkedPairs.has(pairId(Number(first), Number(second))) ||
          !locations.split(',').every((id) => locationIds.has(id))
        );
      });
      expect(badGeoRows).toEqual([]);
      // Most links are located, so AsnLink.locations has data.
      expect(geoRows.length).toBeGreaterThan(relationships.links.size * 0.6);
    }
  });
});

describe('generateDataset: a realistic Internet', () => {
  let files: GeneratedFiles;
  beforeAll(async () => {
    files = await generateDataset({ outDir: freshDir('structure'), seed: 99, asns: 1500, months: 3 });
  });

  test('the clique has 3-19 members that all peer with each other', () => {
    for (const month of files.months) {
      const relationships = readAsRel2(month.asRel);
      expect(relationships.clique.length).toBeGreaterThanOrEqual(3);
      expect(relationships.clique.length).toBeLessThanOrEqual(19);
      for (const first of relationships.clique) {
        expect(relationships.providers.get(first)).toBeUndefined();
        for (const second of relationships.clique) {
          if (first < second) expect(relationships.peers.has(pairId(first, second))).toBe(true);
        }
      }
    }
  });

  test('no p2c cycles, and every non-clique AS has a provider path up to the clique', () => {
    for (const month of files.months) {
      const relationships = readAsRel2(month.asRel);
      // Kahn's algorithm over provider -> customer edges consumes every AS only when there is no cycle.
      const inDegree = new Map<number, number>(
        [...relationships.asns].map((asn) => [asn, relationships.providers.get(asn)?.length ?? 0]),
      );
      const queue = [...relationships.asns].filter((asn) => inDegree.get(asn) === 0);
      let consumed = 0;
      while (queue.length > 0) {
        const asn = queue.pop() as number;
        consumed++;
        for (const customer of relationships.customers.get(asn) ?? []) {
          const remaining = (inDegree.get(customer) as number) - 1;
          inDegree.set(customer, remaining);
          if (remaining === 0) queue.push(customer);
        }
      }
      expect(consumed).toBe(relationships.asns.size);

      // Every AS lies in the customer cone of some clique member.
      const coveredByClique = new Set<number>();
      for (const member of relationships.clique)
        for (const asn of customerCone(relationships, member)) coveredByClique.add(asn);
      const orphans = [...relationships.asns].filter((asn) => !coveredByClique.has(asn));
      expect(orphans).toEqual([]);
    }
  });

  test('ppdc-ases lines are exactly the recursive customer closure of the p2c links, one per AS', () => {
    for (const month of files.months) {
      const relationships = readAsRel2(month.asRel);
      const rows = dataLines(month.ppdcAses);
      expect(rows.length).toBe(relationships.asns.size);
      const mismatches = rows.filter((row) => {
        const [asn, ...members] = row.split(' ').map(Number) as [number, ...number[]];
        // Exactly the closure without the AS itself, ascending.
        const expected = [...customerCone(relationships, asn)]
          .filter((member) => member !== asn)
          .sort((a, b) => a - b);
        return members.join(' ') !== expected.join(' ');
      });
      expect(mismatches).toEqual([]);
    }
  });

  test('the domain cone computation (used when no ppdc-ases file is given) agrees with the ppdc-ases file', () => {
    const month = files.months[files.months.length - 1];
    const links = dataLines(month?.asRel as string).map((row) => {
      const [asn0, asn1, code] = row.split('|').map(Number) as [number, number, -1 | 0];
      return { asn0, asn1, code };
    });
    const computed = computeCustomerCones(AsGraph.fromLinks(links));
    const rows = dataLines(month?.ppdcAses as string);
    expect(computed.size).toBe(rows.length);
    const mismatches = rows.filter((row) => {
      const [asn, ...members] = row.split(' ').map(Number) as [number, ...number[]];
      const cone = computed.get(asn);
      return !cone || [...cone].join(' ') !== [asn, ...members].sort((a, b) => a - b).join(' ');
    });
    expect(mismatches).toEqual([]);
  });

  test('degrees and cones are heavy-tailed: mostly stubs with 1-3 providers, a few very large transit networks', () => {
    const relationships = readAsRel2(files.months[0]?.asRel as string);
    const coneSizes = [...relationships.asns]
      .map((asn) => customerCone(relationships, asn).size)
      .sort((a, b) => b - a);
    const stubs = coneSizes.filter((size) => size === 1).length;
    expect(stubs / coneSizes.length).toBeGreaterThan(0.7);
    expect(coneSizes[0]).toBeGreaterThan(relationships.asns.size * 0.2);
    const providerCounts = [...relationships.asns]
      .filter((asn) => !relationships.clique.includes(asn))
      .map((asn) => relationships.providers.get(asn)?.length ?? 0);
    expect(Math.min(...providerCounts)).toBeGreaterThanOrEqual(1);
    expect(providerCounts.filter((count) => count <= 3).length / providerCounts.length).toBeGreaterThan(0.9);
    expect(relationships.peers.size).toBeGreaterThan(
      (relationships.clique.length * (relationships.clique.length - 1)) / 2,
    );
  });

  test('organizations own 1-5 ASNs (siblings), with real country codes and all five registries', () => {
    const month = files.months[0];
    const lines = readLines(month?.asOrg as string);
    const autRows = lines.slice(lines.indexOf('# format:aut|changed|aut_name|org_id|opaque_id|source') + 1);
    const orgRows = lines.slice(
      lines.indexOf('# format:org_id|changed|org_name|country|source') + 1,
      lines.indexOf('# format:aut|changed|aut_name|org_id|opaque_id|source'),
    );
    const membersPerOrg = new Map<string, number>();
    for (const row of autRows) {
      const orgId = row.split('|')[3] as string;
      membersPerOrg.set(orgId, (membersPerOrg.get(orgId) ?? 0) + 1);
    }
    const sizes = [...membersPerOrg.values()];
    expect(Math.max(...sizes)).toBeLessThanOrEqual(5);
    expect(sizes.filter((size) => size >= 2).length).toBeGreaterThan(sizes.length * 0.1);
    const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
    for (const row of orgRows) {
      const country = row.split('|')[3] as string;
      expect(regionNames.of(country)).not.toBe(country);
    }
    expect(new Set(orgRows.map((row) => row.split('|')[4]))).toEqual(
      new Set(['ARIN', 'RIPE', 'APNIC', 'LACNIC', 'AFRINIC']),
    );
    // The organizations file also lists a few registered ASNs that are not routed (AS Rank's "not seen").
    const routed = readAsRel2(month?.asRel as string).asns;
    const listed = autRows.map((row) => Number(row.split('|')[0]));
    for (const asn of routed) expect(listed).toContain(asn);
    expect(listed.length).toBeGreaterThan(routed.size);
  });

  test('ASNs span the 16-bit and 32-bit ranges and avoid reserved numbers', () => {
    const listed = dataLines(files.months[0]?.asOrg as string)
      .map((row) => Number(row.split('|')[0]))
      .filter((asn) => Number.isInteger(asn));
    expect(listed.filter((asn) => asn < 65536).length).toBeGreaterThan(listed.length * 0.3);
    expect(listed.filter((asn) => asn > 131071).length).toBeGreaterThan(listed.length * 0.2);
    for (const asn of listed) {
      expect(asn === 0 || asn === 23456 || (asn >= 64496 && asn <= 131071) || asn >= 4200000000).toBe(false);
    }
  });

  test('about 1% of prefixes are MOAS (origins joined with _), origins are routed ASNs', () => {
    const month = files.months[0];
    const routed = readAsRel2(month?.asRel as string).asns;
    const rows = readLines(month?.pfx2as[0] as string);
    const moas = rows.filter((row) => row.split('\t')[2]?.includes('_'));
    expect(moas.length / rows.length).toBeGreaterThan(0.002);
    expect(moas.length / rows.length).toBeLessThan(0.03);
    const unknownOrigins = rows
      .flatMap((row) => (row.split('\t')[2] as string).split(/[_,]/))
      .filter((origin) => !routed.has(Number(origin)));
    expect(unknownOrigins).toEqual([]);
  });

  test('month-to-month churn is present but small', () => {
    for (let index = 1; index < files.months.length; index++) {
      const before = readAsRel2(files.months[index - 1]?.asRel as string);
      const after = readAsRel2(files.months[index]?.asRel as string);
      const removedLinks = [...before.links].filter((link) => !after.links.has(link)).length;
      const addedLinks = [...after.links].filter((link) => !before.links.has(link)).length;
      expect(removedLinks).toBeGreaterThan(0);
      expect(addedLinks).toBeGreaterThan(0);
      expect((removedLinks + addedLinks) / before.links.size).toBeLessThan(0.15);
      const removedAsns = [...before.asns].filter((asn) => !after.asns.has(asn)).length;
      const addedAsns = [...after.asns].filter((asn) => !before.asns.has(asn)).length;
      expect(removedAsns).toBeGreaterThan(0);
      expect(addedAsns).toBeGreaterThan(0);
      expect((removedAsns + addedAsns) / before.asns.size).toBeLessThan(0.1);
      const beforePrefixes = new Set(
        readLines(files.months[index - 1]?.pfx2as[0] as string).map((row) =>
          row.split('\t').slice(0, 2).join('/'),
        ),
      );
      const afterPrefixes = readLines(files.months[index]?.pfx2as[0] as string).map((row) =>
        row.split('\t').slice(0, 2).join('/'),
      );
      const kept = afterPrefixes.filter((prefix) => beforePrefixes.has(prefix)).length;
      expect(kept / beforePrefixes.size).toBeGreaterThan(0.9);
      expect(kept).toBeLessThan(afterPrefixes.length);
    }
  });
});

describe('generateDataset: sizes follow the arguments', () => {
  test('asns, links and prefixes set the first month exactly; defaults scale per ASN', async () => {
    const small = await generateDataset({
      outDir: freshDir('small'),
      seed: 3,
      asns: 200,
      months: 1,
      links: 900,
      prefixes: 2000,
    });
    const month = small.months[0];
    const relationships = readAsRel2(month?.asRel as string);
    expect(relationships.asns.size).toBe(200);
    expect(relationships.links.size).toBe(900);
    expect(readLines(month?.pfx2as[0] as string).length + readLines(month?.pfx2as[1] as string).length).toBe(
      2000,
    );

    const larger = await generateDataset({ outDir: freshDir('larger'), seed: 3, asns: 800, months: 1 });
    const largerMonth = larger.months[0];
    const largerRelationships = readAsRel2(largerMonth?.asRel as string);
    expect(largerRelationships.asns.size).toBe(800);
    expect(largerRelationships.links.size).toBe(5000);
    expect(
      readLines(largerMonth?.pfx2as[0] as string).length + readLines(largerMonth?.pfx2as[1] as string).length,
    ).toBe(10000);
    expect(dataLines(largerMonth?.ppdcAses as string).length).toBe(800);
  });

  test('startDate picks the first month; months run on across year ends', async () => {
    const files = await generateDataset({
      outDir: freshDir('dates'),
      seed: 1,
      asns: 20,
      months: 3,
      startDate: '20231101',
    });
    expect(files.months.map((month) => month.date)).toEqual(['2023-11-01', '2023-12-01', '2024-01-01']);
    expect(path.basename(files.months[2]?.asRel ?? '')).toBe('20240101.as-rel2.txt');
  });

  test.each([
    [{ asns: 5 }, 'asns'],
    [{ asns: 12.5 }, 'asns'],
    [{ months: 0 }, 'months'],
    [{ seed: -1 }, 'seed'],
    [{ links: 0 }, 'links'],
    [{ prefixes: -3 }, 'prefixes'],
    [{ startDate: '2024-13-01' }, 'startDate'],
    [{ startDate: '2024-01-15' }, 'startDate'],
    [{ startDate: 'soon' }, 'startDate'],
  ])('rejects %j with an ArgumentError naming %s', async (override, argument) => {
    const outDir = freshDir('invalid');
    const error = await generateDataset({ outDir, seed: 1, asns: 20, months: 1, ...override }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ArgumentError);
    expect((error as ArgumentError).argument).toBe(argument);
    expect((error as Error).message).toContain(argument);
    expect(existsSync(outDir)).toBe(false);
  });
});

describe('generateDataset: determinism', () => {
  test('the same seed and sizes give byte-identical files; another seed gives different ones', async () => {
    const options = { seed: 12345, asns: 250, months: 2 };
    const first = await generateDataset({ ...options, outDir: freshDir('same') });
    const second = await generateDataset({ ...options, outDir: freshDir('same') });
    const other = await generateDataset({ ...options, seed: 12346, outDir: freshDir('other') });
    const firstHashes = hashTree(first.outDir);
    expect(firstHashes.size).toBe(1 + 2 * 7);
    expect(hashTree(second.outDir)).toEqual(firstHashes);
    const otherHashes = hashTree(other.outDir);
    expect(otherHashes.get('20240101/20240101.as-rel2.txt')).not.toBe(
      firstHashes.get('20240101/20240101.as-rel2.txt'),
    );
    expect(otherHashes.get('20240101/routeviews-rv2-20240101-1200.pfx2as')).not.toBe(
      firstHashes.get('20240101/routeviews-rv2-20240101-1200.pfx2as'),
    );
  });

  test('gzip output is reproducible and decompresses to the plain files', async () => {
    const options = { seed: 5, asns: 120, months: 1 };
    const plain = await generateDataset({ ...options, outDir: freshDir('plain') });
    const zipped = await generateDataset({ ...options, gzip: true, outDir: freshDir('gzip') });
    const zippedAgain = await generateDataset({ ...options, gzip: true, outDir: freshDir('gzip') });
    expect(hashTree(zippedAgain.outDir)).toEqual(hashTree(zipped.outDir));
    const plainMonth = plain.months[0] as NonNullable<(typeof plain.months)[0]>;
    const zippedMonth = zipped.months[0] as NonNullable<(typeof zipped.months)[0]>;
    const pairs: [string, string][] = [
      [plainMonth.asRel, zippedMonth.asRel],
      [plainMonth.ppdcAses, zippedMonth.ppdcAses],
      [plainMonth.asOrg, zippedMonth.asOrg],
      [plainMonth.pfx2as[0] as string, zippedMonth.pfx2as[0] as string],
      [plainMonth.pfx2as[1] as string, zippedMonth.pfx2as[1] as string],
      [plainMonth.asRelGeo, zippedMonth.asRelGeo],
      [plainMonth.locations, zippedMonth.locations],
    ];
    for (const [plainFile, zippedFile] of pairs) {
      expect(zippedFile).toBe(`${plainFile.replace(plain.outDir, zipped.outDir)}.gz`);
      const compressed = readFileSync(zippedFile);
      expect([compressed[0], compressed[1]]).toEqual([0x1f, 0x8b]);
      expect(gunzipSync(compressed).equals(readFileSync(plainFile))).toBe(true);
    }
  });
});

describe('the committed sample-data/', () => {
  test('is exactly what the generator writes with the documented options (it never drifts)', async () => {
    const regenerated = await generateDataset({ ...SAMPLE_OPTIONS, outDir: freshDir('sample') });
    const committed = hashTree(SAMPLE_DATA_DIR);
    committed.delete('README.md');
    expect(committed).toEqual(hashTree(regenerated.outDir));
    const readme = readFileSync(path.join(SAMPLE_DATA_DIR, 'README.md'), 'utf8');
    expect(readme).toContain(`seed ${SAMPLE_OPTIONS.seed}`);
    expect(readme.toLowerCase()).toContain('synthetic');
  });

  test('is small: a few hundred KB of plain text', () => {
    const total = [...hashTree(SAMPLE_DATA_DIR).keys()].reduce(
      (sum, file) => sum + statSync(path.join(SAMPLE_DATA_DIR, file)).size,
      0,
    );
    expect(total).toBeLessThan(600 * 1024);
  });
});
