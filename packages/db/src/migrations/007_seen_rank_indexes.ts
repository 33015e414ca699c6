import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// `asns(seen:)` and `organizations(seen:)` in the default order read a month's ranked rows through the
// (date, rank, key) index and tested `seen` on each row: unseen ASNs are almost all unranked, so a page of unseen ASNs
// walked all ~60,000 ranked rows of the real December 2017 month and looked each one up to find none (45 ms; 42 ms
// for organizations), and the filtered count tested every row of the month (7 ms). With `seen` after the date, each
// of the two rank ranges and the count is one index range of the wanted rows. Size: ~2 MB per table and month.
export const SEEN_RANK_INDEXES = {
  asns: 'asns_date_seen_rank_asn',
  organizations: 'organizations_date_seen_rank_org',
} as const;

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  // `if not exists`: a store upgraded by an interrupted run (SQLite DDL outside a transaction) can be migrated again.
  await db.schema
    .createIndex(SEEN_RANK_INDEXES.asns)
    .ifNotExists()
    .on('asns')
    .columns(['date', 'seen', 'rank', 'asn'])
    .execute();
  await db.schema
    .createIndex(SEEN_RANK_INDEXES.organizations)
    .ifNotExists()
    .on('organizations')
    .columns(['date', 'seen', 'rank', 'org_id'])
    .execute();
}
