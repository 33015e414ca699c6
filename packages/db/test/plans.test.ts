// Query plans of the hot list queries on a real SQLite file, without and with planner statistics, the statistics
// step itself on both dialects, and the serving settings of read-only handles.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import {
  SERVING_CACHE_BYTES,
  hasStatistics,
  migrateToLatest,
  openDatabase,
  refreshStatistics,
  type DatabaseHandle,
} from '../src';
import {
  ASN_NUMERIC_SORT_COLUMNS,
  ORG_NUMERIC_SORT_COLUMNS,
} from '../src/migrations/003_descending_sort_indexes';
import { NEIGHBOUR_RANK_INDEX } from '../src/migrations/005_neighbour_rank_index';
import { SEEN_RANK_INDEXES } from '../src/migrations/007_seen_rank_indexes';
import { LOCATION_POPULATION_DESC_INDEX } from '../src/migrations/008_location_population_desc';
import { LINK_SORT_INDEXES } from '../src/migrations/010_link_sort_indexes';
import { ASN_HISTORY_INDEX } from '../src/migrations/011_asn_history_index';
import { SOURCE_DESC_INDEX } from '../src/migrations/018_source_desc_index';

const PG_URL = process.env.DATABASE_URL_PG;
const MONTHS = ['2024-01-01', '2024-02-01', '2024-03-01'];
const ASNS_PER_MONTH = 3000;

/** Three months of ASNs and organizations where most values tie (as cone sizes of 1 do in real data). */
function fillMonths(handle: DatabaseHandle): void {
  const sqlite = handle.sqlite!;
  const asn = sqlite.prepare(
    `insert into asns (date, asn, org_id, rank, seen, source, cone_asns, cone_prefixes, cone_addresses,
       degree_provider, degree_peer, degree_customer, degree_transit, degree_sibling, degree_total)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const org = sqlite.prepare(
    `insert into organizations (date, org_id, rank, seen, cone_asns, cone_prefixes, cone_addresses, degree_provider,
       degree_peer, degree_customer, degree_transit, degree_sibling, degree_total) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  sqlite.transaction(() => {
    for (const date of MONTHS) {
      for (let i = 1; i <= ASNS_PER_MONTH; i += 1) {
        const small = i % 4 !== 0 ? 1 : (i * 7919) % 500;
        const values = [
          small,
          small * 3,
          small * 256,
          i % 3,
          small % 11,
          small % 13,
          small % 5,
          i % 2,
          small % 17,
        ];
        // One ASN in five is unseen (and unranked), as most unseen ASNs of real months are.
        const seen = i % 5 === 0 ? 0 : 1;
        // A handful of sources, as real months have, and one ASN in seven with none.
        const source = i % 7 === 0 ? null : ['APNIC', 'ARIN', 'RIPE'][i % 3];
        asn.run(date, i, `ORG-${i % 1000}`, seen ? i : null, seen, source, ...values);
        if (i <= 1000) org.run(date, `ORG-${i}`, seen ? i : null, seen, ...values);
      }
    }
  })();
}

/**
 * Links of every ASN of the months, ranked: ASN 1 has 2,999 neighbours, as the largest ASes have thousands. Numbers of
 * paths tie in runs of ~60 links, and one link in seven has none.
 */
function fillLinks(handle: DatabaseHandle): void {
  const link = handle.sqlite!.prepare(
    `insert into asn_links (date, asn0, asn1, relationship, canonical, number_paths, rank) values (?, ?, ?, ?, ?, ?, ?)`,
  );
  handle.sqlite!.transaction(() => {
    for (const date of MONTHS) {
      for (let asn = 2; asn <= ASNS_PER_MONTH; asn += 1) {
        const rank = (asn * 7919) % ASNS_PER_MONTH;
        const paths = asn % 7 === 0 ? null : asn % 50;
        link.run(date, 1, asn, 'customer', 1, paths, rank);
        link.run(date, asn, 1, 'provider', 0, paths, rank);
      }
    }
  })();
}

/** Locations of the months: a few with a population, most with 0, some with none. */
function fillLocations(handle: DatabaseHandle): void {
  const location = handle.sqlite!.prepare(
    `insert into locations (date, loc_id, population) values (?, ?, ?)`,
  );
  handle.sqlite!.transaction(() => {
    for (const date of MONTHS)
      for (let i = 1; i <= 800; i += 1)
        location.run(date, `LOC-${String(i).padStart(4, '0')}`, i <= 20 ? i * 1000 : i <= 580 ? 0 : null);
  })();
}

/** One ASN's neighbour page in the default order with the shown columns: one walk of the neighbour index, no sort. */
const NEIGHBOUR_PAGE = `select date, asn0, asn1, rank, relationship, number_paths from asn_links
  where date = ? and asn0 = ? order by rank asc, asn0 asc, asn1 asc limit 500 offset 1000`;

function plan(handle: DatabaseHandle, query: string, ...parameters: unknown[]): string {
  return (handle.sqlite!.prepare(`explain query plan ${query}`).all(...parameters) as { detail: string }[])
    .map((row) => row.detail)
    .join('; ');
}

// The shapes packages/schema issues: the key query of a sorted page (deferred join) and the whole page.
const keyQuery = (table: string, key: string, column: string, direction: 'asc' | 'desc') =>
  `select date, ${key} from ${table} where date = ? order by ${column} ${direction}, ${key} asc limit 100 offset 1500`;
const pageQuery = (table: string, key: string, column: string, direction: 'asc' | 'desc') =>
  `select * from ${table} where (date, ${key}) in (${keyQuery(table, key, column, direction)})
   order by +${column} ${direction}, +${key} asc`;

function expectSortedPagesFromIndexes(handle: DatabaseHandle): void {
  for (const [table, key, columns] of [
    ['asns', 'asn', ASN_NUMERIC_SORT_COLUMNS],
    ['organizations', 'org_id', ORG_NUMERIC_SORT_COLUMNS],
  ] as const) {
    for (const column of columns) {
      const descending = plan(handle, keyQuery(table, key, column, 'desc'), MONTHS[2]);
      expect(descending).toContain(`USING COVERING INDEX ${table}_date_${column}_desc`);
      expect(descending).not.toContain('TEMP B-TREE');
      const ascending = plan(handle, keyQuery(table, key, column, 'asc'), MONTHS[2]);
      expect(ascending).toContain(`USING COVERING INDEX ${table}_date_${column} `);
      expect(ascending).not.toContain('TEMP B-TREE');
      // The whole page: keys from the index, rows by primary key, and only the page's 100 rows sorted.
      const page = plan(handle, pageQuery(table, key, column, 'desc'), MONTHS[2]);
      expect(page).toContain(`${table}_date_${column}_desc`);
      expect(page).toContain('PRIMARY KEY');
      expect(page).not.toContain('LAST TERM OF ORDER BY');
      expect(page.match(/TEMP B-TREE/g) ?? []).toHaveLength(1);
    }
  }
}

function expectNeighbourPagesFromIndex(handle: DatabaseHandle): void {
  const detail = plan(handle, NEIGHBOUR_PAGE, MONTHS[2], 1);
  expect(detail).toContain(`USING COVERING INDEX ${NEIGHBOUR_RANK_INDEX} (date=? AND asn0=?)`);
  expect(detail).not.toContain('TEMP B-TREE');
  const rows = handle.sqlite!.prepare(NEIGHBOUR_PAGE).all(MONTHS[2], 1) as { rank: number; asn1: number }[];
  expect(rows).toHaveLength(500);
  expect(rows.every((row, index) => index === 0 || rows[index - 1]!.rank <= row.rank)).toBe(true);
}

/**
 * asns(seen:) and organizations(seen:) in the default order: each rank range (ranked, then unranked) and the count is
 * one range of the (date, seen, rank, key) index, not a walk of every ranked row testing `seen`.
 */
function expectSeenPagesFromIndex(handle: DatabaseHandle): void {
  for (const [table, key, index] of [
    ['asns', 'asn', SEEN_RANK_INDEXES.asns],
    ['organizations', 'org_id', SEEN_RANK_INDEXES.organizations],
  ] as const) {
    for (const rank of ['is not null', 'is null']) {
      const keys = `select date, ${key} from ${table} where date = ? and seen = ? and rank ${rank}
        order by rank asc, ${key} asc limit 10 offset 20`;
      const detail = plan(handle, keys, MONTHS[2], 0);
      expect(detail).toContain(`USING COVERING INDEX ${index} (date=? AND seen=?`);
      expect(detail).not.toContain('TEMP B-TREE');
    }
    const count = plan(handle, `select count(*) from ${table} where date = ? and seen = ?`, MONTHS[2], 0);
    expect(count).toContain(`USING COVERING INDEX ${index} (date=? AND seen=?)`);
  }
  const unseen = handle
    .sqlite!.prepare(`select count(*) as n from asns where date = ? and seen = 0`)
    .get(MONTHS[2]) as { n: number };
  expect(unseen.n).toBe(ASNS_PER_MONTH / 5);
}

/**
 * Whether rows follow `value desc nulls last, key asc` (values are non-negative, so -1 stands for null); the
 * descending indexes' tests read pages that cross ties and nulls.
 */
function inDescendingOrder<Row>(
  rows: readonly Row[],
  value: (row: Row) => number | null,
  key: (row: Row) => number | string,
): boolean {
  const rank = (row: Row) => value(row) ?? -1;
  return rows.every(
    (row, index) =>
      index === 0 ||
      rank(rows[index - 1]!) > rank(row) ||
      (rank(rows[index - 1]!) === rank(row) && key(rows[index - 1]!) < key(row)),
  );
}

/**
 * asns(sort:"-source"): one walk of the descending index with its tie-breaker, where a handful of sources tie over
 * thousands of ASNs and some ASNs have none (nulls last), not each source's records sorted again.
 */
function expectAsnsBySourceFromIndex(handle: DatabaseHandle): void {
  const page = `select date, asn, source from asns where date = ? order by source desc nulls last, asn asc
    limit 100 offset 2550`;
  const detail = plan(handle, page, MONTHS[2]);
  expect(detail).toContain(`USING COVERING INDEX ${SOURCE_DESC_INDEX} (date=?)`);
  expect(detail).not.toContain('TEMP B-TREE');
  const rows = handle.sqlite!.prepare(page).all(MONTHS[2]) as { source: string | null; asn: number }[];
  expect(rows).toHaveLength(100);
  // Across the last source's ties (by ASN) into the ASNs without one.
  expect(new Set(rows.map((row) => row.source))).toEqual(new Set(['APNIC', null]));
  const rank = (row: { source: string | null }) => (row.source === null ? '' : row.source);
  expect(
    rows.every(
      (row, index) =>
        index === 0 ||
        rank(rows[index - 1]!) > rank(row) ||
        (rank(rows[index - 1]!) === rank(row) && rows[index - 1]!.asn < row.asn),
    ),
  ).toBe(true);
}

/**
 * locations(sort:"-population"): one walk of the descending index with its tie-breaker, where most locations tie
 * (real months give every location a population of 0) and some have none (nulls last).
 */
function expectLocationsByPopulationFromIndex(handle: DatabaseHandle): void {
  const page = `select * from locations where date = ? order by population desc nulls last, loc_id asc
    limit 100 offset 500`;
  const detail = plan(handle, page, MONTHS[2]);
  expect(detail).toContain(`USING INDEX ${LOCATION_POPULATION_DESC_INDEX} (date=?)`);
  expect(detail).not.toContain('TEMP B-TREE');
  const rows = handle.sqlite!.prepare(page).all(MONTHS[2]) as { population: number | null; loc_id: string }[];
  expect(rows).toHaveLength(100);
  // Past the few populated locations, into the ties of 0 (by loc_id) and then the unknown populations.
  expect(
    inDescendingOrder(
      rows,
      (row) => row.population,
      (row) => row.loc_id,
    ),
  ).toBe(true);
  expect(rows.some((row) => row.population === null)).toBe(true);
}

/**
 * asnLinks(sort:"-numberPaths"), every link of a month once: one walk of the descending index, the pair ascending
 * within each number of paths and links without one last.
 */
function expectLinksByPathsFromIndex(handle: DatabaseHandle): void {
  const keys = `select date, asn0, asn1, number_paths from asn_links where date = ? and canonical = ?
    order by number_paths desc nulls last, asn0 asc, asn1 asc limit 100 offset 2500`;
  const detail = plan(handle, keys, MONTHS[2], 1);
  expect(detail).toContain(
    `USING COVERING INDEX ${LINK_SORT_INDEXES.numberPathsDesc} (date=? AND canonical=?)`,
  );
  expect(detail).not.toContain('TEMP B-TREE');
  const rows = handle.sqlite!.prepare(keys).all(MONTHS[2], 1) as {
    asn1: number;
    number_paths: number | null;
  }[];
  expect(rows).toHaveLength(100);
  // asn0 is the same (1) for every link of the month, so the pair's order is asn1's.
  expect(
    inDescendingOrder(
      rows,
      (row) => row.number_paths,
      (row) => row.asn1,
    ),
  ).toBe(true);
  // The page crosses from the last counted paths into the links without one.
  expect(rows[0]!.number_paths).not.toBeNull();
  expect(rows.at(-1)!.number_paths).toBeNull();
}

/**
 * asns(asns:[...], dateStart, dateEnd), as packages/schema asks it, whatever the statistics say: with pruned columns
 * (an AS's history) one range of the (asn, date, ...) index per ASN, read from the index alone; whole rows (search_text
 * is not in that index) by primary key for each month and ASN. Never a walk of a month index or of the months' table.
 */
function expectHistoricKeyLookups(handle: DatabaseHandle): void {
  const order = 'order by +date asc, +rank asc nulls last, +asn asc';
  const asnList = 'asn in (select value from json_each(?))';
  const pruned = `select asn, date, asn_name, rank, cone_asns, degree_total from asns
    where date >= ? and date <= ? and +date in (select value from json_each(?)) and ${asnList} ${order}`;
  const whole = `select * from asns where date in (select value from json_each(?)) and ${asnList} ${order}`;
  const asns = JSON.stringify([5, 17, 2999]);
  const prunedPlan = plan(handle, pruned, MONTHS[0], MONTHS[2], JSON.stringify(MONTHS), asns);
  expect(prunedPlan).toContain(
    `SEARCH asns USING COVERING INDEX ${ASN_HISTORY_INDEX} (asn=? AND date>? AND date<?)`,
  );
  expect(prunedPlan).not.toContain('asns_date_rank');
  const wholePlan = plan(handle, whole, JSON.stringify(MONTHS), asns);
  expect(wholePlan).toContain('SEARCH asns USING PRIMARY KEY (date=? AND asn=?)');
  expect(wholePlan).not.toContain('asns_date_rank');
  // The two months that both ends and the list name, month by month, ranked first (ASN 5 is unseen, so unranked).
  const rows = handle.sqlite!.prepare(pruned).all(MONTHS[1], MONTHS[2], JSON.stringify(MONTHS), asns) as {
    asn: number;
    date: string;
  }[];
  expect(rows.map((row) => `${row.date}/${row.asn}`)).toEqual(
    MONTHS.slice(1).flatMap((date) => [17, 2999, 5].map((asn) => `${date}/${asn}`)),
  );
}

describe('list plans on a real SQLite file', () => {
  let dir: string;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asrank-plans-'));
    handle = openDatabase(path.join(dir, 'plans.db'));
    await migrateToLatest(handle.db, handle.dialect);
    fillMonths(handle);
    fillLinks(handle);
    fillLocations(handle);
  });
  afterAll(async () => {
    await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('without statistics: sorted pages walk the (date, column [DESC], key) indexes, key lists are key lookups', () => {
    expect(hasStatistics(handle)).toBe(false);
    expectSortedPagesFromIndexes(handle);
    expectHistoricKeyLookups(handle);
    expectNeighbourPagesFromIndex(handle);
    expectSeenPagesFromIndex(handle);
    expectLocationsByPopulationFromIndex(handle);
    expectAsnsBySourceFromIndex(handle);
    expectLinksByPathsFromIndex(handle);
  });

  it('refreshStatistics writes sqlite_stat1 for the new indexes, and the plans stay the same', async () => {
    await refreshStatistics(handle);
    expect(hasStatistics(handle)).toBe(true);
    const stats = handle.sqlite!.prepare(`select idx, stat from sqlite_stat1 where tbl = 'asns'`).all() as {
      idx: string;
      stat: string;
    }[];
    const descStat = stats.find((s) => s.idx === 'asns_date_cone_asns_desc');
    // The first figure is the table's row count (estimated from the B-tree even when ANALYZE samples).
    expect(Number(descStat?.stat.split(' ')[0])).toBe(MONTHS.length * ASNS_PER_MONTH);
    // The sampling limit is per statement: later statements of the connection are unaffected.
    expect(handle.sqlite!.pragma('analysis_limit', { simple: true })).toBe(0);
    // No stat4 samples: with them SQLite re-prepares every statement whose bound values could change the plan,
    // which made the json_each key lookups of the API 8x slower (docs/performance.md).
    const stat4 = handle.sqlite!.prepare(`select name from sqlite_master where name = 'sqlite_stat4'`).get();
    if (stat4)
      expect(handle.sqlite!.prepare('select count(*) as n from sqlite_stat4').get()).toEqual({ n: 0 });
    expectSortedPagesFromIndexes(handle);
    expectHistoricKeyLookups(handle);
    expectNeighbourPagesFromIndex(handle);
    expectSeenPagesFromIndex(handle);
    expectLocationsByPopulationFromIndex(handle);
    expectAsnsBySourceFromIndex(handle);
    expectLinksByPathsFromIndex(handle);
    const count = handle.sqlite!.prepare('select count(*) as n from asns').get() as { n: number };
    expect(count.n).toBe(MONTHS.length * ASNS_PER_MONTH);
  });
});

describe('serving settings of SQLite handles', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asrank-pragmas-'));
    file = path.join(dir, 'store.db');
    const writer = openDatabase(file);
    await migrateToLatest(writer.db, writer.dialect);
    await writer.close();
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const pragmas = (handle: DatabaseHandle) => ({
    mmap: Number(handle.sqlite!.pragma('mmap_size', { simple: true })),
    cache: Number(handle.sqlite!.pragma('cache_size', { simple: true })),
  });

  it('maps the file and enlarges the page cache for read-only handles, leaves writers at SQLite defaults', async () => {
    const reader = openDatabase(file, { readonly: true });
    const writer = openDatabase(file);
    try {
      const serving = pragmas(reader);
      // SQLite caps mmap_size at its compile-time maximum (2 GiB minus 64 KiB in this build).
      expect(serving.mmap).toBeGreaterThan(1024 ** 3);
      expect(serving.cache).toBe(-SERVING_CACHE_BYTES / 1024);
      expect(pragmas(writer).mmap).toBe(0);
      expect(pragmas(writer).cache).not.toBe(serving.cache);
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it('takes explicit sizes and refuses invalid ones by name', async () => {
    const reader = openDatabase(file, { readonly: true, mmapSizeBytes: 0, cacheSizeBytes: 8 * 1024 * 1024 });
    try {
      expect(pragmas(reader)).toEqual({ mmap: 0, cache: -8192 });
    } finally {
      await reader.close();
    }
    expect(() => openDatabase(file, { readonly: true, mmapSizeBytes: -1 })).toThrow(
      /mmapSizeBytes must be a whole number of bytes, 0 or more \(got -1\)/,
    );
    expect(() => openDatabase(file, { readonly: true, cacheSizeBytes: 1.5 })).toThrow(/cacheSizeBytes/);
  });
});

(PG_URL ? describe : describe.skip)('statistics on a real PostgreSQL server', () => {
  const schema = `stats_${process.pid}_${Date.now()}`;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    const admin = openDatabase(PG_URL!);
    await sql`create schema ${sql.id(schema)}`.execute(admin.db);
    await admin.close();
    const url = new URL(PG_URL!);
    url.searchParams.set('options', `-c search_path=${schema}`);
    handle = openDatabase(url.toString());
    await migrateToLatest(handle.db, handle.dialect);
  });
  afterAll(async () => {
    await sql`drop schema ${sql.id(schema)} cascade`.execute(handle.db);
    await handle.close();
  });

  it('analyzes and vacuums every table of the store', async () => {
    await sql`insert into asns (date, asn, cone_asns) select '2024-01-01', g, g % 7 from generate_series(1, 500) g`.execute(
      handle.db,
    );
    await refreshStatistics(handle);
    const analyzed = await sql<{ relname: string }>`
      select relname from pg_stat_user_tables where schemaname = ${schema} and last_analyze is not null`.execute(
      handle.db,
    );
    expect(analyzed.rows.map((r) => r.relname)).toEqual(
      expect.arrayContaining(['asns', 'organizations', 'asn_links']),
    );
    // Vacuumed too, so that index-only scans of a just-loaded month need not read its rows' pages.
    const vacuumed = await sql<{ relname: string }>`
      select relname from pg_stat_user_tables where schemaname = ${schema} and last_vacuum is not null`.execute(
      handle.db,
    );
    expect(vacuumed.rows.map((r) => r.relname)).toEqual(
      expect.arrayContaining(['asns', 'organizations', 'asn_links']),
    );
    const estimated = await sql<{ reltuples: number }>`
      select c.reltuples from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema} and c.relname = 'asns'`.execute(handle.db);
    expect(Number(estimated.rows[0]?.reltuples)).toBe(500);
  });

  it('reads the keys of a rank page from the (date, rank, key) indexes alone, without a sort', async () => {
    await sql`insert into asns (date, asn, rank, cone_asns)
      select '2024-02-01', g, case when g % 10 = 0 then null else 3001 - g end, 1 from generate_series(1, 3000) g`.execute(
      handle.db,
    );
    await sql`insert into organizations (date, org_id, rank)
      select '2024-02-01', 'ORG-' || g, case when g % 10 = 0 then null else 3001 - g end from generate_series(1, 3000) g`.execute(
      handle.db,
    );
    await refreshStatistics(handle);
    for (const [table, key, index] of [
      ['asns', 'asn', 'asns_date_rank_asn'],
      ['organizations', 'org_id', 'organizations_date_rank_org'],
    ] as const) {
      const explained = await sql<{
        'QUERY PLAN': string;
      }>`explain select date, ${sql.ref(key)} from ${sql.table(table)}
        where date = '2024-02-01' and rank is not null order by rank, ${sql.ref(key)} limit 100 offset 1500`.execute(
        handle.db,
      );
      const detail = explained.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(detail).toContain(`Index Only Scan using ${index}`);
      expect(detail).not.toMatch(/Sort/);
    }
  });

  it("reads one ASN's neighbour page in rank order from the neighbour index, without a sort", async () => {
    await sql`insert into asn_links (date, asn0, asn1, relationship, canonical, number_paths, rank)
      select '2024-03-01', 1, g, 'customer', 1, g % 50, (g * 7919) % 3000 from generate_series(2, 3000) g`.execute(
      handle.db,
    );
    await sql`insert into asn_links (date, asn0, asn1, relationship, canonical, number_paths, rank)
      select '2024-03-01', g, 1, 'provider', 0, g % 50, (g * 7919) % 3000 from generate_series(2, 3000) g`.execute(
      handle.db,
    );
    await refreshStatistics(handle);
    const explained = await sql<{ 'QUERY PLAN': string }>`explain ${sql.raw(
      NEIGHBOUR_PAGE.replace('date = ?', `date = '2024-03-01'`).replace('asn0 = ?', 'asn0 = 1'),
    )}`.execute(handle.db);
    const detail = explained.rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(detail).toContain(NEIGHBOUR_RANK_INDEX);
    expect(detail).not.toMatch(/Sort/);
  });

  it('orders text byte-wise and reads name, organization and link pages from indexes, without a sort', async () => {
    const month = '2024-04-01';
    // Names whose byte order differs from a linguistic one: upper case before lower case.
    await sql`insert into asns (date, asn, asn_name, org_id, rank, source)
      select ${month}, g, case when g % 2 = 0 then 'a' else 'B' end || lpad(g::text, 5, '0'), 'ORG-' || (g % 300), g,
        case when g % 7 = 0 then null else (array['APNIC', 'ARIN', 'RIPE'])[g % 3 + 1] end
      from generate_series(1, 3000) g`.execute(handle.db);
    await sql`insert into organizations (date, org_id, rank, cone_asns)
      select ${month}, 'ORG-' || g, g, case when g % 4 = 0 then g else 1 end from generate_series(0, 2999) g`.execute(
      handle.db,
    );
    await sql`insert into asn_links (date, asn0, asn1, relationship, canonical, number_paths, rank)
      select ${month}, 1, g, 'customer', 1, case when g % 7 = 0 then null else g % 50 end, g % 40
      from generate_series(2, 3000) g`.execute(handle.db);
    await refreshStatistics(handle);
    const planOf = async (query: string) => {
      const explained = await sql<{ 'QUERY PLAN': string }>`explain ${sql.raw(query)}`.execute(handle.db);
      return explained.rows.map((row) => row['QUERY PLAN']).join('\n');
    };
    for (const [query, index] of [
      [
        `select date, asn from asns where date = '${month}' order by asn_name collate "C", asn limit 100 offset 1500`,
        'asns_date_asn_name',
      ],
      [
        `select date, org_id from organizations where date = '${month}'
          order by cone_asns desc, org_id collate "C" limit 100 offset 1500`,
        'organizations_date_cone_asns_desc',
      ],
      [
        `select date, asn0, asn1 from asn_links where date = '${month}' and canonical = 1
          order by number_paths desc nulls last, asn0, asn1 limit 100 offset 1500`,
        LINK_SORT_INDEXES.numberPathsDesc,
      ],
      [
        `select date, asn0, asn1 from asn_links where date = '${month}' and canonical = 1
          order by rank, asn0, asn1 limit 100 offset 1500`,
        LINK_SORT_INDEXES.rankPair,
      ],
      [
        `select date, asn from asns where date = '${month}'
          order by source collate "C" desc nulls last, asn limit 100 offset 1500`,
        SOURCE_DESC_INDEX,
      ],
    ] as const) {
      const detail = await planOf(query);
      expect(detail).toContain(`Index Only Scan using ${index}`);
      expect(detail).not.toMatch(/Sort/);
    }
    const names = await sql<{ asn_name: string }>`
      select asn_name from asns where date = ${month} order by asn_name limit 2 offset 1499`.execute(
      handle.db,
    );
    expect(names.rows.map((row) => row.asn_name)).toEqual(['B02999', 'a00002']);
    // org_id is byte-ordered on both sides of the join an ASN's organization is read with.
    const joined = await sql<{ n: string }>`
      select count(*) as n from asns a join organizations o on o.date = a.date and o.org_id = a.org_id
      where a.date = ${month}`.execute(handle.db);
    expect(Number(joined.rows[0]!.n)).toBe(3000);
  });
});

if (!PG_URL) {
  console.warn(
    'PostgreSQL statistics tests skipped: set DATABASE_URL_PG (the CI script .ci/run always does).',
  );
}
