import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// The number of rows of each month's lists (DatasetListedTotals in tables.ts): the loads write them; this counts them
// for the months already loaded, as the API's lists count them. Written out here rather than shared with the loads,
// since a migration must do the same whatever later code changes.
const COLUMNS = [
  'listed_asns',
  'listed_asns_seen',
  'listed_organizations',
  'listed_organizations_seen',
  'listed_links',
] as const;

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  for (const column of COLUMNS) {
    await db.schema
      .alterTable('datasets')
      .addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  }
  await sql`update datasets set
      listed_asns = (select count(*) from asns a where a.date = datasets.date),
      listed_asns_seen = (select count(*) from asns a where a.date = datasets.date and a.seen = 1),
      listed_organizations = (select count(*) from organizations o where o.date = datasets.date),
      listed_organizations_seen = (select count(*) from organizations o where o.date = datasets.date and o.seen = 1),
      listed_links = (select count(*) from asn_links l where l.date = datasets.date and l.canonical = 1)`.execute(
    db,
  );
}
