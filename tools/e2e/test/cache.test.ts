// Caching never serves stale data: the GraphQL service (a process on a SQLite file) answers a repeated query
// from its result cache and a conditional request with 304; then a month is loaded into the same file while
// it runs, and the very next request gets the new answer with a new ETag (no cache hit, no 304 for the old
// tag). The REST service's ETags follow the data the same way.
import fs from 'node:fs';
import path from 'node:path';
import { ingestMonth, readManifest } from '@asrank/cli';
import { migrateToLatest, openDatabase } from '@asrank/db';
import {
  makeTempDir,
  startGraphqlProcess,
  startRestProcess,
  writeSummary,
  type ServiceProcess,
} from '../src';

const QUERY =
  '{ datasets(sort: "date") { totalCount edges { node { date } } } asns(first: 3) { edges { node { asn date rank } } } }';

describe('result cache and ETags across a month load', () => {
  let workDir: string;
  let databaseFile: string;
  let graphql: ServiceProcess;
  let rest: ServiceProcess;
  const months = readManifest().sort((a, b) => a.date.localeCompare(b.date));

  beforeAll(async () => {
    workDir = makeTempDir('cache');
    databaseFile = path.join(workDir, 'asrank.db');
    const loader = openDatabase(databaseFile);
    await migrateToLatest(loader.db, loader.dialect);
    for (const month of months.slice(0, -1)) await ingestMonth(loader, month.options);
    await loader.close();
    graphql = await startGraphqlProcess({ databaseUrl: databaseFile });
    rest = await startRestProcess({ graphqlUrl: `${graphql.baseUrl}/graphql` });
  }, 120_000);

  afterAll(async () => {
    await rest?.process.stop();
    await graphql?.process.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  const ask = (headers: Record<string, string> = {}) =>
    fetch(`${graphql.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: QUERY }),
    });

  it('serves repeats from the cache and 304s, and never a cached answer after a load', async () => {
    const last = months.at(-1);
    if (!last || months.length < 2) throw new Error('the committed sample needs at least two months');

    const first = await ask();
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(first.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    const before = await first.text();
    expect(JSON.parse(before).data.datasets.totalCount).toBe(months.length - 1);

    const repeat = await ask();
    expect(repeat.headers.get('x-cache')).toBe('hit');
    expect(await repeat.text()).toBe(before);
    const conditional = await ask({ 'if-none-match': etag });
    expect(conditional.status).toBe(304);
    expect(await conditional.text()).toBe('');

    const restBefore = await fetch(`${rest.baseUrl}/restful/datasets`);
    const restEtag = restBefore.headers.get('etag') as string;
    await restBefore.text();

    // Load the last month into the file the service is reading.
    const loader = openDatabase(databaseFile);
    await ingestMonth(loader, last.options);
    await loader.close();

    const after = await ask({ 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.headers.get('x-cache')).toBeNull();
    expect(after.headers.get('etag')).not.toBe(etag);
    const answer = JSON.parse(await after.text());
    expect(answer.data.datasets.totalCount).toBe(months.length);
    expect(answer.data.asns.edges[0].node.date).toBe(last.date);

    const restAfter = await fetch(`${rest.baseUrl}/restful/datasets`, {
      headers: { 'if-none-match': restEtag },
    });
    expect(restAfter.status).toBe(200);
    expect(((await restAfter.json()) as { data: { date: string }[] }).data[0]?.date).toBe(last.date);

    const metrics = await (await fetch(`${graphql.origin}/metrics`)).text();
    expect(metrics).toMatch(/asrank_graphql_result_cache_total\{outcome="hit"\} [1-9]/);
    writeSummary('cache', {
      monthsBefore: months.length - 1,
      monthsAfter: months.length,
      staleAnswersServed: 0,
    });
  }, 60_000);
});
