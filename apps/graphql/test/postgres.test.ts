// The service over a fresh PostgreSQL database loaded with the committed sample.
import { defineServiceSuite } from './service-suite';
import { pgAdminUrl, postgresWithSample } from './helpers';

if (!pgAdminUrl) {
  console.warn('SKIP GraphQL service on PostgreSQL: DATABASE_URL_PG is not set (CI sets it).');
}

(pgAdminUrl ? describe : describe.skip)('GraphQL service on PostgreSQL', () => {
  defineServiceSuite(() => postgresWithSample(pgAdminUrl!));
});
