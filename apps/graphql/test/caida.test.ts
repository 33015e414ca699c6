// The real December 2017 month from CAIDA's files (read in place from the shared folder): ingested with the
// real CLI ingest into a temp SQLite file, then served. AS3356's cone size and degree must equal CAIDA's
// own asn_count file, and the full cone stream of a large AS is walked over HTTP with every item seen once.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { sql } from 'kysely';
import { migrateToLatest, openDatabase } from '@asrank/db';
import { ingestMonth } from '@asrank/cli';
import { graphqlData, makeTempDir, sharedCaidaDir, startService, type RunningService } from './helpers';

const caida = sharedCaidaDir();
const files = {
  asRel: path.join(caida, 'as-rel', '20171201.as-rel.txt.bz2'),
  asrankCounts: path.join(caida, 'asrank', '20171201'),
  asOrg: path.join(caida, 'as-org2info', '20170401.as-org2info.txt.gz'),
  pfx2as: path.join(caida, 'pfx2as', 'routeviews-rv2-20170329-0200.pfx2as.gz'),
};
const present = Object.values(files).every((file) => fs.existsSync(file));
if (!present)
  console.warn(
    `SKIP CAIDA December 2017 test: the CAIDA files are not under ${caida} (set ASRANK_SHARED_DATA).`,
  );

interface AsnCount {
  asnes: number;
  prefixes: number;
  addresses: number;
  global: number;
  transit: number;
}

/** CAIDA's own per-AS figures: `asn|asnes|prefixes|addresses|global|transit`. */
async function readAsnCounts(file: string, wanted: Set<string>): Promise<Map<string, AsnCount>> {
  const found = new Map<string, AsnCount>();
  const lines = readline.createInterface({ input: fs.createReadStream(file) });
  for await (const line of lines) {
    if (line.startsWith('#')) continue;
    const [asn, asnes, prefixes, addresses, global, transit] = line.split('|');
    if (asn === undefined || !wanted.has(asn)) continue;
    found.set(asn, {
      asnes: Number(asnes),
      prefixes: Number(prefixes),
      addresses: Number(addresses),
      global: Number(global),
      transit: Number(transit),
    });
  }
  return found;
}

(present ? describe : describe.skip)('CAIDA December 2017 through the GraphQL service', () => {
  let dir: string;
  let service: RunningService;
  let counts: Map<string, AsnCount>;
  let dbFile: string;

  beforeAll(async () => {
    dir = makeTempDir('caida');
    const file = (dbFile = path.join(dir, 'caida-201712.db'));
    const handle = openDatabase(file);
    await migrateToLatest(handle.db, handle.dialect);
    await ingestMonth(handle, { date: '2017-12-01', ...files });
    await handle.close();
    service = await startService(file);
    counts = await readAsnCounts(path.join(files.asrankCounts, '20171201-asn_count.txt'), new Set(['3356']));
  }, 900_000);

  afterAll(async () => {
    await service?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers asn(asn:"3356") with the cone size and degree of CAIDA asn_count', async () => {
    const expected = counts.get('3356');
    expect(expected).toBeDefined();
    const data = await graphqlData<{
      asn: {
        asn: string;
        date: string;
        cone: { numberAsns: number };
        asnDegree: { total: number; transit: number };
      };
    }>(service.baseUrl, '{ asn(asn: "3356") { asn date cone { numberAsns } asnDegree { total transit } } }');
    expect(data.asn).toEqual({
      asn: '3356',
      date: '2017-12-01',
      cone: { numberAsns: expected!.asnes },
      asnDegree: { total: expected!.global, transit: expected!.transit },
    });
  });

  it('walks the whole cone stream of a large AS over HTTP, every member and prefix seen exactly once', async () => {
    // The largest cone of at most 2,000 members: many pages, yet a walk that keeps this file's runtime modest
    // (AS701's 33,664-member, 435,652-prefix cone takes about a minute here and is left to the benchmark).
    const reader = openDatabase(dbFile, { readonly: true });
    const cone = await reader.db
      .selectFrom('cone_members')
      .select(['asn', (eb) => eb.fn.countAll().as('members')])
      .where('date', '=', '2017-12-01')
      .groupBy('asn')
      .having((eb) => eb.fn.countAll(), '<=', 2000)
      .orderBy(sql`count(*)`, 'desc')
      .orderBy('asn')
      .limit(1)
      .executeTakeFirstOrThrow();
    const stored = await reader.db
      .selectFrom('cone_members')
      .select('member_asn')
      .where('date', '=', '2017-12-01')
      .where('asn', '=', cone.asn)
      .execute();
    const storedPrefixes = await reader.db
      .selectFrom('prefix_origins')
      .innerJoin('cone_members', (join) =>
        join
          .onRef('cone_members.member_asn', '=', 'prefix_origins.asn')
          .onRef('cone_members.date', '=', 'prefix_origins.date'),
      )
      .innerJoin('prefixes', (join) =>
        join
          .onRef('prefixes.prefix_id', '=', 'prefix_origins.prefix_id')
          .onRef('prefixes.date', '=', 'prefix_origins.date'),
      )
      .select(['prefixes.network', 'prefixes.length'])
      .distinct()
      .where('cone_members.date', '=', '2017-12-01')
      .where('cone_members.asn', '=', cone.asn)
      .execute();
    await reader.close();
    expect(stored.length).toBeGreaterThan(1000);
    const large = String(cone.asn);

    const members: string[] = [];
    const prefixes: string[] = [];
    let pageCursor: string | null = null;
    let pages = 0;
    for (;;) {
      const data: {
        asnConesStream: {
          pageInfo: { nextPageCursor: string; hasNextPage: boolean };
          pages: {
            asn: { asn: string };
            asns: { asn: string }[];
            prefixes: { network: string; length: number }[];
          }[];
        };
      } = await graphqlData(
        service.baseUrl,
        'query S($asns: [String!], $cursor: String) { asnConesStream(asns: $asns, pageCursor: $cursor) { pageInfo { nextPageCursor hasNextPage } pages { asn { asn } asns { asn } prefixes { network length } } } }',
        { variables: { asns: [large], cursor: pageCursor } },
      );
      for (const item of data.asnConesStream.pages) {
        expect(item.asn.asn).toBe(large);
        members.push(...item.asns.map((member) => member.asn));
        prefixes.push(...item.prefixes.map((prefix) => `${prefix.network}/${prefix.length}`));
      }
      pages += 1;
      if (!data.asnConesStream.pageInfo.hasNextPage) break;
      pageCursor = data.asnConesStream.pageInfo.nextPageCursor;
      expect(pages).toBeLessThan(100_000);
    }
    expect(pages).toBeGreaterThan(1);
    expect(new Set(members).size).toBe(members.length);
    expect(members.map(Number).sort((a, b) => a - b)).toEqual(
      stored.map((row) => Number(row.member_asn)).sort((a, b) => a - b),
    );
    expect(new Set(prefixes).size).toBe(prefixes.length);
    expect([...prefixes].sort()).toEqual(storedPrefixes.map((row) => `${row.network}/${row.length}`).sort());
  }, 600_000);
});
