import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// An AS's history (`asns(asns: [...], dateStart, dateEnd)`: a few ASNs over many months) read the months of each ASN
// from the (asn, date) index of 001 and then every record from the table, which is ordered by month: one descent of
// that wide B-tree per ASN and month. Ten ASNs over 12 generated months took 600-850 µs of SQLite on the slower
// benchmark host, most of it those 120 descents (cache misses, not work). This index replaces (asn, date) with the
// same key carrying every column of the record but `search_text` (the name search's lowercase copy of the names), so
// the history of any selection the API reads (pruned to the selected fields' columns) is one range of this index
// per ASN: 207-280 µs for the same query on a copy of the generated table. Size: 83 MB for the 12 generated months
// (960,000 records) against 18 MB for (asn, date), about 1% of that 7.7 GB store; built in ~1.3 s.
// PostgreSQL gets the same columns as INCLUDE (not part of the key, only carried for index-only scans).
export const ASN_HISTORY_INDEX = 'asns_asn_date_covering';

/**
 * Every column of `asns` after the key (asn, date), except search_text. Written out, not derived from the table's
 * interface: a migration must build the same index whatever columns later migrations add.
 */
export const ASN_HISTORY_COLUMNS = [
  'asn_name',
  'org_id',
  'country_iso',
  'source',
  'latitude',
  'longitude',
  'rank',
  'seen',
  'clique_member',
  'ixp',
  'cone_asns',
  'cone_prefixes',
  'cone_addresses',
  'announcing_prefixes',
  'announcing_addresses',
  'degree_provider',
  'degree_peer',
  'degree_customer',
  'degree_sibling',
  'degree_transit',
  'degree_total',
] as const;

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  // `if (not) exists`: a store upgraded by an interrupted run (SQLite DDL outside a transaction) can be migrated again.
  if (dialect === 'postgres') {
    await sql`create index if not exists ${sql.id(ASN_HISTORY_INDEX)} on asns (asn, date)
      include (${sql.join(ASN_HISTORY_COLUMNS.map((column) => sql.id(column)))})`.execute(db);
  } else {
    await db.schema
      .createIndex(ASN_HISTORY_INDEX)
      .ifNotExists()
      .on('asns')
      .columns(['asn', 'date', ...ASN_HISTORY_COLUMNS])
      .execute();
  }
  // A prefix of the new index: nothing plans on it any more.
  await db.schema.dropIndex('asns_asn_date').ifExists().execute();
}
