import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// One AS's links (or a list's) over several months by relationship walk blocks of one relationship in one month, and
// a deep page skips whole blocks by their sizes. number_asn_links (020) does not split them, and counting a block read
// its links (AS2503's 12 generated months by relationship at offset 50,000: 60-280 ms, docs/performance.md,
// seventy-ninth round). The loads now keep each relationship's count on the ASN's row (asrank's write.ts); this counts
// them for the months already loaded. Written out here rather than shared with the loads, since a migration must do
// the same whatever later code changes.
const COUNTED = ['customer', 'peer', 'provider', 'sibling'] as const;

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  for (const relationship of COUNTED) {
    await db.schema
      .alterTable('asns')
      .addColumn(`number_${relationship}_links`, 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  }
  const counts = COUNTED.map(
    (relationship) =>
      sql`sum(case when relationship = ${sql.lit(relationship)} then 1 else 0 end) as ${sql.ref(relationship)}`,
  );
  const assignments = COUNTED.map(
    (relationship) => sql`${sql.ref(`number_${relationship}_links`)} = counted.${sql.ref(relationship)}`,
  );
  const months = await sql<{ date: string }>`select distinct date from asns order by date`.execute(db);
  for (const { date } of months.rows) {
    await sql`update asns set ${sql.join(assignments)}
      from (select asn0, ${sql.join(counts)} from asn_links where date = ${date} group by asn0) as counted
      where asns.date = ${date} and asns.asn = counted.asn0`.execute(db);
  }
}
