// Fuzz: at least 10,000 generated hostile requests per service (malformed JSON, wrong content types, huge
// bodies, deep and aliased queries, invalid cursors, unicode and SQL metacharacters in names, sorts and
// path segments), sent concurrently over keep-alive to the built services running as processes. Every
// answer must be a well-formed JSON result or error, never a 5xx or a stack trace, and each service must
// still be healthy and answer correctly afterwards. The seed is fixed (and printed) so a failure replays.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import {
  graphqlRequests,
  loadSampleSqlite,
  makeTempDir,
  restRequests,
  runFuzz,
  startGraphqlProcess,
  startRestProcess,
  writeSummary,
  type FuzzReport,
  type ServiceProcess,
} from '../src';

const REQUESTS_PER_SERVICE = 10_000;
const SEED = Number(process.env['FUZZ_SEED'] ?? 20240301);
const CONCURRENCY = 16;

let workDir: string;
let graphql: ServiceProcess;
let rest: ServiceProcess;
const reports: Record<string, FuzzReport & { rssBeforeMb?: number; rssAfterMb?: number }> = {};

beforeAll(async () => {
  workDir = makeTempDir('fuzz');
  const databaseFile = path.join(workDir, 'asrank.db');
  await loadSampleSqlite(databaseFile);
  graphql = await startGraphqlProcess({ databaseUrl: databaseFile });
  rest = await startRestProcess({ graphqlUrl: `${graphql.baseUrl}/graphql` });
}, 120_000);

afterAll(async () => {
  writeSummary('fuzz', { seed: SEED, concurrency: CONCURRENCY, services: reports });
  await rest?.process.stop();
  await graphql?.process.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

function rssMb(pid: number | undefined): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return Number.isFinite(kb) ? Math.round(kb / 1024) : undefined;
  } catch {
    return undefined;
  }
}

async function healthyAfterwards(service: ServiceProcess, check: () => Promise<void>): Promise<void> {
  expect(service.process.hasExited()).toBe(false);
  await check();
}

describe(`fuzz (seed ${SEED})`, () => {
  it(`GraphQL: ${REQUESTS_PER_SERVICE} hostile requests, each a well-formed answer, service healthy afterwards`, async () => {
    const requests = fc.sample(graphqlRequests('/v2'), { numRuns: REQUESTS_PER_SERVICE, seed: SEED });
    const rssBeforeMb = rssMb(graphql.process.child.pid);
    const report = await runFuzz(graphql.origin, requests, CONCURRENCY);
    reports['graphql'] = { ...report, rssBeforeMb, rssAfterMb: rssMb(graphql.process.child.pid) };
    expect(report.requests).toBeGreaterThanOrEqual(10_000);
    expect(report.problems).toEqual([]);
    // The generator really exercised the error paths and the success path.
    expect(report.byStatus['200']).toBeGreaterThan(1000);
    expect(report.byStatus['400']).toBeGreaterThan(1000);
    await healthyAfterwards(graphql, async () => {
      const response = await fetch(`${graphql.baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ asns(first: 3) { edges { node { asn } } } }' }),
      });
      expect(response.status).toBe(200);
      expect(
        ((await response.json()) as { data: { asns: { edges: unknown[] } } }).data.asns.edges,
      ).toHaveLength(3);
    });
  }, 480_000);

  it(`REST: ${REQUESTS_PER_SERVICE} hostile requests, each a well-formed answer, service healthy afterwards`, async () => {
    const requests = fc.sample(restRequests('/v2'), { numRuns: REQUESTS_PER_SERVICE, seed: SEED });
    const rssBeforeMb = rssMb(rest.process.child.pid);
    const report = await runFuzz(rest.origin, requests, CONCURRENCY);
    reports['rest'] = { ...report, rssBeforeMb, rssAfterMb: rssMb(rest.process.child.pid) };
    expect(report.requests).toBeGreaterThanOrEqual(10_000);
    expect(report.problems).toEqual([]);
    expect(report.byStatus['200']).toBeGreaterThan(500);
    expect(report.byStatus['400']).toBeGreaterThan(500);
    await healthyAfterwards(rest, async () => {
      expect((await fetch(`${rest.origin}/readyz`)).status).toBe(200);
      const response = await fetch(`${rest.baseUrl}/restful/datasets`);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
    });
  }, 480_000);
});
