import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import {
  openDatabase,
  migrateToLatest,
  pendingMigrations,
  parseDatabaseUrl,
  ASN_ORGANIZATION_COPY,
  ASN_RELATIONSHIP_LINK_COUNTS,
  SEARCH_TEXT_SEPARATOR,
  searchText,
  type DatabaseHandle,
} from '../src';
import {
  ASN_NUMERIC_SORT_COLUMNS,
  ORG_NUMERIC_SORT_COLUMNS,
} from '../src/migrations/003_descending_sort_indexes';
import { BYTE_ORDER_TEXT_COLUMNS } from '../src/migrations/009_postgres_byte_order_text';
import { LINK_SORT_INDEXES } from '../src/migrations/010_link_sort_indexes';
import { ASN_HISTORY_COLUMNS, ASN_HISTORY_INDEX } from '../src/migrations/011_asn_history_index';
import { LIST_ORDER_CARRIED_COLUMNS, LIST_ORDER_INDEXES } from '../src/migrations/013_list_order_covering';
import { ASN_SUMMARY_COLUMNS, ASN_SUMMARY_INDEX } from '../src/migrations/015_asn_summary_index';
import { migrator } from '../src/migrator';

const PG_URL = process.env.DATABASE_URL_PG;

async function tableNames(handle: DatabaseHandle): Promise<string[]> {
  const tables = await handle.db.introspection.getTables();
  return tables.map((t) => t.name).sort();
}

const expectedTables = [
  'asn_links',
  'asns',
  'cone_members',
  'countries',
  'datasets',
  'link_locations',
  'locations',
  'meta',
  'organizations',
  'prefix_origins',
  'prefixes',
];

/** 1, 2, ... n. */
const numbersTo = (n: number): number[] => Array.from({ length: n }, (_, index) => index + 1);

/**
 * Migrates `handle`, at 011, to the latest with two months loaded, and checks that 012 copied each ASN's organization
 * name and rank of the same month into its row: null where the ASN has no organization, or none of that month.
 */
async function expectOrganizationCopiesFilled(handle: DatabaseHandle): Promise<void> {
  const { error } = await migrator(handle.db, handle.dialect).migrateTo('011_asn_history_index');
  expect(error).toBeUndefined();
  await sql`insert into organizations (date, org_id, org_name, rank) values
    ('2024-01-01', 'ORG-A', 'Alpha', 2), ('2024-02-01', 'ORG-A', 'Alpha Renamed', 1),
    ('2024-01-01', 'ORG-B', 'Beta', null)`.execute(handle.db);
  await sql`insert into asns (date, asn, org_id) values
    ('2024-01-01', 1, 'ORG-A'), ('2024-02-01', 1, 'ORG-A'), ('2024-01-01', 2, 'ORG-B'),
    ('2024-02-01', 2, 'ORG-B'), ('2024-01-01', 3, null)`.execute(handle.db);
  await migrateToLatest(handle.db, handle.dialect);
  const rows = await sql<{ date: string; asn: number; org_name: string | null; org_rank: number | null }>`
    select date, asn, org_name, org_rank from asns order by date, asn`.execute(handle.db);
  expect(
    rows.rows.map((row) => ({
      ...row,
      asn: Number(row.asn),
      org_rank: row.org_rank && Number(row.org_rank),
    })),
  ).toEqual([
    { date: '2024-01-01', asn: 1, org_name: 'Alpha', org_rank: 2 },
    { date: '2024-01-01', asn: 2, org_name: 'Beta', org_rank: null },
    { date: '2024-01-01', asn: 3, org_name: null, org_rank: null },
    { date: '2024-02-01', asn: 1, org_name: 'Alpha Renamed', org_rank: 1 },
    // ORG-B has no row in February: no copy, as a join would find none.
    { date: '2024-02-01', asn: 2, org_name: null, org_rank: null },
  ]);
}

/**
 * Migrates `handle`, at 015, to the latest with two months whose search texts were joined by a space, and checks
 * that 016 rewrote them from the names the rows hold, joined by SEARCH_TEXT_SEPARATOR (non-ASCII names folded as
 * JavaScript folds them), so a LIKE no longer matches across two names, and that the data version moved.
 */
async function expectSearchTextsSeparated(handle: DatabaseHandle): Promise<void> {
  const { error } = await migrator(handle.db, handle.dialect).migrateTo('015_asn_summary_index');
  expect(error).toBeUndefined();
  await sql`insert into asns (date, asn, asn_name, org_name, search_text) values
    ('2024-01-01', 1, 'ULSEL-NET', 'Ulsel Telecom', 'ulsel-net ulsel telecom'),
    ('2024-02-01', 1, 'ÉCOLE-NET', 'Ülsel', 'école-net ülsel'),
    ('2024-02-01', 2, 'LONE-NET', null, 'lone-net')`.execute(handle.db);
  await sql`insert into organizations (date, org_id, org_name, search_text) values
    ('2024-02-01', 'ORG-A', 'Alpha GmbH', 'alpha gmbh org-a'), ('2024-02-01', 'ORG-B', '', 'org-b')`.execute(
    handle.db,
  );
  await sql`update meta set value = '7' where key = 'data_version'`.execute(handle.db);
  await migrateToLatest(handle.db, handle.dialect);
  const texts = await sql<{ search_text: string }>`select search_text from asns
    union all select search_text from organizations order by 1`.execute(handle.db);
  expect(texts.rows.map((row) => row.search_text).sort()).toEqual(
    [
      searchText('ULSEL-NET', 'Ulsel Telecom'),
      searchText('ÉCOLE-NET', 'Ülsel'),
      'lone-net',
      searchText('Alpha GmbH', 'ORG-A'),
      'org-b',
    ].sort(),
  );
  expect(searchText('ÉCOLE-NET', 'Ülsel')).toBe(`école-net${SEARCH_TEXT_SEPARATOR}ülsel`);
  const across = await sql<{ n: number | string }>`select count(*) as n from asns
    where search_text like ${'%net ulsel%'} or search_text like ${'%net ülsel%'}`.execute(handle.db);
  expect(Number(across.rows[0]?.n)).toBe(0);
  const version = await sql<{ value: string }>`select value from meta where key = 'data_version'`.execute(
    handle.db,
  );
  expect(version.rows[0]?.value).toBe('8');
}

/** Inserts each (date, asn0, asn1) of `pairs` as a peering link once per direction, as loads write them. */
async function insertPeerLinks(
  handle: DatabaseHandle,
  pairs: readonly [string, number, number][],
): Promise<void> {
  for (const [date, asn0, asn1] of pairs) {
    await sql`insert into asn_links (date, asn0, asn1, relationship, canonical) values
      (${date}, ${asn0}, ${asn1}, 'peer', 1), (${date}, ${asn1}, ${asn0}, 'peer', 0)`.execute(handle.db);
  }
}

/**
 * Migrates `handle`, at 016, to the latest with two months of organizations, ASNs and links (each link once per
 * direction, as loads write them), and checks that 017 counted each organization's links of that month to ASNs outside
 * it (an ASN of no organization, or with no ASN row, included) and their distinct far ends, its neighbours (a far end
 * with no ASN row of the month not: the API's list of neighbours joins it), and 0 for an organization without links.
 */
async function expectLinkCountsFilled(handle: DatabaseHandle): Promise<void> {
  const { error } = await migrator(handle.db, handle.dialect).migrateTo('016_search_text_separator');
  expect(error).toBeUndefined();
  await sql`insert into organizations (date, org_id, org_name) values
    ('2024-01-01', 'ORG-A', 'Alpha'), ('2024-01-01', 'ORG-B', 'Beta'), ('2024-01-01', 'ORG-C', 'Gamma'),
    ('2024-02-01', 'ORG-A', 'Alpha'), ('2024-02-01', 'ORG-B', 'Beta')`.execute(handle.db);
  await sql`insert into asns (date, asn, org_id) values
    ('2024-01-01', 1, 'ORG-A'), ('2024-01-01', 2, 'ORG-A'), ('2024-01-01', 3, 'ORG-B'), ('2024-01-01', 4, null),
    ('2024-01-01', 6, 'ORG-C'),
    ('2024-02-01', 1, 'ORG-A'), ('2024-02-01', 2, 'ORG-B'), ('2024-02-01', 3, 'ORG-B')`.execute(handle.db);
  // January: 1-2 inside ORG-A; 1-3, 2-3, 2-4, 3-4; 1-5 whose far end has no ASN row. February: 1-2, 2-3.
  const pairs: [string, number, number][] = [
    ['2024-01-01', 1, 2],
    ['2024-01-01', 1, 3],
    ['2024-01-01', 2, 3],
    ['2024-01-01', 2, 4],
    ['2024-01-01', 3, 4],
    ['2024-01-01', 1, 5],
    ['2024-02-01', 1, 2],
    ['2024-02-01', 2, 3],
  ];
  await insertPeerLinks(handle, pairs);
  await migrateToLatest(handle.db, handle.dialect);
  const counts = await sql<{
    date: string;
    org_id: string;
    number_asn_links: unknown;
    number_neighbors: unknown;
  }>`
    select date, org_id, number_asn_links, number_neighbors from organizations order by date, org_id`.execute(
    handle.db,
  );
  expect(
    counts.rows.map((row) => [
      row.date,
      row.org_id,
      Number(row.number_asn_links),
      Number(row.number_neighbors),
    ]),
  ).toEqual([
    // 1-3, 1-5, 2-3 and 2-4; AS5 has no ASN row, so it is no neighbour.
    ['2024-01-01', 'ORG-A', 4, 2],
    ['2024-01-01', 'ORG-B', 3, 3],
    ['2024-01-01', 'ORG-C', 0, 0],
    ['2024-02-01', 'ORG-A', 1, 1],
    // AS2 joined ORG-B in February: its link to AS3 is inside ORG-B, so ORG-B's one link is 2-1.
    ['2024-02-01', 'ORG-B', 1, 1],
  ]);
}

/**
 * Migrates `handle`, at 019, to the latest with two months of ASNs and links (each link once per direction, as loads
 * write them), and checks that 020 counted each ASN's links of each month, 0 for an ASN without links; a link whose
 * end has no ASN row is counted for the end that has one.
 */
async function expectAsnLinkCountsFilled(handle: DatabaseHandle): Promise<void> {
  const { error } = await migrator(handle.db, handle.dialect).migrateTo('019_dataset_listed_totals');
  expect(error).toBeUndefined();
  await sql`insert into asns (date, asn) values
    ('2024-01-01', 1), ('2024-01-01', 2), ('2024-01-01', 3), ('2024-01-01', 4),
    ('2024-02-01', 1), ('2024-02-01', 2)`.execute(handle.db);
  // January: 1-2, 1-3, 1-5 (AS5 has no row), 2-3; AS4 has none. February: 1-2.
  const pairs: [string, number, number][] = [
    ['2024-01-01', 1, 2],
    ['2024-01-01', 1, 3],
    ['2024-01-01', 1, 5],
    ['2024-01-01', 2, 3],
    ['2024-02-01', 1, 2],
  ];
  await insertPeerLinks(handle, pairs);
  await migrateToLatest(handle.db, handle.dialect);
  const counts = await sql<{ date: string; asn: unknown; number_asn_links: unknown }>`
    select date, asn, number_asn_links from asns order by date, asn`.execute(handle.db);
  expect(counts.rows.map((row) => [row.date, Number(row.asn), Number(row.number_asn_links)])).toEqual([
    ['2024-01-01', 1, 3],
    ['2024-01-01', 2, 2],
    ['2024-01-01', 3, 2],
    ['2024-01-01', 4, 0],
    ['2024-02-01', 1, 1],
    ['2024-02-01', 2, 1],
  ]);
}

/**
 * Migrates `handle`, at 020, to the latest with two months of ASNs and cones, and checks that 021 counted each ASN's
 * cone members of each month: 0 for an ASN without a cone, and the members, not cone_asns (which CAIDA's files may
 * understate), for one with.
 */
async function expectConeMemberCountsFilled(handle: DatabaseHandle): Promise<void> {
  const { error } = await migrator(handle.db, handle.dialect).migrateTo('020_asn_link_counts');
  expect(error).toBeUndefined();
  await sql`insert into asns (date, asn, cone_asns) values
    ('2024-01-01', 1, 1), ('2024-01-01', 2, 1), ('2024-01-01', 3, 0),
    ('2024-02-01', 1, 2)`.execute(handle.db);
  // January: AS1's cone is 1, 2, 4 (AS4 has no row); AS2's is itself; AS3 has none. February: AS1 and AS2.
  const members: [string, number, number][] = [
    ['2024-01-01', 1, 1],
    ['2024-01-01', 1, 2],
    ['2024-01-01', 1, 4],
    ['2024-01-01', 2, 2],
    ['2024-02-01', 1, 1],
    ['2024-02-01', 1, 2],
  ];
  for (const [date, asn, member] of members)
    await sql`insert into cone_members (date, asn, member_asn) values (${date}, ${asn}, ${member})`.execute(
      handle.db,
    );
  await migrateToLatest(handle.db, handle.dialect);
  const counts = await sql<{ date: string; asn: unknown; number_cone_members: unknown }>`
    select date, asn, number_cone_members from asns order by date, asn`.execute(handle.db);
  expect(counts.rows.map((row) => [row.date, Number(row.asn), Number(row.number_cone_members)])).toEqual([
    ['2024-01-01', 1, 3],
    ['2024-01-01', 2, 1],
    ['2024-01-01', 3, 0],
    ['2024-02-01', 1, 2],
  ]);
}

/**
 * Migrates `handle`, at 021, to the latest with two months of ASNs and links of every relationship (each link once per
 * direction, its reverse seen from the other end), and checks that 022 counted each ASN's links of each month by
 * relationship, 0 for an ASN without links; a link whose end has no ASN row is counted for the end that has one; and
 * that 024 counted each ASN's canonical links on SQLite.
 */
async function expectRelationshipLinkCountsFilled(handle: DatabaseHandle): Promise<void> {
  const { error } = await migrator(handle.db, handle.dialect).migrateTo('021_cone_member_counts');
  expect(error).toBeUndefined();
  await sql`insert into asns (date, asn) values
    ('2024-01-01', 1), ('2024-01-01', 2), ('2024-01-01', 3), ('2024-01-01', 4),
    ('2024-02-01', 1), ('2024-02-01', 2)`.execute(handle.db);
  // Each link as asn0 sees it, then as asn1 does. January: AS2 and AS3 are AS1's customers, AS5 (no row) its peer,
  // AS2 and AS3 siblings; AS4 has none. February: AS1 is AS2's customer.
  const links: [string, number, number, string, string][] = [
    ['2024-01-01', 1, 2, 'customer', 'provider'],
    ['2024-01-01', 1, 3, 'customer', 'provider'],
    ['2024-01-01', 1, 5, 'peer', 'peer'],
    ['2024-01-01', 2, 3, 'sibling', 'sibling'],
    ['2024-02-01', 2, 1, 'customer', 'provider'],
  ];
  for (const [date, asn0, asn1, relationship, reverse] of links)
    await sql`insert into asn_links (date, asn0, asn1, relationship, canonical) values
      (${date}, ${asn0}, ${asn1}, ${relationship}, ${asn0 < asn1 ? 1 : 0}),
      (${date}, ${asn1}, ${asn0}, ${reverse}, ${asn0 < asn1 ? 0 : 1})`.execute(handle.db);
  await migrateToLatest(handle.db, handle.dialect);
  const counts = await sql<Record<string, unknown>>`
    select date, asn, number_customer_links, number_peer_links, number_provider_links, number_sibling_links
    from asns order by date, asn`.execute(handle.db);
  const counted = counts.rows.map((row) => {
    const { date, asn, ...links } = row;
    return [date, Number(asn), ...Object.values(links).map(Number)];
  });
  expect(counted).toEqual([
    // customer, peer, provider, sibling
    ['2024-01-01', 1, 2, 1, 0, 0],
    ['2024-01-01', 2, 0, 0, 1, 1],
    ['2024-01-01', 3, 0, 0, 1, 1],
    ['2024-01-01', 4, 0, 0, 0, 0],
    ['2024-02-01', 1, 0, 0, 1, 0],
    ['2024-02-01', 2, 1, 0, 0, 0],
  ]);
  // 024: on SQLite each ASN's canonical links (its rows with asn0 = asn < asn1), 0 for one whose every link goes to a
  // lesser ASN; on PostgreSQL none counted (no reader there, and the update scattered each month's rows).
  const canonical = await sql<Record<string, unknown>>`
    select date, asn, number_canonical_links from asns order by date, asn`.execute(handle.db);
  const countedHere = handle.dialect === 'sqlite';
  expect(
    canonical.rows.map((row) => [row.date, Number(row.asn), Number(row.number_canonical_links)]),
  ).toEqual([
    ['2024-01-01', 1, countedHere ? 3 : 0],
    ['2024-01-01', 2, countedHere ? 1 : 0],
    ['2024-01-01', 3, 0],
    ['2024-01-01', 4, 0],
    ['2024-02-01', 1, countedHere ? 1 : 0],
    ['2024-02-01', 2, 0],
  ]);
}

/**
 * Migrates `handle`, at 018, to the latest with two months of ASNs, organizations and links (each once per direction,
 * as loads write them) and a month with none, and checks that 019 counted each month's lists as the API lists them,
 * and 023 the parts of its links.
 */
async function expectListedTotalsCounted(handle: DatabaseHandle): Promise<void> {
  const { error } = await migrator(handle.db, handle.dialect).migrateTo('018_source_desc_index');
  expect(error).toBeUndefined();
  await sql`insert into datasets (date, dataset_id, modified_at, number_asns, number_links) values
    ('2024-01-01', 'a', '', 99, 99), ('2024-02-01', 'b', '', 99, 99), ('2024-03-01', 'c', '', 0, 0)`.execute(
    handle.db,
  );
  await sql`insert into asns (date, asn, seen) values
    ('2024-01-01', 1, 1), ('2024-01-01', 2, 1), ('2024-01-01', 3, 0), ('2024-02-01', 1, 0)`.execute(
    handle.db,
  );
  await sql`insert into organizations (date, org_id, seen) values
    ('2024-01-01', 'ORG-A', 1), ('2024-02-01', 'ORG-A', 1), ('2024-02-01', 'ORG-B', 0)`.execute(handle.db);
  await sql`insert into asn_links (date, asn0, asn1, relationship, canonical, number_paths, corrected_by) values
    ('2024-01-01', 1, 2, 'peer', 1, 7, null), ('2024-01-01', 2, 1, 'peer', 0, 7, null),
    ('2024-01-01', 1, 3, 'customer', 1, null, 1), ('2024-01-01', 3, 1, 'provider', 0, null, 1),
    ('2024-01-01', 2, 3, 'provider', 1, 4, 2), ('2024-01-01', 3, 2, 'customer', 0, 4, 2)`.execute(handle.db);
  await migrateToLatest(handle.db, handle.dialect);
  const totals = await sql<
    Record<string, unknown>
  >`select date, listed_asns, listed_asns_seen, listed_organizations,
    listed_organizations_seen, listed_links from datasets order by date`.execute(handle.db);
  expect(
    totals.rows.map((row) => Object.values(row).map((value, index) => (index === 0 ? value : Number(value)))),
  ).toEqual([
    ['2024-01-01', 3, 2, 1, 1, 3],
    ['2024-02-01', 1, 0, 2, 1, 0],
    ['2024-03-01', 0, 0, 0, 0, 0],
  ]);
  // 023: the parts of each month's links, on their canonical rows (a reversed row's relationship is the other end's).
  const parts = await sql<Record<string, unknown>>`select date, listed_links_customer, listed_links_peer,
    listed_links_provider, listed_links_sibling, listed_links_with_paths, listed_links_corrected
    from datasets order by date`.execute(handle.db);
  expect(
    parts.rows.map((row) => Object.values(row).map((value, index) => (index === 0 ? value : Number(value)))),
  ).toEqual([
    ['2024-01-01', 1, 1, 1, 0, 2, 2],
    ['2024-02-01', 0, 0, 0, 0, 0, 0],
    ['2024-03-01', 0, 0, 0, 0, 0, 0],
  ]);
}

describe('parseDatabaseUrl', () => {
  it('treats paths and sqlite: URLs as SQLite files and postgres URLs as PostgreSQL', () => {
    expect(parseDatabaseUrl('data/x.db')).toEqual({ dialect: 'sqlite', target: path.resolve('data/x.db') });
    expect(parseDatabaseUrl('sqlite:/tmp/a.db')).toEqual({ dialect: 'sqlite', target: '/tmp/a.db' });
    expect(parseDatabaseUrl('postgresql://u@h/db').dialect).toBe('postgres');
    expect(parseDatabaseUrl('postgres://u@h/db').dialect).toBe('postgres');
  });
  it('rejects unknown schemes and empty values with a clear message', () => {
    expect(() => parseDatabaseUrl('mysql://u:secret@h/db')).toThrow(
      /scheme not supported: mysql:\/\/u:\*\*\*@h\/db/,
    );
    expect(() => parseDatabaseUrl('  ')).toThrow(/DATABASE_URL is empty/);
  });
});

describe('migrations on a real SQLite file', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asrank-db-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /**
   * A store at `migration` holding `rows` (inserted by `insert`), as a store loaded before a later migration is
   * found: the caller then migrates it in place.
   */
  async function storeAt(
    name: string,
    migration: string,
    insert: string,
    rows: readonly unknown[][],
  ): Promise<DatabaseHandle> {
    const handle = openDatabase(path.join(dir, name));
    const { error } = await migrator(handle.db, handle.dialect).migrateTo(migration);
    expect(error).toBeUndefined();
    const statement = handle.sqlite!.prepare(insert);
    for (const row of rows) statement.run(...row);
    return handle;
  }

  it('creates every table, is idempotent, and leaves nothing pending', async () => {
    const file = path.join(dir, 'a.db');
    const handle = openDatabase(file);
    try {
      expect(await pendingMigrations(handle.db, handle.dialect)).toEqual([
        '001_initial',
        '002_query_indexes',
        '003_descending_sort_indexes',
        '004_rank_key_indexes',
        '005_neighbour_rank_index',
        '006_name_search',
        '007_seen_rank_indexes',
        '008_location_population_desc',
        '009_postgres_byte_order_text',
        '010_link_sort_indexes',
        '011_asn_history_index',
        '012_asn_organization_copy',
        '013_list_order_covering',
        '014_postgres_month_name_search',
        '015_asn_summary_index',
        '016_search_text_separator',
        '017_organization_link_counts',
        '018_source_desc_index',
        '019_dataset_listed_totals',
        '020_asn_link_counts',
        '021_cone_member_counts',
        '022_asn_relationship_link_counts',
        '023_dataset_link_part_totals',
        '024_asn_canonical_link_counts',
      ]);
      await migrateToLatest(handle.db, handle.dialect);
      await migrateToLatest(handle.db, handle.dialect);
      expect(await pendingMigrations(handle.db, handle.dialect)).toEqual([]);
      expect(await tableNames(handle)).toEqual(expect.arrayContaining(expectedTables));
      const version = await handle.db
        .selectFrom('meta')
        .select('value')
        .where('key', '=', 'data_version')
        .executeTakeFirst();
      expect(version?.value).toBe('0');
      const journal = handle.sqlite!.pragma('journal_mode', { simple: true });
      expect(journal).toBe('wal');
    } finally {
      await handle.close();
    }
  });

  it('serves every sort key of one month from an index (no temporary b-tree for the order)', async () => {
    const handle = openDatabase(path.join(dir, 'plans.db'));
    try {
      await migrateToLatest(handle.db, handle.dialect);
      const plan = (query: string): string =>
        (handle.sqlite!.prepare(`explain query plan ${query}`).all('2024-01-01') as { detail: string }[])
          .map((r) => r.detail)
          .join('; ');
      for (const column of ['cone_asns', 'degree_transit', 'asn_name', 'source']) {
        const detail = plan(
          `select asn from asns where date = ? order by ${column} desc, asn desc limit 40 offset 80`,
        );
        expect(detail).toContain(`asns_date_${column}`);
        expect(detail).not.toContain('TEMP B-TREE');
      }
      const links = plan(
        'select asn0, asn1 from asn_links where date = ? and canonical = 1 order by number_paths desc, asn0 desc, asn1 desc limit 40',
      );
      expect(links).toContain('asn_links_date_canonical_number_paths');
      expect(links).not.toContain('TEMP B-TREE');
    } finally {
      await handle.close();
    }
  });

  it('creates a (date, column DESC, key) index for every numeric sort column of asns and organizations', async () => {
    const handle = openDatabase(path.join(dir, 'desc.db'));
    try {
      await migrateToLatest(handle.db, handle.dialect);
      const sqlite = handle.sqlite!;
      for (const [table, key, columns] of [
        ['asns', 'asn', ASN_NUMERIC_SORT_COLUMNS],
        ['organizations', 'org_id', ORG_NUMERIC_SORT_COLUMNS],
      ] as const) {
        for (const column of columns) {
          const info = sqlite.prepare(`pragma index_xinfo('${table}_date_${column}_desc')`).all() as {
            name: string | null;
            desc: number;
            key: number;
          }[];
          // Its key leads; 013 has the customer cone's index carry more columns after it.
          expect(
            info
              .filter((c) => c.key === 1)
              .map((c) => [c.name, c.desc])
              .slice(0, 3),
          ).toEqual([
            ['date', 0],
            [column, 1],
            [key, 0],
          ]);
        }
      }
      const provider = sqlite.prepare(`pragma index_info('asns_date_degree_provider')`).all() as {
        name: string;
      }[];
      expect(provider.map((c) => c.name)).toEqual(['date', 'degree_provider', 'asn']);
    } finally {
      await handle.close();
    }
  });

  it("replaces (asn, date) with an index carrying every column of an AS's record but search_text", async () => {
    const handle = await storeAt(
      'history.db',
      '010_link_sort_indexes',
      `insert into asns (date, asn, asn_name, rank, cone_asns, search_text) values (?, ?, ?, ?, ?, ?)`,
      ['2024-01-01', '2024-02-01', '2024-03-01'].flatMap((date) =>
        numbersTo(50).map((asn) => [date, asn, `AS${asn}`, asn, 51 - asn, `as${asn}`]),
      ),
    );
    try {
      const sqlite = handle.sqlite!;
      expect(sqlite.prepare(`pragma index_info('asns_asn_date')`).all()).toHaveLength(2);
      await migrateToLatest(handle.db, handle.dialect);
      expect(sqlite.prepare(`pragma index_info('asns_asn_date')`).all()).toEqual([]);
      const indexed = (
        sqlite.prepare(`pragma index_info('${ASN_HISTORY_INDEX}')`).all() as { name: string }[]
      ).map((column) => column.name);
      expect(indexed).toEqual(['asn', 'date', ...ASN_HISTORY_COLUMNS]);
      // Every column of the table but search_text, the organization's copies (012), the link counts (020, 022, 024) and
      // the cone's member count (021), which an AS's history does not read: a column added to asns later must be added
      // here too.
      const tableColumns = (sqlite.prepare(`pragma table_info('asns')`).all() as { name: string }[]).map(
        (column) => column.name,
      );
      const notIndexed = [
        'search_text',
        ...Object.keys(ASN_ORGANIZATION_COPY),
        'number_asn_links',
        'number_cone_members',
        ...Object.values(ASN_RELATIONSHIP_LINK_COUNTS),
        'number_canonical_links',
      ];
      expect([...indexed].sort()).toEqual(tableColumns.filter((name) => !notIndexed.includes(name)).sort());
      // Two ASNs' history over a range of months is one range of the index per ASN, read from the index alone.
      const history = `select asn, date, asn_name, rank, cone_asns from asns
        where asn in (select value from json_each(?)) and date >= ? and date <= ? order by +date, +asn`;
      const detail = (
        sqlite.prepare(`explain query plan ${history}`).all('[7,9]', '2024-01-01', '2024-02-01') as {
          detail: string;
        }[]
      ).map((row) => row.detail);
      expect(detail.join('; ')).toContain(
        `USING COVERING INDEX ${ASN_HISTORY_INDEX} (asn=? AND date>? AND date<?)`,
      );
      expect(sqlite.prepare(history).all('[7,9]', '2024-01-01', '2024-02-01')).toEqual([
        { asn: 7, date: '2024-01-01', asn_name: 'AS7', rank: 7, cone_asns: 44 },
        { asn: 9, date: '2024-01-01', asn_name: 'AS9', rank: 9, cone_asns: 42 },
        { asn: 7, date: '2024-02-01', asn_name: 'AS7', rank: 7, cone_asns: 44 },
        { asn: 9, date: '2024-02-01', asn_name: 'AS9', rank: 9, cone_asns: 42 },
      ]);
    } finally {
      await handle.close();
    }
  });

  it("copies each ASN's organization name and rank of the month into the months already loaded", async () => {
    const handle = openDatabase(path.join(dir, 'copies.db'));
    try {
      await expectOrganizationCopiesFilled(handle);
    } finally {
      await handle.close();
    }
  });

  it("counts each organization's links and neighbours of the months already loaded", async () => {
    const handle = openDatabase(path.join(dir, 'link-counts.db'));
    try {
      await expectLinkCountsFilled(handle);
    } finally {
      await handle.close();
    }
  });

  it("counts each month's lists of the months already loaded", async () => {
    const handle = openDatabase(path.join(dir, 'listed-totals.db'));
    try {
      await expectListedTotalsCounted(handle);
    } finally {
      await handle.close();
    }
  });

  it("counts each ASN's links of the months already loaded", async () => {
    const handle = openDatabase(path.join(dir, 'asn-link-counts.db'));
    try {
      await expectAsnLinkCountsFilled(handle);
    } finally {
      await handle.close();
    }
  });

  it("counts each ASN's cone members of the months already loaded", async () => {
    const handle = openDatabase(path.join(dir, 'cone-member-counts.db'));
    try {
      await expectConeMemberCountsFilled(handle);
    } finally {
      await handle.close();
    }
  });

  it("counts each ASN's links by relationship of the months already loaded", async () => {
    const handle = openDatabase(path.join(dir, 'relationship-link-counts.db'));
    try {
      await expectRelationshipLinkCountsFilled(handle);
    } finally {
      await handle.close();
    }
  });

  it('rewrites the search texts of the months already loaded with the separator, and rebuilds their trigram indexes', async () => {
    const handle = openDatabase(path.join(dir, 'search-text.db'));
    try {
      await expectSearchTextsSeparated(handle);
      // The trigram index of February holds the rewritten text (its rows are what a name search reads first).
      const indexed = handle
        .sqlite!.prepare(
          `select search_text from asns_name_search_20240201 where asns_name_search_20240201 match ?`,
        )
        .pluck()
        .all('"ülsel"');
      expect(indexed).toEqual([searchText('ÉCOLE-NET', 'Ülsel')]);
    } finally {
      await handle.close();
    }
  });

  it("makes the rank and customer-cone orders' indexes carry a ranking table's columns, and pages read them alone", async () => {
    const handle = await storeAt(
      'list-orders.db',
      '012_asn_organization_copy',
      `insert into asns (date, asn, asn_name, org_id, org_name, country_iso, rank, cone_asns)
       values (?, ?, ?, ?, ?, ?, ?, ?)`,
      numbersTo(40).map((asn) => [
        '2024-01-01',
        asn,
        `AS${asn}`,
        `O${asn % 3}`,
        `Org ${asn % 3}`,
        'NZ',
        asn,
        41 - asn,
      ]),
    );
    try {
      const sqlite = handle.sqlite!;
      await migrateToLatest(handle.db, handle.dialect);
      for (const index of LIST_ORDER_INDEXES) {
        const columns = (
          sqlite.prepare(`pragma index_xinfo('${index.name}')`).all() as {
            name: string;
            desc: number;
            key: number;
          }[]
        )
          .filter((column) => column.key === 1)
          .map((column) => (column.desc ? `${column.name} desc` : column.name));
        expect(columns).toEqual([...index.keys, index.carried, ...LIST_ORDER_CARRIED_COLUMNS]);
      }
      // A page of either order that shows only those columns reads the index, not the table.
      const pages = {
        asns_date_rank_asn: `select asn, asn_name, org_id, org_name, rank, cone_asns from asns
          where date = ? and rank is not null order by rank, asn limit 5 offset 3`,
        asns_date_cone_asns_desc: `select asn, asn_name, org_id, org_name, rank, cone_asns from asns
          where date = ? order by cone_asns desc, asn limit 5 offset 3`,
      };
      for (const [index, page] of Object.entries(pages)) {
        const detail = (
          sqlite.prepare(`explain query plan ${page}`).all('2024-01-01') as { detail: string }[]
        )
          .map((row) => row.detail)
          .join('; ');
        expect(detail).toMatch(
          new RegExp(`^SEARCH asns USING COVERING INDEX ${index} \\(date=\\?( AND rank>\\?)?\\)$`),
        );
        expect((sqlite.prepare(page).all('2024-01-01') as { asn: number }[]).map((row) => row.asn)).toEqual([
          4, 5, 6, 7, 8,
        ]);
      }
    } finally {
      await handle.close();
    }
  });

  it("indexes one month's records by key with a ranking table's columns, which a neighbour's lookup reads alone", async () => {
    const handle = await storeAt(
      'summary.db',
      '014_postgres_month_name_search',
      `insert into asns (date, asn, asn_name, org_id, org_name, rank, cone_asns, degree_total)
       values (?, ?, ?, ?, ?, ?, ?, ?)`,
      ['2024-01-01', '2024-02-01'].flatMap((date) =>
        numbersTo(40).map((asn) => [
          date,
          asn,
          `AS${asn} ${date}`,
          `O${asn % 3}`,
          `Org ${asn % 3}`,
          asn,
          41 - asn,
          asn % 5,
        ]),
      ),
    );
    try {
      const sqlite = handle.sqlite!;
      await migrateToLatest(handle.db, handle.dialect);
      const keyColumns = (
        sqlite.prepare(`pragma index_xinfo('${ASN_SUMMARY_INDEX}')`).all() as { name: string; key: number }[]
      )
        .filter((column) => column.key === 1)
        .map((column) => column.name);
      expect(keyColumns).toEqual(['date', 'asn', ...ASN_SUMMARY_COLUMNS]);
      const lookup = (columns: string) =>
        `select ${columns} from asns indexed by ${ASN_SUMMARY_INDEX} where date = ? and asn = ?`;
      const plan = (text: string) =>
        (sqlite.prepare(`explain query plan ${text}`).all('2024-02-01', 7) as { detail: string }[])
          .map((row) => row.detail)
          .join('; ');
      expect(plan(lookup('asn_name, rank, cone_asns, org_name'))).toBe(
        `SEARCH asns USING COVERING INDEX ${ASN_SUMMARY_INDEX} (date=? AND asn=?)`,
      );
      expect(sqlite.prepare(lookup('asn_name, rank, cone_asns, org_name')).get('2024-02-01', 7)).toEqual({
        asn_name: 'AS7 2024-02-01',
        rank: 7,
        cone_asns: 34,
        org_name: 'Org 1',
      });
      // A column it does not carry makes the same lookup read the table's row as well.
      expect(plan(lookup('asn_name, degree_total'))).toBe(
        `SEARCH asns USING INDEX ${ASN_SUMMARY_INDEX} (date=? AND asn=?)`,
      );
    } finally {
      await handle.close();
    }
  });

  it('opens read-only connections that refuse writes', async () => {
    const file = path.join(dir, 'ro.db');
    const writer = openDatabase(file);
    await migrateToLatest(writer.db, writer.dialect);
    await writer.close();
    const reader = openDatabase(file, { readonly: true });
    try {
      // better-sqlite3's native part builds its errors with the SqliteError class of the first test file that loaded
      // it in this jest worker; seen from another file's realm that object is not an Error, so toThrow() reports
      // "did not throw" (it did). Compare the error's fields instead.
      const failure = await sql`insert into meta (key, value) values ('x', 'y')`.execute(reader.db).then(
        () => 'no error',
        (error: unknown) => error,
      );
      expect(failure).toMatchObject({ code: 'SQLITE_READONLY', message: expect.stringMatching(/readonly/) });
    } finally {
      await reader.close();
    }
  });
});

(PG_URL ? describe : describe.skip)('migrations on a real PostgreSQL server', () => {
  const schema = `mig_${process.pid}_${Date.now()}`;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    const admin = openDatabase(PG_URL!);
    await sql`create schema ${sql.id(schema)}`.execute(admin.db);
    await admin.close();
    const url = new URL(PG_URL!);
    url.searchParams.set('options', `-c search_path=${schema}`);
    handle = openDatabase(url.toString());
  });
  afterAll(async () => {
    await sql`drop schema ${sql.id(schema)} cascade`.execute(handle.db);
    await handle.close();
  });

  it('creates every table and leaves nothing pending', async () => {
    await migrateToLatest(handle.db, handle.dialect);
    expect(await pendingMigrations(handle.db, handle.dialect)).toEqual([]);
    const tables = await handle.db.introspection.getTables();
    const inSchema = tables.filter((t) => t.schema === schema).map((t) => t.name);
    expect(inSchema).toEqual(expect.arrayContaining(expectedTables));
    const indexes = await sql<{ indexname: string; indexdef: string }>`
      select indexname, indexdef from pg_indexes where schemaname = ${schema} and indexname like '%\_desc'`.execute(
      handle.db,
    );
    const definitions = new Map(indexes.rows.map((r) => [r.indexname, r.indexdef]));
    for (const column of ASN_NUMERIC_SORT_COLUMNS)
      expect(definitions.get(`asns_date_${column}_desc`)).toMatch(
        new RegExp(`\\(date, ${column} DESC, asn\\)`),
      );
    for (const column of ORG_NUMERIC_SORT_COLUMNS)
      expect(definitions.get(`organizations_date_${column}_desc`)).toMatch(
        new RegExp(`\\(date, ${column} DESC, org_id\\)`),
      );
    // The API's text orders are byte-wise: the columns they sort by are declared "C", so their indexes serve them.
    const collations = await sql<{ table_name: string; column_name: string; collation_name: string | null }>`
      select table_name, column_name, collation_name from information_schema.columns
      where table_schema = ${schema} and data_type = 'text'`.execute(handle.db);
    const collationOf = new Map(
      collations.rows.map((r) => [`${r.table_name}.${r.column_name}`, r.collation_name]),
    );
    for (const [table, columns] of Object.entries(BYTE_ORDER_TEXT_COLUMNS))
      for (const column of columns)
        expect([`${table}.${column}`, collationOf.get(`${table}.${column}`)]).toEqual([
          `${table}.${column}`,
          'C',
        ]);
    expect(collationOf.get('asns.date')).toBeNull();
    const linkIndexes = await sql<{ indexname: string; indexdef: string }>`
      select indexname, indexdef from pg_indexes where schemaname = ${schema} and tablename = 'asn_links'`.execute(
      handle.db,
    );
    const linkDefinitions = new Map(linkIndexes.rows.map((r) => [r.indexname, r.indexdef]));
    expect(linkDefinitions.get(LINK_SORT_INDEXES.numberPathsDesc)).toMatch(
      /\(date, canonical, number_paths DESC NULLS LAST, asn0, asn1\)/,
    );
    expect(linkDefinitions.get(LINK_SORT_INDEXES.rankPair)).toMatch(/\(date, canonical, rank, asn0, asn1\)/);
    expect(linkDefinitions.has('asn_links_date_canonical_rank')).toBe(false);
    const asnIndexes = await sql<{ indexname: string; indexdef: string }>`
      select indexname, indexdef from pg_indexes where schemaname = ${schema} and tablename = 'asns'`.execute(
      handle.db,
    );
    const asnDefinitions = new Map(asnIndexes.rows.map((r) => [r.indexname, r.indexdef]));
    expect(asnDefinitions.get(ASN_HISTORY_INDEX)).toMatch(
      new RegExp(`\\(asn, date\\) INCLUDE \\(${ASN_HISTORY_COLUMNS.join(', ')}\\)`),
    );
    expect(asnDefinitions.has('asns_asn_date')).toBe(false);
    for (const index of LIST_ORDER_INDEXES)
      expect(asnDefinitions.get(index.name)).toMatch(
        new RegExp(
          `\\(${index.keys.map((key) => key.replace(' desc', ' DESC')).join(', ')}\\) INCLUDE \\(${[index.carried, ...LIST_ORDER_CARRIED_COLUMNS].join(', ')}\\)`,
        ),
      ); // SQLite's index of one month's records with a ranking table's columns: PostgreSQL reads them from 011's alone.
    expect(asnDefinitions.has(ASN_SUMMARY_INDEX)).toBe(false);
  });

  /**
   * Runs `check` on a database of its own, dropped after: Kysely's migrator looks for its tables in every schema, so
   * one in this suite's schema would hide that a second schema has none.
   */
  async function inOwnDatabase(suffix: string, check: (own: DatabaseHandle) => Promise<void>): Promise<void> {
    const name = `mig_${process.pid}_${Date.now()}_${suffix}`;
    await sql`create database ${sql.id(name)}`.execute(handle.db);
    const url = new URL(PG_URL!);
    url.pathname = `/${name}`;
    const own = openDatabase(url.toString());
    try {
      await check(own);
    } finally {
      await own.close();
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(handle.db);
    }
  }

  it('rewrites the search texts of the months already loaded with the separator', async () => {
    await inOwnDatabase('search_text', expectSearchTextsSeparated);
  });

  it("counts each organization's links and neighbours of the months already loaded", async () => {
    await inOwnDatabase('link_counts', expectLinkCountsFilled);
  });

  it("counts each month's lists of the months already loaded", async () => {
    await inOwnDatabase('listed_totals', expectListedTotalsCounted);
  });

  it("counts each ASN's links of the months already loaded", async () => {
    await inOwnDatabase('asn_link_counts', expectAsnLinkCountsFilled);
  });

  it("counts each ASN's cone members of the months already loaded", async () => {
    await inOwnDatabase('cone_member_counts', expectConeMemberCountsFilled);
  });

  it("counts each ASN's links by relationship of the months already loaded", async () => {
    await inOwnDatabase('relationship_link_counts', expectRelationshipLinkCountsFilled);
  });

  it("copies each ASN's organization name and rank of the month, byte-ordered as the original", async () => {
    await inOwnDatabase('copies', async (copiesHandle) => {
      await expectOrganizationCopiesFilled(copiesHandle);
      const collation = await sql<{ collation_name: string | null }>`
        select collation_name from information_schema.columns
        where table_name = 'asns' and column_name = 'org_name'`.execute(copiesHandle.db);
      expect(collation.rows).toEqual([{ collation_name: 'C' }]);
    });
  });

  it('gives every loaded month a trigram index of its own, which a search of that month reads', async () => {
    await inOwnDatabase('name_search', async (own) => {
      const { error } = await migrator(own.db, own.dialect).migrateTo('013_list_order_covering');
      expect(error).toBeUndefined();
      // Enough ASNs a month that a search reads an index rather than the month's rows; one name differs per month.
      await sql`insert into asns (date, asn, asn_name, search_text)
        select date, asn, 'AS-' || asn, 'as-' || asn from (values ('2024-01-01'), ('2024-02-01')) as months (date),
          generate_series(2, 20000) as asn`.execute(own.db);
      await sql`insert into asns (date, asn, asn_name, search_text) values
        ('2024-01-01', 1, 'ALPHA-NET', 'alpha-net'), ('2024-02-01', 1, 'ALPHA-RENAMED', 'alpha-renamed')`.execute(
        own.db,
      );
      await sql`insert into organizations (date, org_id, org_name, search_text) values
        ('2024-02-01', 'ORG-A', 'Alpha', 'alpha')`.execute(own.db);
      await migrateToLatest(own.db, own.dialect);
      const indexes = await sql<{ indexname: string; indexdef: string }>`
        select indexname, indexdef from pg_indexes where indexname like '%name_search%' order by indexname`.execute(
        own.db,
      );
      // Both tables get an index for every month either holds.
      expect(indexes.rows.map((row) => [row.indexname, row.indexdef.replace(/^.* USING /, '')])).toEqual(
        ['asns', 'organizations'].flatMap((table) =>
          ['2024-01-01', '2024-02-01'].map((date) => [
            `${table}_name_search_${date.replaceAll('-', '')}`,
            `gin (search_text gin_trgm_ops) WHERE (date = '${date}'::text)`,
          ]),
        ),
      );
      await sql`analyze asns`.execute(own.db);
      const plan = await sql<{ 'QUERY PLAN': string }>`explain select count(*) from asns
        where date = ${'2024-02-01'} and search_text like ${'%renamed%'}`.execute(own.db);
      const planText = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(planText).toContain('asns_name_search_20240201');
      expect(planText).not.toContain('asns_search_trgm');
    });
  });

  it('migrates two databases at once, each with its trigram search index, pg_trgm in public', async () => {
    const names = [1, 2].map((i) => `mig_${process.pid}_${Date.now()}_${i}`);
    for (const name of names) await sql`create database ${sql.id(name)}`.execute(handle.db);
    const handles = names.map((name) => {
      const url = new URL(PG_URL!);
      url.pathname = `/${name}`;
      return openDatabase(url.toString());
    });
    try {
      await Promise.all(handles.map((h) => migrateToLatest(h.db, h.dialect)));
      for (const h of handles) {
        const indexes = await sql<{ indexname: string }>`
          select indexname from pg_indexes where indexname in ('asns_search_trgm', 'organizations_search_trgm') order by indexname`.execute(
          h.db,
        );
        expect(indexes.rows.map((r) => r.indexname)).toEqual([
          'asns_search_trgm',
          'organizations_search_trgm',
        ]);
        const extension = await sql<{ schema: string }>`
          select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(
          h.db,
        );
        expect(extension.rows[0]?.schema).toBe('public');
      }
    } finally {
      for (const h of handles) await h.close();
      for (const name of names)
        await sql`drop database if exists ${sql.id(name)} with (force)`.execute(handle.db);
    }
  });
});

if (!PG_URL) {
  console.warn(
    'PostgreSQL migration tests skipped: set DATABASE_URL_PG (the CI script .ci/run always does).',
  );
}
