// The service over a fresh PostgreSQL database loaded with the committed sample.
import { sql } from 'kysely';
import { defineServiceSuite } from './service-suite';
import { openServingDatabase } from '../src/database';
import { pgAdminUrl, postgresWithSample } from './helpers';

if (!pgAdminUrl) {
  console.warn('SKIP GraphQL service on PostgreSQL: DATABASE_URL_PG is not set (CI sets it).');
}

(pgAdminUrl ? describe : describe.skip)('GraphQL service on PostgreSQL', () => {
  defineServiceSuite(() => postgresWithSample(pgAdminUrl!));
});

(pgAdminUrl ? describe : describe.skip)('PostgreSQL serving connection', () => {
  it('runs every query of the service under the configured statement_timeout', async () => {
    const store = await postgresWithSample(pgAdminUrl!);
    try {
      const handle = await openServingDatabase(store.url, 1234);
      try {
        const shown = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(handle.db);
        expect(shown.rows[0]?.statement_timeout).toBe('1234ms');
      } finally {
        await handle.close();
      }
    } finally {
      await store.dispose();
    }
  }, 120_000);
});
