// Real CAIDA data (read in place from ../shared/data/caida, never copied): December 2017 with CAIDA's own AS Rank
// counts, and eight quarterly months of AS relationships alone (computed cones) for history.
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase, type DatabaseHandle } from '@asrank/db';
import { ingestMonth, listDatasets } from '../src';
import { CAIDA_DIR, HAVE_CAIDA, tempDir } from './helpers';

if (!HAVE_CAIDA)
  console.warn(`CAIDA data tests skipped: ${CAIDA_DIR} is absent (set ASRANK_SHARED_DATA to its location).`);
const caida = HAVE_CAIDA ? describe : describe.skip;
const file = (...parts: string[]) => path.join(CAIDA_DIR, ...parts);

interface CountRow {
  asn: number;
  coneAsns: number;
  conePrefixes: number;
  coneAddresses: number;
  degreeTotal: number;
  degreeTransit: number;
}

/** The asn_count file read independently of the ingest's parser. */
function readAsnCounts(): Map<number, CountRow> {
  const rows = new Map<number, CountRow>();
  for (const line of fs
    .readFileSync(file('asrank', '20171201', '20171201-asn_count.txt'), 'utf8')
    .split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const [asn, coneAsns, conePrefixes, coneAddresses, degreeTotal, degreeTransit] = line
      .split('|')
      .map(Number) as number[];
    rows.set(asn!, {
      asn: asn!,
      coneAsns: coneAsns!,
      conePrefixes: conePrefixes!,
      coneAddresses: coneAddresses!,
      degreeTotal: degreeTotal!,
      degreeTransit: degreeTransit!,
    });
  }
  return rows;
}

caida('CAIDA December 2017 (as-rel + AS Rank counts + as-org + pfx2as) into SQLite', () => {
  let dir: string;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    dir = tempDir('caida-2017');
    handle = openDatabase(path.join(dir, 'dec2017.db'));
    await ingestMonth(handle, {
      date: '2017-12-01',
      asRel: file('as-rel', '20171201.as-rel.txt.bz2'),
      asrankCounts: file('asrank', '20171201'),
      asOrg: file('as-org2info', '20170401.as-org2info.txt.gz'),
      pfx2as: [file('pfx2as', 'routeviews-rv2-20170329-0200.pfx2as.gz')],
    });
  }, 240_000);
  afterAll(async () => {
    await handle?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('has 60,152 seen ASNs, and every ASN of the organizations file', async () => {
    const dataset = await handle.db
      .selectFrom('datasets')
      .selectAll()
      .where('date', '=', '2017-12-01')
      .executeTakeFirstOrThrow();
    expect(Number(dataset.number_asns_seen)).toBe(60152);
    const seen = await handle.db
      .selectFrom('asns')
      .select('asn')
      .where('date', '=', '2017-12-01')
      .where('seen', '=', 1)
      .execute();
    expect(seen).toHaveLength(60152);
    expect(Number(dataset.number_asns)).toBeGreaterThanOrEqual(80070);
    expect(JSON.parse(dataset.clique)).toEqual([
      '174',
      '209',
      '286',
      '701',
      '1239',
      '1299',
      '2828',
      '2914',
      '3257',
      '3320',
      '3356',
      '3491',
      '5511',
      '6453',
      '6461',
      '6762',
      '6830',
      '7018',
      '12956',
    ]);
    const sources = JSON.parse(dataset.sources) as { name: string }[];
    expect(sources.map((s) => s.name)).toContain('AS Relationships');
    expect(sources.some((s) => /sizes from AS Rank counts; cone members computed/.test(s.name))).toBe(true);
  });

  it('stores the cone sizes and degrees of the asn_count file for every seen ASN', async () => {
    const expected = readAsnCounts();
    expect(expected.size).toBe(60152);
    const rows = await handle.db
      .selectFrom('asns')
      .select([
        'asn',
        'cone_asns',
        'cone_prefixes',
        'cone_addresses',
        'degree_total',
        'degree_transit',
        'seen',
      ])
      .where('date', '=', '2017-12-01')
      .where('seen', '=', 1)
      .execute();
    const mismatches = rows.filter((row) => {
      const want = expected.get(Number(row.asn));
      return (
        !want ||
        want.coneAsns !== Number(row.cone_asns) ||
        want.conePrefixes !== Number(row.cone_prefixes) ||
        want.coneAddresses !== Number(row.cone_addresses) ||
        want.degreeTotal !== Number(row.degree_total) ||
        want.degreeTransit !== Number(row.degree_transit)
      );
    });
    expect(mismatches).toEqual([]);
  });

  it('ranks follow the rule: competition ranking by cone ASNs, prefixes, addresses, degree, transit degree', async () => {
    const rows = await handle.db
      .selectFrom('asns')
      .select([
        'asn',
        'rank',
        'seen',
        'cone_asns',
        'cone_prefixes',
        'cone_addresses',
        'degree_total',
        'degree_transit',
      ])
      .where('date', '=', '2017-12-01')
      .execute();
    expect(rows.filter((row) => (row.rank === null) !== (row.seen === 0))).toEqual([]);
    const key = (r: (typeof rows)[number]) =>
      [r.cone_asns, r.cone_prefixes, r.cone_addresses, r.degree_total, r.degree_transit].map(Number);
    const ranked = rows
      .filter((r) => r.seen === 1)
      .sort((a, b) => {
        const ka = key(a);
        const kb = key(b);
        for (let i = 0; i < ka.length; i += 1) if (ka[i] !== kb[i]) return kb[i]! - ka[i]!;
        return 0;
      });
    let wrong = 0;
    ranked.forEach((row, index) => {
      const previous = ranked[index - 1];
      const tie = previous !== undefined && key(previous).join() === key(row).join();
      const expectedRank = tie ? Number(previous!.rank) : index + 1;
      if (Number(row.rank) !== expectedRank) wrong += 1;
    });
    expect(wrong).toBe(0);
    expect(ranked[0]?.asn).toBe(3356);
  });

  it('stores computed recursive cone members (AS174: 48,064 members while its AS Rank cone is 23,771)', async () => {
    const as174 = await handle.db
      .selectFrom('asns')
      .select('cone_asns')
      .where('date', '=', '2017-12-01')
      .where('asn', '=', 174)
      .executeTakeFirstOrThrow();
    expect(Number(as174.cone_asns)).toBe(23771);
    const members = await handle.db
      .selectFrom('cone_members')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('date', '=', '2017-12-01')
      .where('asn', '=', 174)
      .executeTakeFirstOrThrow();
    expect(Number(members.n)).toBe(48064);
    const paths = await handle.db
      .selectFrom('asn_links')
      .select('number_paths')
      .where('date', '=', '2017-12-01')
      .where('asn0', '=', 25139)
      .where('asn1', '=', 30619)
      .executeTakeFirstOrThrow();
    expect(Number(paths.number_paths)).toBe(288);
  });
});

const QUARTERS = [
  '20111201',
  '20120301',
  '20120601',
  '20120901',
  '20121201',
  '20130301',
  '20130601',
  '20130901',
];

caida('eight quarterly months of AS relationships alone (2011-12 .. 2013-09) into SQLite', () => {
  let dir: string;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    dir = tempDir('caida-history');
    handle = openDatabase(path.join(dir, 'history.db'));
    for (const quarter of QUARTERS) {
      await ingestMonth(handle, { date: quarter, asRel: file('as-rel', `${quarter}.as-rel.txt.bz2`) });
    }
  }, 300_000);
  afterAll(async () => {
    await handle?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists the eight months, each ranking every ASN of its file with cones computed recursively', async () => {
    const listed = await listDatasets(handle);
    expect(listed.map((d) => d.date.replaceAll('-', ''))).toEqual(QUARTERS);
    for (const dataset of listed) {
      expect(dataset.numberAsnsSeen).toBe(dataset.numberAsns);
      expect(dataset.numberLinks).toBeGreaterThan(100000);
    }
    for (let i = 1; i < listed.length; i += 1)
      expect(listed[i]!.numberAsns).toBeGreaterThan(listed[0]!.numberAsns);
    const unranked = await handle.db
      .selectFrom('asns')
      .select('asn')
      .where('rank', 'is', null)
      .limit(1)
      .execute();
    expect(unranked).toEqual([]);
  });

  it('serves one ASN across months, its cone size equal to its stored cone members each month', async () => {
    const history = await handle.db
      .selectFrom('asns')
      .select(['date', 'rank', 'cone_asns'])
      .where('asn', '=', 3356)
      .orderBy('date')
      .execute();
    expect(history).toHaveLength(8);
    for (const month of history) {
      const members = await handle.db
        .selectFrom('cone_members')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('date', '=', month.date)
        .where('asn', '=', 3356)
        .executeTakeFirstOrThrow();
      expect(Number(members.n)).toBe(Number(month.cone_asns));
      expect(Number(month.rank)).toBeLessThanOrEqual(5);
    }
  });
});
