import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// A descending sort is `<column> desc, <key> asc` (the table key breaks ties ascending, for stable pages). The
// ascending (date, column, key) indexes of 002 serve it only backwards, which yields `key desc` inside each group of
// equal values, so both dialects re-sorted every group: most ASNs have a cone of 1, so a page at offset 60,000 of a
// `-cone.numberAsns` list sorted ~60,000 rows (SQLite: "USE TEMP B-TREE FOR LAST TERM OF ORDER BY"). These indexes
// store exactly that order, so a descending page is one forward index walk. Text columns (names, source) are left
// out: their descending sorts are rare and PostgreSQL orders them with `collate "C"`, which needs its own index.
export const ASN_NUMERIC_SORT_COLUMNS = [
  'cone_asns',
  'cone_prefixes',
  'cone_addresses',
  'degree_provider',
  'degree_peer',
  'degree_customer',
  'degree_transit',
  'degree_sibling',
  'degree_total',
] as const;

export const ORG_NUMERIC_SORT_COLUMNS = [
  'cone_asns',
  'cone_prefixes',
  'cone_addresses',
  'degree_provider',
  'degree_peer',
  'degree_customer',
  'degree_transit',
  'degree_sibling',
  'degree_total',
] as const;

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  // `if not exists` everywhere: a store upgraded by an interrupted run (SQLite DDL outside a transaction) can be
  // migrated again.
  for (const column of ASN_NUMERIC_SORT_COLUMNS) {
    await db.schema
      .createIndex(`asns_date_${column}_desc`)
      .ifNotExists()
      .on('asns')
      .columns(['date', `${column} desc`, 'asn'])
      .execute();
  }
  // 002 has no ascending index for the ASN sort key `asnDegree.provider` (its list missed it).
  await db.schema
    .createIndex('asns_date_degree_provider')
    .ifNotExists()
    .on('asns')
    .columns(['date', 'degree_provider', 'asn'])
    .execute();
  for (const column of ORG_NUMERIC_SORT_COLUMNS) {
    await db.schema
      .createIndex(`organizations_date_${column}_desc`)
      .ifNotExists()
      .on('organizations')
      .columns(['date', `${column} desc`, 'org_id'])
      .execute();
  }
}
