// DB_STATEMENT_TIMEOUT_MS bounds every statement on SQLite too (the patched better-sqlite3 interrupts it), so one
// request cannot hold the service's thread for seconds: the request gets an error that says what happened and what to
// ask instead, and the service answers the next request. The store is a generated month of 400,000 links, which a
// deep page sorted by asn1 sorts whole (~200 ms); the limit, 25 ms, is still far above the service's own start-up
// statements (~1 ms), which run under it too (a 3 ms limit once failed the start on a loaded machine).
import fs from 'node:fs';
import path from 'node:path';
import { migrateToLatest, openDatabase } from '@asrank/db';
import { generateDataset, loadSampleData } from '@asrank/cli';
import { STATEMENT_TIMEOUT_MESSAGE } from '@asrank/schema';
import { graphql, makeTempDir, startService, type RunningService } from './helpers';

// Generating and loading the month takes ~100 s on a loaded 2-core CI machine (106 s once, past 120 s another time).
const SETUP_TIMEOUT_MS = 300_000;
jest.setTimeout(SETUP_TIMEOUT_MS);

describe('statement time limit on SQLite', () => {
  let dir: string;
  let service: RunningService;

  beforeAll(async () => {
    dir = makeTempDir('statement-timeout');
    const generated = path.join(dir, 'generated');
    await generateDataset({
      outDir: generated,
      seed: 7,
      asns: 20_000,
      links: 400_000,
      prefixes: 20_000,
      months: 1,
    });
    const loader = openDatabase(path.join(dir, 'asrank.db'));
    await migrateToLatest(loader.db, loader.dialect);
    await loadSampleData(loader, generated);
    await loader.close();
    service = await startService(path.join(dir, 'asrank.db'), {
      DB_STATEMENT_TIMEOUT_MS: '25',
      RESULT_CACHE_MB: '0',
    });
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await service?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stops a statement past the limit with an error that says so, and answers the next request', async () => {
    const slow = await graphql(
      service.baseUrl,
      '{ asnLinks(sort: "-asn1,relationship", first: 1, offset: 390000) { edges { node { asn0 { asn } } } } }',
    );
    expect(slow.status).toBe(200);
    expect(slow.body.errors).toEqual([
      expect.objectContaining({
        message: STATEMENT_TIMEOUT_MESSAGE,
        path: ['asnLinks'],
        extensions: { code: 'STATEMENT_TIMEOUT' },
      }),
    ]);
    expect(STATEMENT_TIMEOUT_MESSAGE).toMatch(/DB_STATEMENT_TIMEOUT_MS.*smaller offset/);
    const next = await graphql<{ asns: { edges: { node: { asn: string } }[] } }>(
      service.baseUrl,
      '{ asns(first: 3) { edges { node { asn } } } }',
    );
    expect(next.status).toBe(200);
    expect(next.body.errors).toBeUndefined();
    expect(next.body.data?.asns.edges).toHaveLength(3);
  });
});
