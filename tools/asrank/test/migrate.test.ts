// `asrank migrate` upgrades a store written by an older version in place: pending migrations, then statistics.
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { migrator, openDatabase, pendingMigrations } from '@asrank/db';
import { buildProgram } from '../src';
import { nameSearchContents, tempDir } from './helpers';

async function runProgram(args: string[]): Promise<string> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  await buildProgram(out).parseAsync(['node', 'asrank', ...args]);
  return text;
}

describe('asrank migrate', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('migrate');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('applies the pending migrations to a store at 002 and gathers statistics, leaving its rows as they were', async () => {
    const file = path.join(dir, 'old.db');
    const old = openDatabase(file);
    const { error } = await migrator(old.db, old.dialect).migrateTo('002_query_indexes');
    expect(error).toBeUndefined();
    const insert = old.sqlite!.prepare(
      'insert into asns (date, asn, asn_name, cone_asns, search_text) values (?, ?, ?, ?, ?)',
    );
    for (let asn = 1; asn <= 300; asn += 1) {
      const name = `network ${asn} of ${asn % 7 === 0 ? 'seven' : 'other'}`;
      insert.run('2024-01-01', asn, name, asn % 4 === 0 ? asn : 1, name);
    }
    // Its search text as loads wrote it before 016, names joined by a space: rewritten, and indexed as rewritten.
    old
      .sqlite!.prepare('insert into organizations (date, org_id, org_name, search_text) values (?, ?, ?, ?)')
      .run('2024-02-01', 'ORG-1', 'Sevenfold Holdings', 'sevenfold holdings org-1');
    const before = old.sqlite!.prepare('select * from asns order by asn').all();
    await old.close();

    expect(await runProgram(['--database', file, 'migrate'])).toBe(
      'Applied 003_descending_sort_indexes, 004_rank_key_indexes, 005_neighbour_rank_index, 006_name_search, 007_seen_rank_indexes, 008_location_population_desc, 009_postgres_byte_order_text, 010_link_sort_indexes, 011_asn_history_index, 012_asn_organization_copy, 013_list_order_covering, 014_postgres_month_name_search, 015_asn_summary_index, 016_search_text_separator, 017_organization_link_counts, 018_source_desc_index, 019_dataset_listed_totals, 020_asn_link_counts, 021_cone_member_counts, 022_asn_relationship_link_counts, 023_dataset_link_part_totals, 024_asn_canonical_link_counts; statistics refreshed\n',
    );
    const upgraded = openDatabase(file);
    try {
      expect(await pendingMigrations(upgraded.db, upgraded.dialect)).toEqual([]);
      const sqlite = upgraded.sqlite!;
      // The same rows, with the organization copies of 012 (none: these ASNs have no organization), the link counts
      // of 020, 022 and 024 (none: no links) and the cone member counts of 021 (none: no cones).
      expect(sqlite.prepare('select * from asns order by asn').all()).toEqual(
        before.map((row) => ({
          ...(row as object),
          org_name: null,
          org_rank: null,
          number_asn_links: 0,
          number_cone_members: 0,
          number_customer_links: 0,
          number_peer_links: 0,
          number_provider_links: 0,
          number_sibling_links: 0,
          number_canonical_links: 0,
        })),
      );
      const stat = sqlite
        .prepare(`select stat from sqlite_stat1 where idx = 'asns_date_cone_asns_desc'`)
        .get() as { stat: string } | undefined;
      expect(stat?.stat.split(' ')[0]).toBe('300');
      const plan = (
        sqlite
          .prepare(
            'explain query plan select date, asn from asns where date = ? order by cone_asns desc, asn limit 100 offset 100',
          )
          .all('2024-01-01') as { detail: string }[]
      )
        .map((row) => row.detail)
        .join('; ');
      expect(plan).toContain('asns_date_cone_asns_desc');
      expect(plan).not.toContain('TEMP B-TREE');
      // The name search indexes were built from the rows already stored.
      const { indexed, stored } = nameSearchContents(upgraded);
      expect(stored).toHaveLength(301);
      expect(indexed).toEqual(stored);
      const sevens = sqlite
        .prepare(
          `select key from asns_name_search_20240101 where asns_name_search_20240101 match '"seven"' order by key`,
        )
        .pluck()
        .all();
      expect(sevens).toEqual(Array.from({ length: 42 }, (_, i) => 7 * (i + 1)));
    } finally {
      await upgraded.close();
    }
    // Running it again is harmless.
    expect(await runProgram(['--database', file, 'migrate'])).toBe(
      'No migration pending; statistics refreshed\n',
    );
  });

  it('refuses a SQLite file that does not exist instead of creating an empty store', async () => {
    const missing = path.join(dir, 'absent.db');
    await expect(runProgram(['--database', missing, 'migrate'])).rejects.toThrow(
      `no database at ${missing} (nothing to migrate)`,
    );
    expect(fs.existsSync(missing)).toBe(false);
  });
});
