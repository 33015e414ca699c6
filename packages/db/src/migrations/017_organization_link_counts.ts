import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// An organization's `neighbors { totalCount }` and `asnLinks { totalCount }` counted its members' links to ASNs
// outside it, looking up the organization of every far end: 1,000 organizations of a generated month took 1.8 s for
// their neighbours on PostgreSQL, whose planner keeps a nested loop over their 284,116 links, and 0.2-0.3 s for their
// links on SQLite (docs/performance.md, fifty-sixth round). The loads now keep both counts on the organization's row
// (asrank's write.ts, countOrgLinks); this counts them for the months already loaded, one statement a month, as the
// API's lists do (a neighbour has an ASN row of the month; a link's far end need not). Written out here rather than
// shared with the loads, since a migration must do the same whatever later code changes.
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  for (const column of ['number_asn_links', 'number_neighbors']) {
    await db.schema
      .alterTable('organizations')
      .addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  }
  const months = await sql<{ date: string }>`select distinct date from organizations order by date`.execute(
    db,
  );
  for (const { date } of months.rows) {
    await sql`update organizations set number_asn_links = counted.links, number_neighbors = counted.neighbours
      from (
        select a.org_id, count(*) as links, count(distinct case when b.asn is not null then l.asn1 end) as neighbours
        from asns as a
        join asn_links as l on l.date = a.date and l.asn0 = a.asn
        left join asns as b on b.date = l.date and b.asn = l.asn1
        where a.date = ${date} and a.org_id is not null and (b.org_id is null or b.org_id <> a.org_id)
        group by a.org_id
      ) as counted
      where organizations.date = ${date} and organizations.org_id = counted.org_id`.execute(db);
  }
}
