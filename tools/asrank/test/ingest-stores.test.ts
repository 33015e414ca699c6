// The generated sample loads into a real SQLite file and a real PostgreSQL server with identical contents.
import { sql } from 'kysely';
import path from 'node:path';
import fs from 'node:fs';
import {
  ASN_RELATIONSHIP_LINK_COUNTS,
  DATASET_LISTED_TOTALS,
  openDatabase,
  refreshStatistics,
  type DatabaseHandle,
} from '@asrank/db';
import { ingestMonth, listDatasets, dropMonth } from '../src';
import {
  ALL_TABLES,
  PG_URL,
  createPgDatabase,
  dumpTable,
  ingestOptionsFor,
  nameSearchContents,
  postgresNameSearchIndexes,
  removeSmallDataset,
  smallDataset,
  tempDir,
} from './helpers';

// The generated files serve every describe below; they go once all have run.
afterAll(removeSmallDataset);

async function loadAll(handle: DatabaseHandle): Promise<void> {
  const files = await smallDataset();
  for (const month of files.months) {
    await ingestMonth(handle, ingestOptionsFor(month));
  }
}

/** Rows of `asns` according to sqlite_stat1 (the first figure of an index's statistics is the table's size). */
function asnStatisticsRows(handle: DatabaseHandle): number {
  const row = handle
    .sqlite!.prepare(`select stat from sqlite_stat1 where idx = 'asns_date_cone_asns_desc'`)
    .get() as { stat: string } | undefined;
  if (!row) throw new Error('no sqlite_stat1 row for asns_date_cone_asns_desc');
  return Number(row.stat.split(' ')[0]);
}

describe('ingest of the generated dataset into SQLite', () => {
  let dir: string;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    dir = tempDir('sqlite');
    handle = openDatabase(path.join(dir, 'store.db'));
    await loadAll(handle);
  });
  afterAll(async () => {
    await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists every month with counts that match the stored rows', async () => {
    const files = await smallDataset();
    const listed = await listDatasets(handle);
    expect(listed.map((d) => d.date)).toEqual(files.months.map((m) => m.date));
    for (const dataset of listed) {
      const asns = await handle.db
        .selectFrom('asns')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('date', '=', dataset.date)
        .executeTakeFirstOrThrow();
      const seen = await handle.db
        .selectFrom('asns')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('date', '=', dataset.date)
        .where('seen', '=', 1)
        .executeTakeFirstOrThrow();
      const links = await handle.db
        .selectFrom('asn_links')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('date', '=', dataset.date)
        .where('canonical', '=', 1)
        .executeTakeFirstOrThrow();
      expect(dataset.numberAsns).toBe(Number(asns.n));
      expect(dataset.numberAsnsSeen).toBe(Number(seen.n));
      expect(dataset.numberLinks).toBe(Number(links.n));
      expect(dataset.numberAsnsSeen).toBeLessThan(dataset.numberAsns);
      expect(dataset.numberPrefixes).toBeGreaterThan(0);
    }
  });

  it("keeps each month's links by relationship, with a path count and with a correction, as its rows count them", async () => {
    // listed_links, then its parts, in the order the counts below take them.
    const linkTotals = DATASET_LISTED_TOTALS.filter((column) => column.startsWith('listed_links'));
    const kept = await handle.db
      .selectFrom('datasets')
      .select(['date', ...linkTotals])
      .orderBy('date')
      .execute();
    const counted = await sql<Record<string, unknown>>`
      select date, count(*) as links,
        sum(case when relationship = 'customer' then 1 else 0 end) as customer,
        sum(case when relationship = 'peer' then 1 else 0 end) as peer,
        sum(case when relationship = 'provider' then 1 else 0 end) as provider,
        sum(case when relationship = 'sibling' then 1 else 0 end) as sibling,
        count(number_paths) as with_paths, count(corrected_by) as corrected
      from asn_links where canonical = 1 group by date order by date`.execute(handle.db);
    const numbers = (row: Record<string, unknown>) =>
      Object.values(row).map((value, index) => (index === 0 ? value : Number(value)));
    expect(kept.map(numbers)).toEqual(counted.rows.map(numbers));
    // The sample's links hold at least three relationships: the parts are not all one (it has no count files, so no
    // path counts; migrations.test.ts counts those).
    const rows = kept.map(numbers) as number[][];
    expect(rows[0]!.slice(2, 6).filter((part) => part > 0).length).toBeGreaterThanOrEqual(3);
  });

  it("keeps every organization's link and neighbour counts of every month as its members' links give them", async () => {
    const kept = await handle.db
      .selectFrom('organizations')
      .select(['date', 'org_id', 'number_asn_links', 'number_neighbors'])
      .orderBy('date')
      .orderBy('org_id')
      .execute();
    const counted = await sql<{ date: string; org_id: string; links: number; neighbours: number }>`
      select a.date, a.org_id, count(*) as links, count(distinct l.asn1) as neighbours
      from asns as a
      join asn_links as l on l.date = a.date and l.asn0 = a.asn
      join asns as b on b.date = l.date and b.asn = l.asn1
      where a.org_id is not null and (b.org_id is null or b.org_id <> a.org_id)
      group by a.date, a.org_id`.execute(handle.db);
    const countsOf = new Map(
      counted.rows.map((row) => [`${row.date}|${row.org_id}`, [Number(row.links), Number(row.neighbours)]]),
    );
    // Most organizations have links out; some have more links than neighbours (two members linked to one ASN).
    expect(kept.filter((row) => row.number_neighbors > 0).length).toBeGreaterThan(kept.length / 2);
    expect(kept.some((row) => row.number_asn_links > row.number_neighbors)).toBe(true);
    expect(kept.map((row) => [row.date, row.org_id, row.number_asn_links, row.number_neighbors])).toEqual(
      kept.map((row) => [row.date, row.org_id, ...(countsOf.get(`${row.date}|${row.org_id}`) ?? [0, 0])]),
    );
  });

  it.each([
    // A quarter of the ASNs have more than one link; fewer cones hold more than their own ASN.
    { column: 'number_asn_links', table: 'asn_links', owner: 'asn0', share: 1 / 4 },
    { column: 'number_cone_members', table: 'cone_members', owner: 'asn', share: 0 },
  ] as const)(
    "keeps every ASN's $column of every month as its $table rows give them",
    async ({ column, table, owner, share }) => {
      const kept = (
        await handle.db
          .selectFrom('asns')
          .select(['date', 'asn', column])
          .orderBy('date')
          .orderBy('asn')
          .execute()
      ).map((row) => [row.date, row.asn, Number((row as Record<string, unknown>)[column])] as const);
      const counted = await sql<{ date: string; owner: number; n: number }>`
        select date, ${sql.ref(owner)} as owner, count(*) as n from ${sql.table(table)}
        group by date, ${sql.ref(owner)}`.execute(handle.db);
      const countOf = new Map(counted.rows.map((row) => [`${row.date}|${row.owner}`, Number(row.n)]));
      expect(kept.filter(([, , count]) => count > 1).length).toBeGreaterThan(kept.length * share);
      expect(kept).toEqual(kept.map(([date, asn]) => [date, asn, countOf.get(`${date}|${asn}`) ?? 0]));
    },
  );

  it("keeps every ASN's links of every month by relationship as its asn_links rows give them", async () => {
    const relationships = Object.keys(
      ASN_RELATIONSHIP_LINK_COUNTS,
    ) as (keyof typeof ASN_RELATIONSHIP_LINK_COUNTS)[];
    const kept = await handle.db
      .selectFrom('asns')
      .select(['date', 'asn', ...Object.values(ASN_RELATIONSHIP_LINK_COUNTS)])
      .orderBy('date')
      .orderBy('asn')
      .execute();
    const counted = await sql<{ date: string; asn0: number; relationship: string; n: number }>`
      select date, asn0, relationship, count(*) as n from asn_links group by date, asn0, relationship`.execute(
      handle.db,
    );
    const countOf = new Map(
      counted.rows.map((row) => [`${row.date}|${row.asn0}|${row.relationship}`, Number(row.n)]),
    );
    const keptCounts = kept.map((row) => [
      row.date,
      Number(row.asn),
      ...relationships.map((relationship) => Number(row[ASN_RELATIONSHIP_LINK_COUNTS[relationship]])),
    ]);
    // The generated months give ASes customers, peers and providers (siblings are rare).
    for (const relationship of ['customer', 'peer', 'provider'] as const)
      expect(kept.some((row) => Number(row[ASN_RELATIONSHIP_LINK_COUNTS[relationship]]) > 0)).toBe(true);
    expect(keptCounts).toEqual(
      kept.map((row) => [
        row.date,
        Number(row.asn),
        ...relationships.map((relationship) => countOf.get(`${row.date}|${row.asn}|${relationship}`) ?? 0),
      ]),
    );
  });

  it("keeps every ASN's canonical links of every month (asn0 = asn < asn1) as its asn_links rows give them", async () => {
    const kept = await handle.db
      .selectFrom('asns')
      .select(['date', 'asn', 'number_canonical_links', 'number_asn_links'])
      .orderBy('date')
      .orderBy('asn')
      .execute();
    const counted = await sql<{ date: string; asn0: number; n: number }>`
      select date, asn0, count(*) as n from asn_links where canonical = 1 group by date, asn0`.execute(
      handle.db,
    );
    const countOf = new Map(counted.rows.map((row) => [`${row.date}|${row.asn0}`, Number(row.n)]));
    expect(kept.map((row) => [row.date, Number(row.asn), Number(row.number_canonical_links)])).toEqual(
      kept.map((row) => [row.date, Number(row.asn), countOf.get(`${row.date}|${row.asn}`) ?? 0]),
    );
    // Some ASes have links on both sides of their number: the two counts differ.
    const both = kept.filter(
      (row) =>
        Number(row.number_canonical_links) > 0 &&
        Number(row.number_canonical_links) < Number(row.number_asn_links),
    );
    expect(both.length).toBeGreaterThan(0);
  });

  it('ranks exactly the seen ASNs, 1..n by competition ranking, with cone sizes matching cone_members', async () => {
    const [latest] = (await listDatasets(handle)).slice(-1);
    const rows = await handle.db.selectFrom('asns').selectAll().where('date', '=', latest!.date).execute();
    for (const row of rows) expect(row.rank === null).toBe(row.seen === 0);
    const ranks = rows
      .filter((r) => r.rank !== null)
      .map((r) => Number(r.rank))
      .sort((a, b) => a - b);
    expect(ranks[0]).toBe(1);
    const members = await handle.db
      .selectFrom('cone_members')
      .select(['asn', (eb) => eb.fn.countAll<number>().as('n')])
      .where('date', '=', latest!.date)
      .groupBy('asn')
      .execute();
    const sizeByAsn = new Map(members.map((m) => [Number(m.asn), Number(m.n)]));
    for (const row of rows.filter((r) => r.seen === 1))
      expect(sizeByAsn.get(Number(row.asn))).toBe(Number(row.cone_asns));
  });

  it("copies into each ASN's row its organization's name and rank of the same month", async () => {
    const rows = await sql<{
      asn_name: string | null;
      asn_rank: number | null;
      joined_name: string | null;
      joined_rank: number | null;
      org_id: string | null;
    }>`
      select a.org_id, a.org_name as asn_name, a.org_rank as asn_rank, o.org_name as joined_name, o.rank as joined_rank
      from asns a left join organizations o on o.date = a.date and o.org_id = a.org_id`.execute(handle.db);
    expect(rows.rows.length).toBeGreaterThan(0);
    const withOrganization = rows.rows.filter((row) => row.joined_name !== null);
    // The generated months give most ASNs an organization, ranked or not; a few none.
    expect(withOrganization.length).toBeGreaterThan(rows.rows.length / 2);
    expect(withOrganization.some((row) => row.joined_rank !== null)).toBe(true);
    for (const row of rows.rows) {
      expect({ org_id: row.org_id, name: row.asn_name, rank: row.asn_rank }).toEqual({
        org_id: row.org_id,
        name: row.joined_name,
        rank: row.joined_rank,
      });
    }
  });

  it('stores every link from both ends with mirrored relationships', async () => {
    const [latest] = (await listDatasets(handle)).slice(-1);
    const links = await handle.db
      .selectFrom('asn_links')
      .selectAll()
      .where('date', '=', latest!.date)
      .execute();
    const byPair = new Map(links.map((l) => [`${l.asn0}|${l.asn1}`, l]));
    const mirror = { provider: 'customer', customer: 'provider', peer: 'peer', sibling: 'sibling' } as const;
    for (const link of links) {
      const other = byPair.get(`${link.asn1}|${link.asn0}`)!;
      expect(other.relationship).toBe(mirror[link.relationship]);
      expect(link.canonical).toBe(Number(link.asn0) < Number(link.asn1) ? 1 : 0);
      expect(other.rank).toBe(link.rank);
    }
    const located = await handle.db
      .selectFrom('link_locations')
      .selectAll()
      .where('date', '=', latest!.date)
      .execute();
    expect(located.length).toBeGreaterThan(0);
  });

  it('indexes every ASN and organization of every month once for substring search', async () => {
    const { indexed, stored } = nameSearchContents(handle);
    const months = (await listDatasets(handle)).length;
    expect(months).toBeGreaterThan(1);
    expect(new Set(stored.map((line) => line.split('|')[1])).size).toBe(months);
    expect(indexed).toEqual(stored);
  });

  it('leaves planner statistics (sqlite_stat1) describing the loaded rows, and the rows themselves untouched', async () => {
    const counted = (await dumpTable(handle, 'asns')).length;
    expect(asnStatisticsRows(handle)).toBe(counted);
    const cones = await dumpTable(handle, 'cone_members');
    // Gathering statistics again only rewrites sqlite_stat1.
    await refreshStatistics(handle);
    expect(await dumpTable(handle, 'cone_members')).toEqual(cones);
    expect((await dumpTable(handle, 'asns')).length).toBe(counted);
  });

  it('drops one month and bumps data_version', async () => {
    const before = await handle.db
      .selectFrom('meta')
      .select('value')
      .where('key', '=', 'data_version')
      .executeTakeFirstOrThrow();
    const [first] = await listDatasets(handle);
    expect(await dropMonth(handle, first!.date)).toBe(true);
    expect((await listDatasets(handle)).map((d) => d.date)).not.toContain(first!.date);
    expect(
      await handle.db.selectFrom('asns').select('asn').where('date', '=', first!.date).execute(),
    ).toEqual([]);
    const after = await handle.db
      .selectFrom('meta')
      .select('value')
      .where('key', '=', 'data_version')
      .executeTakeFirstOrThrow();
    expect(Number(after.value)).toBe(Number(before.value) + 1);
    // The drop refreshed the statistics: they count the remaining months only.
    expect(asnStatisticsRows(handle)).toBe((await dumpTable(handle, 'asns')).length);
    expect(await dropMonth(handle, first!.date)).toBe(false);
    // The dropped month left the name search indexes with it, and only it.
    const { indexed, stored } = nameSearchContents(handle);
    expect(indexed.some((line) => line.includes(`|${first!.date}|`))).toBe(false);
    expect(stored.length).toBeGreaterThan(0);
    expect(indexed).toEqual(stored);
  });
});

(PG_URL ? describe : describe.skip)('ingest into PostgreSQL matches SQLite row for row', () => {
  it('stores identical contents in every table', async () => {
    const dir = tempDir('compare');
    const pgDatabase = await createPgDatabase();
    const sqliteHandle = openDatabase(path.join(dir, 'compare.db'));
    const pgHandle = openDatabase(pgDatabase.url);
    try {
      await loadAll(sqliteHandle);
      await loadAll(pgHandle);
      for (const table of ALL_TABLES) {
        const fromSqlite = await dumpTable(sqliteHandle, table);
        const fromPg = await dumpTable(pgHandle, table);
        expect({ table, rows: fromPg.length }).toEqual({ table, rows: fromSqlite.length });
        expect(fromPg).toEqual(fromSqlite);
      }
      // The load gathers planner statistics itself, so a fresh month is never planned as an empty table.
      const analyzed = await sql<{ relname: string }>`
        select relname from pg_stat_user_tables where last_analyze is not null and relname in ('asns', 'asn_links', 'cone_members')
      `.execute(pgHandle.db);
      expect(analyzed.rows.map((r) => r.relname).sort()).toEqual(['asn_links', 'asns', 'cone_members']);
      // Every month has a trigram index of its own per searched table, and a dropped month takes its own with it.
      const dates = (await listDatasets(pgHandle)).map((dataset) => dataset.date);
      const indexesOf = (months: string[]) =>
        ['asns', 'organizations'].flatMap((table) => months.map((date) => `${table}|${date}`)).sort();
      expect(dates.length).toBeGreaterThan(1);
      expect(await postgresNameSearchIndexes(pgHandle)).toEqual(indexesOf(dates));
      expect(await dropMonth(pgHandle, dates[0]!)).toBe(true);
      expect(await postgresNameSearchIndexes(pgHandle)).toEqual(indexesOf(dates.slice(1)));
    } finally {
      await sqliteHandle.close();
      await pgHandle.close();
      await pgDatabase.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

if (!PG_URL)
  console.warn(
    'PostgreSQL ingest comparison skipped: set DATABASE_URL_PG (the CI script .ci/run always does).',
  );
