import { sql, type AlterColumnBuilder, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// The API orders text byte-wise on both dialects (docs/decisions.md), so PostgreSQL's statements sort with
// `collate "C"`. An index only serves an order of its own collation, and these columns had the database's default:
// every name sort (`asns(sort:"asnName")`: 50-64 ms at offset 20,000 of a generated month) sorted the whole month,
// and every organization or location order re-sorted its ties by the text key (`organizations(sort:"-cone.numberAsns")`
// at offset 30,000: 20-50 ms). Declaring the columns "C" makes every index on them byte-ordered (PostgreSQL rebuilds
// those indexes here; the rows are not rewritten). Columns compared across tables (org_id, loc_id) change on both
// sides, since PostgreSQL refuses to compare two different implicit collations. SQLite's default collation (BINARY)
// is already byte order.
export const BYTE_ORDER_TEXT_COLUMNS = {
  asns: ['asn_name', 'source', 'org_id'],
  organizations: ['org_id', 'org_name'],
  asn_links: ['relationship'],
  locations: ['loc_id', 'city', 'region', 'country_iso', 'continent'],
  link_locations: ['loc_id'],
} as const;

const toByteOrder = (change: AlterColumnBuilder) => change.setDataType(sql`text collate "C"`);

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const [table, [first, ...rest]] of Object.entries(BYTE_ORDER_TEXT_COLUMNS)) {
    let alter = db.schema.alterTable(table).alterColumn(first, toByteOrder);
    for (const column of rest) alter = alter.alterColumn(column, toByteOrder);
    await alter.execute();
  }
}
