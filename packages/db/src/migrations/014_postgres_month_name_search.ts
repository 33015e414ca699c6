import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect';
import { fillPostgresMonthNameSearchIndexes, monthsWithNames } from '../name-search';

// PostgreSQL's partial trigram indexes of each month's search text (name-search.ts), built for every month already
// loaded; a load or drop keeps them from then on. SQLite has had its own per-month indexes since 006.
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const date of await monthsWithNames(db)) await fillPostgresMonthNameSearchIndexes(db, date);
}
