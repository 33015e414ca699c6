import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// One ASN's `asnLinks { totalCount }` counted its links, a range of (date, asn0, ...) per month, on every request: a
// large generated AS over 12 months is 216,000 index entries, 8.5 ms of PostgreSQL every time (docs/performance.md,
// sixty-fourth round). The loads now keep the count on the ASN's row (asrank's write.ts); this counts it for the
// months already loaded. Written out here rather than shared with the loads, since a migration must do the same
// whatever later code changes.
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('asns')
    .addColumn('number_asn_links', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  const months = await sql<{ date: string }>`select distinct date from asns order by date`.execute(db);
  for (const { date } of months.rows) {
    await sql`update asns set number_asn_links = counted.links
      from (select asn0, count(*) as links from asn_links where date = ${date} group by asn0) as counted
      where asns.date = ${date} and asns.asn = counted.asn0`.execute(db);
  }
}
