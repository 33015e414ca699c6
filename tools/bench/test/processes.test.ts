// The suite divides the CPU time of the answering processes by the requests they answered: the reading must count
// every process behind a service (a primary and its workers), or a service with WORKERS > 1 would look cheaper.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import os from 'node:os';
import path from 'node:path';
import {
  cpuSeconds,
  localPostgresServerPid,
  postgresServerOf,
  processLabel,
  threadCpuDeltas,
  threadCpuSeconds,
} from '../src/processes';

const onLinux = process.platform === 'linux' ? it : it.skip;

/**
 * A node process that starts a child which spins until it has used `spinMs` of CPU time (not wall-clock time, so a
 * busy machine only makes it slower), then both stay alive until killed.
 */
function parentOfSpinningChild(spinMs: number): ChildProcess {
  const child = `while (process.cpuUsage().user < ${spinMs * 1000}); console.log('spun'); setInterval(() => {}, 1000);`;
  const parent = `const { spawn } = require('node:child_process');
    const c = spawn(process.execPath, ['-e', ${JSON.stringify(child)}], { stdio: ['ignore', 'inherit', 'inherit'] });
    process.on('SIGTERM', () => { c.kill('SIGKILL'); process.exit(0); });
    setInterval(() => {}, 1000);`;
  return spawn(process.execPath, ['-e', parent], { stdio: ['ignore', 'pipe', 'inherit'] });
}

describe('cpuSeconds', () => {
  let parent: ChildProcess | undefined;
  afterEach(() => {
    parent?.kill('SIGTERM');
  });

  onLinux("counts a process's descendants' CPU time with its own", async () => {
    parent = parentOfSpinningChild(800);
    await new Promise<void>((resolve) => parent!.stdout!.once('data', () => resolve()));
    // The child used at least 0.8 s of CPU; the idle parent's own start-up is a small fraction of that.
    expect(cpuSeconds(parent.pid)).toBeGreaterThan(0.8);
  });

  it('answers NaN for a process that does not exist', () => {
    expect(cpuSeconds(undefined)).toBeNaN();
    expect(cpuSeconds(2 ** 22 + 12345)).toBeNaN();
  });
});

describe('threadCpuSeconds', () => {
  let parent: ChildProcess | undefined;
  afterEach(() => {
    parent?.kill('SIGTERM');
  });

  onLinux(
    "reads each thread of a process and its descendants, the spinning child's main thread the busiest",
    async () => {
      parent = parentOfSpinningChild(500);
      await new Promise<void>((resolve) => parent!.stdout!.once('data', () => resolve()));
      const threads = threadCpuSeconds([parent.pid, undefined]);
      // Node runs several threads a process (V8's and libuv's helpers), and the parent and its child are two processes.
      const pids = new Set([...threads.keys()].map((key) => key.split('/')[0]));
      expect(pids.size).toBe(2);
      expect(threads.size).toBeGreaterThan(4);
      const [busiest, { seconds, process: label }] = [...threads].reduce((most, entry) =>
        entry[1].seconds > most[1].seconds ? entry : most,
      );
      // The child's main thread is its process's first task: its tid is its pid.
      const [pid, tid] = busiest.split('/');
      expect(tid).toBe(pid);
      expect(pid).not.toBe(String(parent.pid));
      expect(seconds).toBeGreaterThan(0.5);
      // A node process run with -e has no script to name it by.
      expect(label).toBe(`pid ${pid}`);
      // Every thread's time is at most its process's (cpuSeconds adds the threads up).
      expect(seconds).toBeLessThanOrEqual(cpuSeconds(Number(pid)) + 0.02);
    },
  );

  it('answers nothing for processes that do not exist', () => {
    expect(threadCpuSeconds([undefined, 2 ** 22 + 12345]).size).toBe(0);
  });

  it('takes the difference of two readings per thread, counting a new thread from zero', () => {
    const deltas = threadCpuDeltas(
      new Map([
        ['1/1', { seconds: 2, process: 'graphql' }],
        ['1/2', { seconds: 0.5, process: 'graphql' }],
      ]),
      new Map([
        ['1/1', { seconds: 2.25, process: 'graphql' }],
        ['1/3', { seconds: 0.1, process: 'graphql' }],
      ]),
    );
    expect([...deltas]).toEqual([
      ['1/1', { seconds: 0.25, process: 'graphql' }],
      ['1/3', { seconds: 0.1, process: 'graphql' }],
    ]);
  });
});

describe('processLabel', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
  });

  onLinux('names a node process by its app folder or its script', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'label-'));
    const script = path.join(dir, 'apps', 'rest', 'dist', 'main.js');
    mkdirSync(path.dirname(script), { recursive: true });
    writeFileSync(script, "console.log('up'); setInterval(() => {}, 1000);");
    const started = (file: string) =>
      new Promise<ChildProcess>((resolve) => {
        const spawned = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'inherit'] });
        spawned.stdout!.once('data', () => resolve(spawned));
      });
    child = await started(script);
    expect(processLabel(child.pid!)).toBe('rest');
    child.kill('SIGKILL');
    const server = path.join(dir, 'floor-server.js');
    writeFileSync(server, "console.log('up'); setInterval(() => {}, 1000);");
    child = await started(server);
    expect(processLabel(child.pid!)).toBe('floor-server');
    expect(processLabel(2 ** 22 + 12345)).toBe(`pid ${2 ** 22 + 12345}`);
  });
});

describe('the local PostgreSQL server', () => {
  const PG_URL = process.env.DATABASE_URL_PG;

  (PG_URL && process.platform === 'linux' ? it : it.skip)(
    "is found from a backend, and its CPU counts its backends' work",
    async () => {
      const server = await localPostgresServerPid(PG_URL!);
      expect(server).toBeGreaterThan(0);
      const before = cpuSeconds(server);
      expect(before).toBeGreaterThanOrEqual(0);
      // A backend busy for ~0.3 s of CPU, closed before the second reading: the server waited for it, and its
      // time must still count.
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      let backend = 0;
      try {
        backend = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
        await client.query('select count(*) from generate_series(1, 3000000)');
      } finally {
        await client.end();
      }
      // The client's end does not wait for the backend to exit and be reaped; until the server has waited for it,
      // its time is in neither reading (once read 0 on CI). Its /proc entry goes when it is reaped.
      for (let waited = 0; existsSync(`/proc/${backend}`) && waited < 10_000; waited += 20) await sleep(20);
      expect(existsSync(`/proc/${backend}`)).toBe(false);
      expect(cpuSeconds(server) - before).toBeGreaterThan(0.05);
    },
  );

  it('is not found behind a process that is not a PostgreSQL backend, or one that does not exist', () => {
    expect(postgresServerOf(process.pid)).toBeUndefined();
    expect(postgresServerOf(2 ** 22 + 12345)).toBeUndefined();
  });
});
