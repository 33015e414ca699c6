import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// Two orders of a month's links (`asnLinks` without `asn`) that no index stored:
// - `sort:"-numberPaths"` is `number_paths desc nulls last, asn0, asn1`. The ascending (date, canonical, number_paths,
//   asn0, asn1) index of 002 serves it only backwards, with the pair descending inside each number of paths, so both
//   dialects sorted the month again: a page at offset 100,000 took 42 ms on the real month, 370 ms on a generated month
//   (whose links have no path counts, so they all tie) and 150 ms on PostgreSQL. This index stores that order (SQLite
//   puts nulls last in a descending column; PostgreSQL needs it said). Size: as the ascending one, ~13 MB for the real
//   month.
// - The default order, `rank, asn0, asn1`: 001's (date, canonical, rank) index lacks the pair on PostgreSQL, which
//   fetched every skipped row from the heap and re-sorted each run of equal ranks (offset 200,000: 130 ms). SQLite's
//   index already ends with the table's key (the table is WITHOUT ROWID), so it is left as it is there.
export const LINK_SORT_INDEXES = {
  numberPathsDesc: 'asn_links_date_canonical_number_paths_desc',
  rankPair: 'asn_links_date_canonical_rank_pair',
} as const;

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  // `if (not) exists`: a store upgraded by an interrupted run (SQLite DDL outside a transaction) can be migrated again.
  if (dialect === 'postgres') {
    await sql`create index if not exists ${sql.id(LINK_SORT_INDEXES.numberPathsDesc)}
      on asn_links (date, canonical, number_paths desc nulls last, asn0, asn1)`.execute(db);
    await db.schema
      .createIndex(LINK_SORT_INDEXES.rankPair)
      .ifNotExists()
      .on('asn_links')
      .columns(['date', 'canonical', 'rank', 'asn0', 'asn1'])
      .execute();
    // A prefix of the new index: nothing plans on it any more.
    await db.schema.dropIndex('asn_links_date_canonical_rank').ifExists().execute();
    return;
  }
  await db.schema
    .createIndex(LINK_SORT_INDEXES.numberPathsDesc)
    .ifNotExists()
    .on('asn_links')
    .columns(['date', 'canonical', 'number_paths desc', 'asn0', 'asn1'])
    .execute();
}
