// `pnpm bench:prepare`: builds the cached benchmark databases without measuring anything, so the slow part
// (generating and loading 12 full-Internet months) can run ahead of the measurements.
import { prepareGenerated, prepareReal } from './datasets';
import { parseSuiteOptions, runSuiteEntryPoint } from './options';

async function main(): Promise<void> {
  // `--store sqlite|postgres` builds one kind only, so two prepare processes can load both side by side.
  const options = parseSuiteOptions();
  const stores = options.stores;
  const pgServer = options.skipPostgres ? null : (process.env.DATABASE_URL_PG ?? null);
  if (!pgServer && !options.skipPostgres)
    console.log('DATABASE_URL_PG is not set: PostgreSQL stores are skipped.');
  await prepareGenerated(options.spec, pgServer, stores);
  if (!options.skipReal) await prepareReal(pgServer, stores);
}

runSuiteEntryPoint(main);
