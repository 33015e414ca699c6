import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// One ASN's neighbours in the default order (`asnLinks(asn:)`, W3 of the benchmarks) are its links of a month by
// rank, then asn1. The primary key (date, asn0, asn1) finds them but in asn1 order, so every page sorted all of the
// ASN's links first: 18,000 for the largest ASes, ~1.1 ms of SQLite before a 500-link page could be cut. This index
// stores them in rank order with the columns a neighbour list shows (relationship, number of paths), so such a page
// is one forward walk of 500 entries. A plain (date, asn0, rank, asn1) index was measured and dropped earlier: each
// entry then looked its row up, as slow as the sort. Size: ~16 MB for the real December 2017 month (4% of its file).
export const NEIGHBOUR_RANK_INDEX = 'asn_links_date_asn0_rank';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  // `if not exists`: a store upgraded by an interrupted run (SQLite DDL outside a transaction) can be migrated again.
  if (dialect === 'postgres') {
    // INCLUDE keeps the shown columns out of the key (PostgreSQL 11+): same walk, smaller inner pages.
    await sql`create index if not exists ${sql.id(NEIGHBOUR_RANK_INDEX)} on asn_links (date, asn0, rank, asn1)
      include (relationship, number_paths)`.execute(db);
    return;
  }
  await db.schema
    .createIndex(NEIGHBOUR_RANK_INDEX)
    .ifNotExists()
    .on('asn_links')
    .columns(['date', 'asn0', 'rank', 'asn1', 'relationship', 'number_paths'])
    .execute();
}
