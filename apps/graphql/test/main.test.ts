// The built entry point (dist/main.js) as an operator runs it (with the service's node flags, as its start script
// does): clear one-line refusals, base path, and a graceful SIGTERM. Needs `pnpm --filter @asrank/graphql build`
// (turbo's test task builds first).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { migrateToLatest, openDatabase } from '@asrank/db';
import { codeCacheDirectory, codeCacheFile } from '../src/code-cache';
import { SERVICE_NODE_FLAGS } from '../src/node-flags';
import { graphqlData, makeTempDir, sqliteWithSample, type LoadedDatabase } from './helpers';

const mainJs = path.resolve(__dirname, '..', 'dist', 'main.js');
const built = fs.existsSync(mainJs);
const serviceJs = path.resolve(__dirname, '..', 'dist', 'service.js');
/** The code cache main.js runs the current service.js with (src/code-cache.ts). */
const serviceCodeCache = () => codeCacheFile(serviceJs, fs.readFileSync(serviceJs, 'utf8'));
if (!built) console.warn(`SKIP main.js process tests: ${mainJs} is missing (run the package build first).`);

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  stdout: string;
}

function runMain(env: Record<string, string>): {
  child: ReturnType<typeof spawn>;
  exited: Promise<Exit>;
  output: () => string;
} {
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, mainJs], {
    env: { PATH: process.env['PATH'] ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<Exit>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stderr, stdout })),
  );
  return { child, exited, output: () => stdout + stderr };
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

it("runs the package's start script with the service's node flags", () => {
  const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  expect(SERVICE_NODE_FLAGS.length).toBeGreaterThan(0);
  expect(manifest.scripts['start']).toBe(`node ${SERVICE_NODE_FLAGS.join(' ')} dist/main.js`);
});

/** The command line of a running process (Linux), as its arguments. */
function commandLineOf(pid: string): string[] {
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

(built ? describe : describe.skip)('dist/main.js', () => {
  let store: LoadedDatabase;
  let scratch: string;

  beforeAll(async () => {
    store = await sqliteWithSample();
    scratch = makeTempDir('main');
    // Only this file starts dist/main.js, and its tests run one after another: the refusals below must not leave
    // a code cache, the clean stop must.
    fs.rmSync(codeCacheDirectory(serviceJs), { recursive: true, force: true });
  }, 120_000);

  afterAll(async () => {
    await store?.dispose();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('is built with NODE_ENV fixed to production, so graphql-js skips its development-only type-check guard', () => {
    const bundle = fs.readFileSync(serviceJs, 'utf8');
    // graphql-js's instanceOf is in the bundle, and nothing in it reads NODE_ENV at run time any more.
    expect(bundle).toContain('Cannot use ');
    expect(bundle).not.toMatch(/process\.env\.NODE_ENV/);
  });

  it('refuses a bad PORT with one line naming it and exit code 1', async () => {
    const { exited } = runMain({ PORT: 'abc', DATABASE_URL: store.url });
    const exit = await exited;
    expect(exit.code).toBe(1);
    expect(exit.stderr.trim()).toBe(
      'asrank graphql: invalid configuration: PORT must be a whole number written in decimal digits, got "abc"',
    );
    // A cache of a failed start would hold only the configuration's code, and later starts would keep it.
    expect(fs.existsSync(serviceCodeCache())).toBe(false);
  });

  it('refuses a missing database file with a clear message', async () => {
    const { exited } = runMain({ PORT: '0', DATABASE_URL: path.join(scratch, 'absent.db') });
    const exit = await exited;
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/cannot open SQLite file .*absent\.db/);
    expect(fs.existsSync(path.join(scratch, 'absent.db'))).toBe(false);
  });

  it('refuses a file that is not a store as such, not as one to create', async () => {
    const file = path.join(scratch, 'not-a-store.db');
    fs.writeFileSync(file, Buffer.alloc(4096, 7));
    const exit = await runMain({ PORT: '0', DATABASE_URL: file }).exited;
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(
      /not-a-store\.db .*: it is not a SQLite database; set DATABASE_URL to an asrank store/,
    );
    expect(exit.stderr).not.toMatch(/create it/);
  });

  it('refuses a migrated but empty database, saying to load a month', async () => {
    const file = path.join(scratch, 'empty.db');
    const handle = openDatabase(file);
    await migrateToLatest(handle.db, handle.dialect);
    await handle.close();
    const exit = await runMain({ PORT: '0', DATABASE_URL: file }).exited;
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/holds no dataset: load at least one month/);
  });

  it('refuses a database with pending migrations, naming them', async () => {
    const file = path.join(scratch, 'unmigrated.db');
    const handle = openDatabase(file);
    await sql`create table placeholder (id integer)`.execute(handle.db);
    await handle.close();
    const exit = await runMain({ PORT: '0', DATABASE_URL: file }).exited;
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/pending migration\(s\) \(001_initial/);
    expect(exit.stderr).toMatch(/pnpm asrank migrate/);
  });

  it('says to raise DB_STATEMENT_TIMEOUT_MS when the limit stops its start-up read, not to migrate', async () => {
    // A migration table of 300,000 rows makes the start-up read of the migration state take far longer than 1 ms
    // (it reads and sorts every row), so the limit stops it on any machine.
    const file = path.join(scratch, 'slow-start.db');
    const handle = openDatabase(file);
    await migrateToLatest(handle.db, handle.dialect);
    await sql`insert into kysely_migration (name, timestamp)
      select 'zz_padding_' || x, '2020-01-01T00:00:00.000Z' from (
        with recursive counter(x) as (select 1 union all select x + 1 from counter where x < 300000)
        select x from counter)`.execute(handle.db);
    await handle.close();
    const exit = await runMain({ PORT: '0', DATABASE_URL: file, DB_STATEMENT_TIMEOUT_MS: '1' }).exited;
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(
      /start-up read of the migration state of .*slow-start\.db was stopped by DB_STATEMENT_TIMEOUT_MS \(1 ms\): raise DB_STATEMENT_TIMEOUT_MS/,
    );
    expect(exit.stderr).not.toMatch(/migration\/ingest first/);
    // Without the limit the same store gets past that read to the next check (it holds no dataset): the message was
    // about the limit, not the store. Kysely finds the padding names unknown only when migrating.
    const unlimited = await runMain({ PORT: '0', DATABASE_URL: file, DB_STATEMENT_TIMEOUT_MS: '0' }).exited;
    expect(unlimited.code).toBe(1);
    expect(unlimited.stderr).toMatch(/holds no dataset/);
  });

  it('warns at start-up when its better-sqlite3 cannot keep DB_STATEMENT_TIMEOUT_MS (a build without the patch)', async () => {
    const preload = path.resolve(__dirname, 'unpatched-better-sqlite3.mjs');
    const run = runMain({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: store.url,
      DB_STATEMENT_TIMEOUT_MS: '5000',
      NODE_OPTIONS: `--import ${pathToFileURL(preload).href}`,
    });
    await waitFor(() => /Server listening at/.test(run.output()), 'the listening log line');
    run.child.kill('SIGTERM');
    await run.exited;
    expect(run.output()).toMatch(
      /DB_STATEMENT_TIMEOUT_MS \(5000 ms\) is not enforced on SQLite: this better-sqlite3 is a build without the patch/,
    );
    // The patched build, as installed here, keeps the limit and says nothing of it.
    const patched = runMain({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: store.url,
      DB_STATEMENT_TIMEOUT_MS: '5000',
    });
    await waitFor(() => /Server listening at/.test(patched.output()), 'the listening log line');
    patched.child.kill('SIGTERM');
    await patched.exited;
    expect(patched.output()).not.toMatch(/is not enforced/);
  });

  it('serves under BASE_PATH and closes gracefully on SIGTERM', async () => {
    const run = runMain({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: store.url, BASE_PATH: '/v2' });
    await waitFor(
      () => /Server listening at http:\/\/127\.0\.0\.1:\d+/.test(run.output()),
      'the listening log line',
    );
    const port = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(run.output())![1];
    const base = `http://127.0.0.1:${port}/v2`;
    const data = await graphqlData<{ datasets: { totalCount: number } }>(base, '{ datasets { totalCount } }');
    expect(data.datasets.totalCount).toBe(store.dates.length);
    const outside = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{ datasets { totalCount } }"}',
    });
    expect(outside.status).toBe(404);
    run.child.kill('SIGTERM');
    const exit = await run.exited;
    expect(exit.code).toBe(0);
    expect(exit.stdout).toMatch(/SIGTERM received: closing/);
    expect(fs.statSync(serviceCodeCache()).size).toBeGreaterThan(1_000_000);
  });

  it('with WORKERS=2 refuses a missing database once, from the first worker, and exits 1', async () => {
    const exit = await runMain({ PORT: '0', WORKERS: '2', DATABASE_URL: path.join(scratch, 'absent.db') })
      .exited;
    expect(exit.code).toBe(1);
    expect(exit.stderr.match(/cannot open SQLite file .*absent\.db/g)).toHaveLength(1);
  });

  it('with WORKERS=2 answers from two processes on one port, sums their metrics, replaces a dead worker and stops both on SIGTERM', async () => {
    const run = runMain({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: store.url, WORKERS: '2' });
    const listening = () => [
      ...run.output().matchAll(/"pid":(\d+)[^\n]*Server listening at http:\/\/127\.0\.0\.1:(\d+)/g),
    ];
    await waitFor(() => listening().length === 2, 'two workers listening');
    const workerPids = new Set(listening().map((match) => match[1]));
    expect(workerPids.size).toBe(2);
    // The workers run with the primary's node flags (the heap sizing is per process).
    for (const pid of workerPids)
      expect(commandLineOf(pid!)).toEqual(expect.arrayContaining([...SERVICE_NODE_FLAGS]));
    expect(new Set(listening().map((match) => match[2])).size).toBe(1);
    const port = Number(listening()[0]![2]);
    // A new connection per request: the primary deals connections to the workers in turn.
    const post = () =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/graphql',
            method: 'POST',
            agent: false,
            headers: { 'content-type': 'application/json' },
          },
          (response) => {
            let body = '';
            response.on('data', (chunk: Buffer) => (body += chunk.toString()));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
          },
        );
        request.on('error', reject);
        request.end(JSON.stringify({ query: '{ datasets { totalCount } }' }));
      });
    for (let sent = 0; sent < 6; sent += 1) {
      const answer = await post();
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ data: { datasets: { totalCount: store.dates.length } } });
    }
    const servedBy = new Set(
      [...run.output().matchAll(/"pid":(\d+)[^\n]*"url":"\/graphql"/g)].map((match) => match[1]),
    );
    expect(servedBy).toEqual(workerPids);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const counted =
      /asrank_graphql_http_request_duration_seconds_count\{method="POST",route="\/graphql",status_code="200"\} (\d+)/.exec(
        metrics,
      );
    expect(Number(counted?.[1])).toBe(6);
    // A worker that dies is replaced.
    const [lost] = [...workerPids];
    process.kill(Number(lost), 'SIGKILL');
    await waitFor(() => listening().length === 3, 'a replacement worker listening');
    expect(run.output()).toContain(`asrank graphql: worker ${lost} exited (SIGKILL); starting another`);
    expect((await post()).status).toBe(200);
    run.child.kill('SIGTERM');
    const exit = await run.exited;
    expect(exit.code).toBe(0);
    expect(exit.stdout.match(/stop request received: closing/g)).toHaveLength(2);
  });
});
