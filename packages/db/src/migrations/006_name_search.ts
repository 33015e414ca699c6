import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';
import { fillMonthNameSearchStatements } from '../name-search';

// SQLite's trigram indexes of the search text (name-search.ts), built for every month already loaded. PostgreSQL
// searches with pg_trgm since 002.
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== 'sqlite') return;
  const months = await sql<{
    date: string;
  }>`select distinct date from asns union select distinct date from organizations`.execute(db);
  // Each month's fill drops its tables first: SQLite runs this outside a transaction, so an interrupted run can be
  // migrated again.
  for (const { date } of months.rows)
    for (const statement of fillMonthNameSearchStatements(date)) await db.executeQuery(statement);
}
