// `asrank import-jsonl`: JSON-lines dumps of the public AS Rank API (one GraphQL node per line) load as a month.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { openDatabase, SEARCH_TEXT_SEPARATOR, type DatabaseHandle } from '@asrank/db';
import { importJsonl, listDatasets, MalformedLineError } from '../src';
import { CAIDA_DIR, HAVE_CAIDA, tempDir } from './helpers';

const jsonl = (nodes: unknown[]) => nodes.map((n) => JSON.stringify(n)).join('\n') + '\n';

let dir: string;
beforeAll(() => {
  dir = tempDir('jsonl');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('import-jsonl with dumps shaped as the spec nodes', () => {
  let dumpDir: string;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    dumpDir = path.join(dir, 'dump');
    fs.mkdirSync(dumpDir);
    fs.writeFileSync(
      path.join(dumpDir, 'asns.jsonl'),
      jsonl([
        {
          asn: '3356',
          asnName: 'LEVEL3',
          rank: 1,
          source: 'ARIN',
          date: '2019-08-01',
          cliqueMember: true,
          seen: true,
          ixp: null,
          longitude: -97.8,
          latitude: 37.7,
          organization: { orgId: 'LPL-141-ARIN', orgName: 'Level 3 Parent, LLC' },
          country: { iso: 'US' },
          cone: { numberAsns: 35292, numberPrefixes: 529469, numberAddresses: 1431488865 },
          asnDegree: { provider: 0, peer: 54, customer: 5201, transit: 5255, sibling: 3, total: 5258 },
        },
        {
          node: {
            asn: '64512',
            asnName: 'STUB',
            rank: 2,
            seen: true,
            organization: { orgId: 'ORG-STUB' },
            cone: { numberAsns: 1 },
          },
        },
        { asn: '64999', asnName: 'UNSEEN', seen: false },
      ]),
    );
    fs.writeFileSync(
      path.join(dumpDir, 'organizations.jsonl.gz'),
      zlib.gzipSync(
        jsonl([
          {
            orgId: 'LPL-141-ARIN',
            orgName: 'Level 3 Parent, LLC',
            rank: 1,
            country: { iso: 'US' },
            members: { numberAsns: 19, numberAsnsSeen: 12 },
            cone: { numberAsns: 35363 },
            asnDegree: { transit: 7006, total: 7010 },
          },
          { node: { orgId: 'ORG-STUB', orgName: 'Stub Networks', rank: 2 } },
        ]),
      ),
    );
    fs.writeFileSync(
      path.join(dumpDir, 'asnLinks.jsonl'),
      jsonl([
        {
          asn0: { asn: '3356' },
          asn1: { asn: '64512', asnName: 'STUB' },
          relationship: 'customer',
          numberPaths: 1200,
        },
        {
          node: {
            asn0: '3356',
            asn1: { asn: '1299', asnName: 'TELIANET', rank: 2 },
            relationship: 'peer',
            numberPaths: 278564,
          },
        },
      ]),
    );
    handle = openDatabase(path.join(dir, 'jsonl.db'));
    await importJsonl(handle, { date: '20190801', dir: dumpDir });
  });
  afterAll(async () => handle.close());

  it('stores ASNs with their organization, cone, degrees and flags', async () => {
    const level3 = await handle.db
      .selectFrom('asns')
      .selectAll()
      .where('asn', '=', 3356)
      .executeTakeFirstOrThrow();
    expect(level3).toMatchObject({
      date: '2019-08-01',
      asn_name: 'LEVEL3',
      org_id: 'LPL-141-ARIN',
      country_iso: 'US',
      source: 'ARIN',
      clique_member: 1,
      seen: 1,
      ixp: null,
      degree_customer: 5201,
      degree_transit: 5255,
      // The two names apart, so the name filter cannot match across them.
      search_text: `level3${SEARCH_TEXT_SEPARATOR}level 3 parent, llc`,
    });
    expect(Number(level3.cone_addresses)).toBe(1431488865);
    const unseen = await handle.db
      .selectFrom('asns')
      .select(['seen', 'rank'])
      .where('asn', '=', 64999)
      .executeTakeFirstOrThrow();
    expect(unseen).toEqual({ seen: 0, rank: null });
    const telia = await handle.db
      .selectFrom('asns')
      .select(['asn_name', 'rank', 'seen'])
      .where('asn', '=', 1299)
      .executeTakeFirstOrThrow();
    expect({ ...telia, rank: Number(telia.rank) }).toEqual({ asn_name: 'TELIANET', rank: 2, seen: 1 });
  });

  it('stores organizations (gzip-compressed file, {node} wrapper) with member and link counts filled from the ASNs and links', async () => {
    const orgs = await handle.db
      .selectFrom('organizations')
      .select([
        'org_id',
        'org_name',
        'number_asns',
        'number_asns_seen',
        'seen',
        'number_asn_links',
        'number_neighbors',
      ])
      .orderBy('org_id')
      .execute();
    expect(orgs).toEqual([
      {
        org_id: 'LPL-141-ARIN',
        org_name: 'Level 3 Parent, LLC',
        number_asns: 19,
        number_asns_seen: 12,
        seen: 1,
        // AS3356's links to AS64512 (ORG-STUB) and AS1299 (no organization).
        number_asn_links: 2,
        number_neighbors: 2,
      },
      {
        org_id: 'ORG-STUB',
        org_name: 'Stub Networks',
        number_asns: 1,
        number_asns_seen: 1,
        seen: 1,
        number_asn_links: 1,
        number_neighbors: 1,
      },
    ]);
  });

  it('stores each link from both ends with the mirrored relationship', async () => {
    const links = await handle.db
      .selectFrom('asn_links')
      .select(['asn0', 'asn1', 'relationship', 'canonical', 'number_paths'])
      .orderBy('asn0')
      .orderBy('asn1')
      .execute();
    expect(
      links.map((l) => [Number(l.asn0), Number(l.asn1), l.relationship, l.canonical, Number(l.number_paths)]),
    ).toEqual([
      [1299, 3356, 'peer', 1, 278564],
      [3356, 1299, 'peer', 0, 278564],
      [3356, 64512, 'customer', 1, 1200],
      [64512, 3356, 'provider', 0, 1200],
    ]);
    // Each ASN's links counted on its row (020), and by relationship (022: customer, peer, provider): AS64999 has
    // none. The dumps carry no cone members, so no ASN's row counts any (021).
    const counts = await handle.db
      .selectFrom('asns')
      .select([
        'asn',
        'number_asn_links',
        'number_cone_members',
        'number_customer_links',
        'number_peer_links',
        'number_provider_links',
      ])
      .orderBy('asn')
      .execute();
    expect(
      counts.map((row) => [
        Number(row.asn),
        row.number_asn_links,
        row.number_cone_members,
        [row.number_customer_links, row.number_peer_links, row.number_provider_links],
      ]),
    ).toEqual([
      [1299, 1, 0, [0, 1, 0]],
      [3356, 2, 0, [1, 1, 0]],
      [64512, 1, 0, [0, 0, 1]],
      [64999, 0, 0, [0, 0, 0]],
    ]);
    const [dataset] = await listDatasets(handle);
    expect(dataset).toMatchObject({
      date: '2019-08-01',
      numberAsns: 4,
      numberAsnsSeen: 3,
      numberLinks: 2,
      numberOrganizations: 2,
    });
  });

  it('reports a malformed line with file and line number', async () => {
    const badDir = path.join(dir, 'bad');
    fs.mkdirSync(badDir);
    fs.writeFileSync(path.join(badDir, 'asns.jsonl'), '{"asn":"1"}\n{"asn": "x"}\n');
    const error = await importJsonl(handle, { date: '2019-09-01', dir: badDir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedLineError);
    expect((error as Error).message).toMatch(
      /asns\.jsonl:2: malformed line .* expected an Asn node with "asn" a string of decimal digits/,
    );
    expect((await listDatasets(handle)).map((d) => d.date)).toEqual(['2019-08-01']);
  });
});

(HAVE_CAIDA ? describe : describe.skip)(
  "import-jsonl with CAIDA's real AS Rank API responses (2019-08)",
  () => {
    it('loads the ASNs, organizations, links and dataset of the API test fixtures', async () => {
      const api = (name: string) =>
        JSON.parse(fs.readFileSync(path.join(CAIDA_DIR, 'asrank', 'api-test-201908', name), 'utf8'));
      const dumpDir = path.join(dir, 'caida');
      fs.mkdirSync(dumpDir);
      const unwrap = (edge: Record<string, unknown>) => (edge.node ?? edge) as Record<string, unknown>;
      fs.writeFileSync(path.join(dumpDir, 'asns.jsonl'), jsonl(api('asn.json').edges.map(unwrap)));
      fs.writeFileSync(path.join(dumpDir, 'organizations.jsonl'), jsonl(api('orgs.json').edges.map(unwrap)));
      // links.json answers asnLinks(asn: "3356"), whose nodes omit the queried end: a dump names it.
      fs.writeFileSync(
        path.join(dumpDir, 'asnLinks.jsonl'),
        jsonl(api('links.json').edges.map((e: Record<string, unknown>) => ({ asn0: '3356', ...unwrap(e) }))),
      );
      fs.writeFileSync(path.join(dumpDir, 'dataset.jsonl'), jsonl([api('dataset.json')]));
      const handle = openDatabase(path.join(dir, 'caida-api.db'));
      try {
        await importJsonl(handle, { date: '2019-08-01', dir: dumpDir });
        const level3 = await handle.db
          .selectFrom('asns')
          .selectAll()
          .where('asn', '=', 3356)
          .executeTakeFirstOrThrow();
        expect([Number(level3.rank), Number(level3.cone_asns), level3.org_id]).toEqual([
          1,
          35292,
          'LPL-141-ARIN',
        ]);
        const org = await handle.db
          .selectFrom('organizations')
          .selectAll()
          .where('org_id', '=', 'LPL-141-ARIN')
          .executeTakeFirstOrThrow();
        expect([Number(org.rank), Number(org.cone_asns), org.number_asns_seen]).toEqual([1, 35363, 12]);
        const link = await handle.db
          .selectFrom('asn_links')
          .selectAll()
          .where('asn0', '=', 3356)
          .where('asn1', '=', 1299)
          .executeTakeFirstOrThrow();
        expect([link.relationship, Number(link.number_paths)]).toEqual(['peer', 278564]);
        const dataset = await handle.db.selectFrom('datasets').selectAll().executeTakeFirstOrThrow();
        expect([dataset.dataset_id, Number(dataset.number_asns), Number(dataset.number_asns_seen)]).toEqual([
          '20190801.4.world',
          92615,
          65955,
        ]);
      } finally {
        await handle.close();
      }
    });
  },
);

describe('import-jsonl link ranks', () => {
  const asnNodes = [
    { asn: '1', rank: 1 },
    { asn: '2', rank: 2 },
    { asn: '3', rank: 3 },
    { asn: '4', seen: true },
  ];
  const linkNodes = [
    { asn0: '2', asn1: '3', relationship: 'customer' },
    { asn0: '4', asn1: '1', relationship: 'provider' },
    { asn0: '1', asn1: '2', relationship: 'peer' },
    { asn0: '3', asn1: '4', relationship: 'customer' },
  ];

  async function importedRanks(date: string, links: unknown[]): Promise<[number, number, number][]> {
    const dumpDir = path.join(dir, `ranks-${date}`);
    fs.mkdirSync(dumpDir);
    fs.writeFileSync(path.join(dumpDir, 'asns.jsonl'), jsonl(asnNodes));
    fs.writeFileSync(path.join(dumpDir, 'asnLinks.jsonl'), jsonl(links));
    const handle = openDatabase(path.join(dir, `ranks-${date}.db`));
    try {
      await importJsonl(handle, { date, dir: dumpDir });
      const rows = await handle.db
        .selectFrom('asn_links')
        .select(['asn0', 'asn1', 'rank'])
        .orderBy('asn0')
        .orderBy('asn1')
        .execute();
      return rows.map((row) => [Number(row.asn0), Number(row.asn1), Number(row.rank)]);
    } finally {
      await handle.close();
    }
  }

  it('ranks links from their ends as an ingest does when the dump carries no link rank', async () => {
    // By the better end's rank, then the worse one's; an unranked end (AS4) after every ranked one.
    expect(await importedRanks('20190901', linkNodes)).toEqual([
      [1, 2, 1],
      [1, 4, 2],
      [2, 1, 1],
      [2, 3, 3],
      [3, 2, 3],
      [3, 4, 4],
      [4, 1, 2],
      [4, 3, 4],
    ]);
  });

  it('ranks every link again when only some carry a rank, and keeps the ranks when all do', async () => {
    const someRanked = linkNodes.map((link, index) => (index < 2 ? { ...link, rank: 40 - index } : link));
    expect(await importedRanks('20191001', someRanked)).toEqual(await importedRanks('20191101', linkNodes));
    const allRanked = linkNodes.map((link, index) => ({ ...link, rank: 10 * (index + 1) }));
    expect(await importedRanks('20191201', allRanked)).toEqual([
      [1, 2, 30],
      [1, 4, 20],
      [2, 1, 30],
      [2, 3, 10],
      [3, 2, 10],
      [3, 4, 40],
      [4, 1, 20],
      [4, 3, 40],
    ]);
  });
});
