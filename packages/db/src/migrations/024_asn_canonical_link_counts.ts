import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// A deep page of every link by `-asn0` (or `-asn1`, from the reversed rows) places its bookmarks from each ASN's count
// of the month's canonical links (its reversed ones: number_asn_links less those). On SQLite they were counted from the
// month's rows, a pass over both rows of every link: 100-150 ms a month, 1.6 s of the first such page over 12 generated
// months (docs/performance.md, eighty-second round). The loads now keep each ASN's count on its row (asrank's
// write.ts); this counts them for the months already loaded, on SQLite. PostgreSQL numbers a month's records for those
// bookmarks and reads no such count, and there an update of half of every month's rows moved them to the table's end:
// the months' rows no longer lay together, and the generic plan of a name search over 12 generated months chose the
// trigram index over each month's name order (9.5 -> 860 ms). So its months loaded before keep 0, which a reader takes
// for counts that do not add up, and counts instead. Written out here rather than shared with the loads, since a
// migration must do the same whatever later code changes.
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('asns')
    .addColumn('number_canonical_links', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  if (dialect !== 'sqlite') return;
  const months = await sql<{ date: string }>`select distinct date from asns order by date`.execute(db);
  for (const { date } of months.rows) {
    await sql`update asns set number_canonical_links = counted.links
      from (select asn0, count(*) as links from asn_links where date = ${date} and canonical = 1 group by asn0) as counted
      where asns.date = ${date} and asns.asn = counted.asn0`.execute(db);
  }
}
