import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// `asns(sort:"-source")` is `source desc nulls last, asn asc`. A month holds a handful of sources, so the ascending
// (date, source, asn) index of 002, read backwards, gives each source's tens of thousands of records by ASN
// descending, and both dialects sorted a whole source's records again for every page: one month 20-45 ms on
// PostgreSQL; over 12 generated months the month arms were refused as a sort and one statement sorted every record of
// the months (PostgreSQL 104-136 ms, SQLite 67-70 ms at offset 0). This index stores exactly that order (SQLite puts
// nulls last in a descending column; PostgreSQL needs it said). `source` is byte-ordered on PostgreSQL since 009.
export const SOURCE_DESC_INDEX = 'asns_date_source_desc';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  // `if not exists`: a store upgraded by an interrupted run (SQLite DDL outside a transaction) can be migrated again.
  if (dialect === 'postgres') {
    await sql`create index if not exists ${sql.id(SOURCE_DESC_INDEX)}
      on asns (date, source desc nulls last, asn)`.execute(db);
    return;
  }
  await db.schema
    .createIndex(SOURCE_DESC_INDEX)
    .ifNotExists()
    .on('asns')
    .columns(['date', 'source desc', 'asn'])
    .execute();
}
