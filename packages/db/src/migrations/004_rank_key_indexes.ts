import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// The rank order of a month is `rank, key` (key breaks ties, for stable pages). The (date, rank) indexes of 001 lack
// the key, so PostgreSQL re-sorted each run of equal ranks and, the key not being in the index, fetched every
// skipped row from the heap: a rank page at offset 40,000 of 80,000 ASNs took 85 ms. With the key in the index the
// page's keys come from an index-only scan (9.6 ms). The old indexes are a prefix of the new ones, so they go.
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  // `if (not) exists` everywhere: a store upgraded by an interrupted run (SQLite DDL outside a transaction) can be
  // migrated again.
  await db.schema
    .createIndex('asns_date_rank_asn')
    .ifNotExists()
    .on('asns')
    .columns(['date', 'rank', 'asn'])
    .execute();
  await db.schema.dropIndex('asns_date_rank').ifExists().execute();
  await db.schema
    .createIndex('organizations_date_rank_org')
    .ifNotExists()
    .on('organizations')
    .columns(['date', 'rank', 'org_id'])
    .execute();
  await db.schema.dropIndex('organizations_date_rank').ifExists().execute();
}
