import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// `asnCone { asns { totalCount } }` counted the cone's member rows on every request (AS40559's 46,623 members in a
// generated month: 4 ms on SQLite, 14 ms on PostgreSQL), and `asnCone` itself read a member row to learn that the cone
// exists (docs/performance.md, sixty-fifth round). The loads now keep the count on the ASN's row (asrank's write.ts);
// this counts it for the months already loaded. cone_asns cannot stand in for it: it may come from CAIDA's files and
// differ a lot from the members (AS1251: 19 in December 2017, against 6,934). Written out here rather than shared
// with the loads, since a migration must do the same whatever later code changes.
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('asns')
    .addColumn('number_cone_members', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  const months = await sql<{ date: string }>`select distinct date from asns order by date`.execute(db);
  for (const { date } of months.rows) {
    await sql`update asns set number_cone_members = counted.members
      from (select asn, count(*) as members from cone_members where date = ${date} group by asn) as counted
      where asns.date = ${date} and asns.asn = counted.asn`.execute(db);
  }
}
