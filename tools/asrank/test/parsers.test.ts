// Parsers of the CAIDA formats, on small files written here (and one committed bzip2 fixture).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { BadLinePolicy, MalformedLineError } from '../src/input/bad-lines';
import { detectCompression, readLines, InputFileError } from '../src/input/open';
import { parseAsRel } from '../src/parse/as-rel';
import { parseAsOrg } from '../src/parse/as-org';
import { parsePfx2as, type PrefixEntry } from '../src/parse/pfx2as';
import { parsePpdcAses } from '../src/parse/ppdc-ases';
import { parseAsRelGeo, parseGeoLocations } from '../src/parse/link-geo';
import { tempDir } from './helpers';

const FIXTURES = path.join(__dirname, 'fixtures');
let dir: string;
beforeAll(() => {
  dir = tempDir('parsers');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string, compress?: 'gzip'): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, compress === 'gzip' ? zlib.gzipSync(text) : text);
  return file;
}

const strict = () => new BadLinePolicy(false);

describe('compression detection', () => {
  it('recognises gzip and bzip2 by their magic bytes, whatever the file is called', async () => {
    const plainFile = path.join(FIXTURES, 'tiny.as-rel.txt');
    const plain = fs.readFileSync(plainFile, 'utf8');
    const gzFile = write('looks-plain.txt', plain, 'gzip');
    const bzFile = path.join(FIXTURES, 'tiny-as-rel.compressed');
    expect(detectCompression(fs.readFileSync(gzFile))).toBe('gzip');
    expect(detectCompression(fs.readFileSync(bzFile))).toBe('bzip2');
    expect(detectCompression(fs.readFileSync(plainFile))).toBe('none');
    const lines = async (file: string) => {
      const out: string[] = [];
      for await (const { line } of readLines(file)) out.push(line);
      return out;
    };
    const expected = plain.trimEnd().split('\n');
    expect(await lines(plainFile)).toEqual(expected);
    expect(await lines(gzFile)).toEqual(expected);
    expect(await lines(bzFile)).toEqual(expected);
  });

  it('names a missing file and a corrupt compressed file', async () => {
    await expect(parseAsRel(path.join(dir, 'nope.txt'), strict())).rejects.toThrow(InputFileError);
    await expect(parseAsRel(path.join(dir, 'nope.txt'), strict())).rejects.toThrow(
      /nope\.txt: file not found/,
    );
    const corrupt = write('corrupt.gz', '');
    fs.writeFileSync(
      corrupt,
      Buffer.concat([zlib.gzipSync('1|2|0\n').subarray(0, 12), Buffer.from('garbage')]),
    );
    await expect(parseAsRel(corrupt, strict())).rejects.toThrow(/corrupt\.gz: corrupt gzip data/);
  });

  it('handles CRLF line ends and a last line without a newline', async () => {
    const file = write('crlf.txt', '1|2|0\r\n2|3|-1');
    const parsed = await parseAsRel(file, strict());
    expect(parsed.links).toEqual([
      { asn0: 1, asn1: 2, code: 0 },
      { asn0: 2, asn1: 3, code: -1 },
    ]);
  });
});

describe('as-rel', () => {
  it('reads serial-1 links, the inferred clique and the IXP ASes', async () => {
    const parsed = await parseAsRel(path.join(FIXTURES, 'tiny-as-rel.compressed'), strict());
    expect(parsed.serial).toBe(1);
    expect(parsed.clique).toEqual([10, 20]);
    expect(parsed.ixps).toEqual([99]);
    expect(parsed.links).toContainEqual({ asn0: 10, asn1: 30, code: -1 });
    expect(parsed.links).toHaveLength(4);
  });

  it('reads serial-2 lines with a source field, sibling codes, and the newer "input clique" header', async () => {
    const file = write(
      's2.as-rel2.txt',
      '# input clique: 174 3356\n# step 1: something\n174|3356|0|bgp\n3356|64512|-1|bgp\n# step 2\n64512|64513|1|mlp\n',
    );
    const parsed = await parseAsRel(file, strict());
    expect(parsed.serial).toBe(2);
    expect(parsed.clique).toEqual([174, 3356]);
    expect(parsed.links).toEqual([
      { asn0: 174, asn1: 3356, code: 0 },
      { asn0: 3356, asn1: 64512, code: -1 },
      { asn0: 64512, asn1: 64513, code: 1 },
    ]);
  });

  it('stops at a malformed line with file, line number and expectation, or counts it with skipBadLines', async () => {
    const file = write('bad.as-rel.txt', '# header\n1|2|0\n1|x|0\n3|4|2\n5|6|-1\n');
    const error = await parseAsRel(file, strict()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedLineError);
    expect((error as MalformedLineError).lineNumber).toBe(3);
    expect((error as Error).message).toBe(
      `${file}:3: malformed line "1|x|0": expected asn|asn|relationship (-1, 0 or 1) with an optional |source field`,
    );
    const lenient = new BadLinePolicy(true);
    const parsed = await parseAsRel(file, lenient);
    expect(parsed.links).toHaveLength(2);
    expect(lenient.skipped).toBe(2);
  });
});

describe('as-org2info', () => {
  const orgTable =
    '# format:org_id|changed|org_name|country|source\nORG-A|20170101|Alpha Net|de|RIPE\nORG-B|20170101|Beta | Gamma Inc|US|ARIN\n';
  it('reads the old 5-field AS layout with the org table first', async () => {
    const file = write(
      'old.as-org2info.txt',
      `# name: AS Org\n# date: 201704\n${orgTable}# format:aut|changed|aut_name|org_id|source\n64500|20170101|ALPHA-AS|ORG-A|RIPE\n64501|20170101|BETA|ORG-B|ARIN\n`,
    );
    const parsed = await parseAsOrg(file, strict());
    expect(parsed.date).toBe('201704');
    expect(parsed.organizations.get('ORG-A')).toEqual({
      orgId: 'ORG-A',
      orgName: 'Alpha Net',
      country: 'DE',
      source: 'RIPE',
    });
    expect(parsed.organizations.get('ORG-B')?.orgName).toBe('Beta | Gamma Inc');
    expect(parsed.asns.get(64500)).toEqual({
      asn: 64500,
      asnName: 'ALPHA-AS',
      orgId: 'ORG-A',
      source: 'RIPE',
    });
  });

  it('reads the new 6-field AS layout (opaque_id) in either table order', async () => {
    const file = write(
      'new.as-org2info.txt',
      `# format:aut|changed|aut_name|org_id|opaque_id|source\n64500|20190101|ALPHA-AS|ORG-A|abc_RIPE|RIPE\n${orgTable}`,
    );
    const parsed = await parseAsOrg(file, strict());
    expect(parsed.asns.get(64500)).toEqual({
      asn: 64500,
      asnName: 'ALPHA-AS',
      orgId: 'ORG-A',
      source: 'RIPE',
    });
    expect(parsed.organizations.size).toBe(2);
  });

  it('rejects data before any format header', async () => {
    const file = write('headless.as-org2info.txt', 'ORG-A|20170101|Alpha|DE|RIPE\n');
    await expect(parseAsOrg(file, strict())).rejects.toThrow(
      /:1: malformed line .* expected a "# format:org_id\|\.\.\." or "# format:aut\|\.\.\." header/,
    );
  });
});

describe('pfx2as', () => {
  it('reads MOAS (_) and AS-set (,) origins, IPv4 and IPv6, accumulating several files', async () => {
    const v4 = write(
      'rv2.pfx2as',
      '1.0.0.0\t24\t13335\n1.2.4.0\t24\t24151_24409\n5.5.0.0\t16\t100,200_300\n1.0.0.0\t24\t13335\n',
    );
    const v6 = write('rv6.pfx2as', '2001:db8::\t32\t64500\n', 'gzip');
    const prefixes = new Map<string, PrefixEntry>();
    await parsePfx2as(v4, strict(), prefixes);
    await parsePfx2as(v6, strict(), prefixes);
    expect(prefixes.get('1.0.0.0/24')?.origins).toEqual([13335]);
    expect(prefixes.get('1.2.4.0/24')?.origins).toEqual([24151, 24409]);
    expect(prefixes.get('5.5.0.0/16')?.origins).toEqual([100, 200, 300]);
    expect(prefixes.get('2001:db8::/32')).toEqual({
      network: '2001:db8::',
      length: 32,
      ipVersion: 6,
      origins: [64500],
    });
  });

  it('rejects impossible prefixes', async () => {
    const file = write('bad.pfx2as', '1.0.0.0\t33\t1\n');
    await expect(parsePfx2as(file, strict(), new Map())).rejects.toThrow(
      /bad\.pfx2as:1: .*expected network<TAB>length<TAB>origin ASNs/,
    );
  });
});

describe('ppdc-ases and link geography', () => {
  it('reads customer cones with the owner included', async () => {
    const file = write('x.ppdc-ases.txt', '# comment\n10 10 30 40\n40 40\n50\n');
    const cones = await parsePpdcAses(file, strict());
    expect([...cones.get(10)!]).toEqual([10, 30, 40]);
    expect([...cones.get(50)!]).toEqual([50]);
  });

  it("reads CAIDA's and the generator's as-rel-geo layouts and the locations file", async () => {
    const geo = write(
      'x.as-rel-geo.txt',
      '# format\n10|20|Aachen-NW-DE,bgp,lg|Paris-IDF-FR,bgp\n10|30|Paris-IDF-FR,Aachen-NW-DE\n',
    );
    const links = await parseAsRelGeo(geo, strict());
    expect(links[0]).toEqual({ asn0: 10, asn1: 20, locIds: ['Aachen-NW-DE', 'bgp', 'lg', 'Paris-IDF-FR'] });
    expect(links[1]?.locIds).toEqual(['Paris-IDF-FR', 'Aachen-NW-DE']);
    const locations = write('x.locations.txt', 'Aachen-NW-DE|Europe|DE|NW|Aachen|50.77|6.08|245885\n');
    expect(await parseGeoLocations(locations, strict())).toEqual([
      {
        locId: 'Aachen-NW-DE',
        continent: 'Europe',
        country: 'DE',
        region: 'NW',
        city: 'Aachen',
        latitude: 50.77,
        longitude: 6.08,
        population: 245885,
      },
    ]);
  });
});
