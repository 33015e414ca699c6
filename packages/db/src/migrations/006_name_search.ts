import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect';
import { fillMonthNameSearchStatements, monthsWithNames } from '../name-search';

// SQLite's trigram indexes of the search text (name-search.ts), built for every month already loaded. PostgreSQL
// searches with pg_trgm since 002.
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== 'sqlite') return;
  // Each month's fill drops its tables first: SQLite runs this outside a transaction, so an interrupted run can be
  // migrated again.
  for (const date of await monthsWithNames(db))
    for (const statement of fillMonthNameSearchStatements(date)) await db.executeQuery(statement);
}
