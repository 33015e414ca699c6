import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect';
import { LIST_ORDER_CARRIED_COLUMNS } from './013_list_order_covering';

// One month's ASN records by key, carrying only the columns a ranking table shows (as 013's order indexes do), for
// a page of links that shows its neighbours' name, rank, cone or organization: 500 lookups by key each read a
// narrow index entry instead of the whole record (~25 columns and the search text). W3's statement on the generated
// 12 months took 790-822 µs through the primary key and 610-624 µs through this index (better-sqlite3 in a loop; the
// real month 488-540 → 423-441): one month's entries lie together, where 011's (asn, date, ...) index spreads them
// over every month (1,008-1,055 µs). SQLite only: PostgreSQL already reads a neighbour's columns from 011's index
// alone (an index-only scan, no heap fetch), and a page's cost there is its round trip, not those lookups.
export const ASN_SUMMARY_INDEX = 'asns_date_asn_summary';

/**
 * The columns the index carries after its key (date, asn): both orders' values and what 013's indexes carry. Written
 * out, not derived from the table's interface: a migration must build the same index whatever columns later
 * migrations add (013's list is as fixed as this one).
 */
export const ASN_SUMMARY_COLUMNS = ['rank', 'cone_asns', ...LIST_ORDER_CARRIED_COLUMNS] as const;

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== 'sqlite') return;
  // `if not exists`: a store upgraded by an interrupted run (SQLite DDL outside a transaction) can be migrated again.
  await db.schema
    .createIndex(ASN_SUMMARY_INDEX)
    .ifNotExists()
    .on('asns')
    .columns(['date', 'asn', ...ASN_SUMMARY_COLUMNS])
    .execute();
}
