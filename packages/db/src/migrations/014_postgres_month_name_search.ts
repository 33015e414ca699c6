import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';
import { fillPostgresMonthNameSearchIndexes } from '../name-search';

// PostgreSQL's partial trigram indexes of each month's search text (name-search.ts), built for every month already
// loaded; a load or drop keeps them from then on. SQLite has had its own per-month indexes since 006.
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  const months = await sql<{
    date: string;
  }>`select distinct date from asns union select distinct date from organizations`.execute(db);
  for (const { date } of months.rows) await fillPostgresMonthNameSearchIndexes(db, date);
}
