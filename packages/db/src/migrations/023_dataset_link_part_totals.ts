import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// The parts of each month's links (each pair once, on its canonical row) that a walk of every link over months skips
// whole, so that it need not count them: by relationship (the blocks of a walk by `relationship`), with and without a
// path count (by `numberPaths`, valued links then the others), with and without a correction (by `correctedBy`).
// Counted, those were 80-90% of such a walk's first deep page (12 generated months: 0.9-1.3 s of 1.0-1.4 on
// PostgreSQL, 0.25-0.31 of 0.33-0.41 on SQLite; docs/performance.md, eighty-second round). The loads write them
// (asrank's write.ts); this counts them for the months already loaded. Written out here rather than shared with the
// loads, since a migration must do the same whatever later code changes.
const RELATIONSHIPS = ['customer', 'peer', 'provider', 'sibling'] as const;

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  const columns = [
    ...RELATIONSHIPS.map((relationship) => `listed_links_${relationship}`),
    'listed_links_with_paths',
    'listed_links_corrected',
  ];
  for (const column of columns) {
    await db.schema
      .alterTable('datasets')
      .addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  }
  const counted = (condition: ReturnType<typeof sql>) =>
    sql`(select count(*) from asn_links l where l.date = datasets.date and l.canonical = 1 and ${condition})`;
  const assignments = [
    ...RELATIONSHIPS.map(
      (relationship) =>
        sql`${sql.ref(`listed_links_${relationship}`)} = ${counted(sql`l.relationship = ${sql.lit(relationship)}`)}`,
    ),
    sql`listed_links_with_paths = ${counted(sql`l.number_paths is not null`)}`,
    sql`listed_links_corrected = ${counted(sql`l.corrected_by is not null`)}`,
  ];
  await sql`update datasets set ${sql.join(assignments)}`.execute(db);
}
