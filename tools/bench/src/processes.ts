// Starts the measured services as separate processes (so the load generator never shares their event loop),
// waits until they answer, samples their memory, and stops them by pid.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { REPO_ROOT } from './datasets';

export const GRAPHQL_MAIN = path.join(REPO_ROOT, 'apps', 'graphql', 'dist', 'main.js');
/** The bundled service GRAPHQL_MAIN runs (through its code cache, beside it). */
export const GRAPHQL_BUNDLE = path.join(REPO_ROOT, 'apps', 'graphql', 'dist', 'service.js');
export const REST_MAIN = path.join(REPO_ROOT, 'apps', 'rest', 'dist', 'main.js');
export const CEILING_MAIN = path.join(__dirname, 'ceiling-server.js');
export const FLOOR_MAIN = path.join(__dirname, 'floor-server.js');
/** The GraphQL service's data path alone (data-path-server.ts), measured beside the service for W1. */
export const DATA_PATH_MAIN = path.join(__dirname, 'data-path-server.js');

export interface ServiceProcess {
  name: string;
  port: number;
  child: ChildProcess;
  /** Milliseconds from spawn to the first successful answer of the readiness URL. */
  readyMs: number;
  baseUrl: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  name: string;
  script: string;
  env: Record<string, string>;
  /** Path polled until it answers 2xx (e.g. /health). */
  readyPath: string;
  logDir: string;
  /** Directory for `node --cpu-prof` profiles, or null; each process writes into its own subdirectory (its name). */
  profileDir?: string | null;
  /** Flags for `node` itself (the GraphQL service's SERVICE_NODE_FLAGS). */
  nodeFlags?: readonly string[];
  /** Start with `--perf-basic-prof`, so Linux perf can name its compiled JavaScript (the suite's --perf). */
  perfMap?: boolean;
  timeoutMs?: number;
}

/** A port nobody listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function startService(options: StartOptions): Promise<ServiceProcess> {
  const port = await freePort();
  mkdirSync(options.logDir, { recursive: true });
  const log = createWriteStream(path.join(options.logDir, `${options.name}.log`));
  const nodeArgs = [
    ...(options.nodeFlags ?? []),
    ...(options.profileDir
      ? ['--cpu-prof', `--cpu-prof-dir=${path.join(options.profileDir, options.name)}`]
      : []),
    // The V8 log --perf-basic-prof turns on goes to the run's log directory instead of the working directory.
    ...(options.perfMap
      ? [
          '--perf-basic-prof',
          '--no-logfile-per-isolate',
          `--logfile=${path.join(options.logDir, `${options.name}-v8.log`)}`,
        ]
      : []),
  ];
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [...nodeArgs, options.script], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...options.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  let exited: string | null = null;
  child.once('exit', (code, signal) => {
    exited = `exited with ${signal ?? `code ${code}`}`;
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (exited)
      throw new Error(
        `${options.name} ${exited} before it was ready; see ${path.join(options.logDir, `${options.name}.log`)}`,
      );
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.name} was not ready within ${options.timeoutMs ?? 60_000} ms`);
    }
    try {
      const response = await fetch(baseUrl + options.readyPath);
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    await delay(5);
  }
  const readyMs = Number(process.hrtime.bigint() - started) / 1e6;
  return {
    name: options.name,
    port,
    child,
    readyMs,
    baseUrl,
    stop: async () => {
      // Node writes /tmp/perf-PID.map for each process of the tree under --perf-basic-prof and never removes it.
      const perfMaps =
        options.perfMap && child.pid ? processTree(child.pid).map((pid) => `/tmp/perf-${pid}.map`) : [];
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(killer);
          resolve();
        });
        child.kill('SIGTERM');
      });
      for (const file of perfMaps) rmSync(file, { force: true });
    },
  };
}

/**
 * `readOne` of a process plus the same of all its descendants (a service with WORKERS > 1 is a primary and its
 * workers), from /proc (Linux); NaN when the process itself cannot be read, a descendant gone meanwhile counts 0.
 */
function overProcessTree(pid: number | undefined, readOne: (pid: number) => number): number {
  if (pid === undefined) return Number.NaN;
  try {
    let total = readOne(pid);
    for (const child of childPids(pid)) total += overProcessTree(child, readOne) || 0;
    return total;
  } catch {
    return Number.NaN;
  }
}

/** Resident memory (MB) of a process and all its descendants. */
export function rssMb(pid: number | undefined): number {
  return overProcessTree(pid, (one) => {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${one}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  });
}

/** A process and all its descendants (the processes `perf record -p` must be given one by one). */
export function processTree(pid: number): number[] {
  return [pid, ...childPids(pid).flatMap(processTree)];
}

function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux when getconf is missing). */
let clockTicksPerSecond: number | undefined;
function clockTicks(): number {
  if (clockTicksPerSecond === undefined) {
    try {
      clockTicksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicksPerSecond = 100;
    }
  }
  return clockTicksPerSecond;
}

/**
 * The fields of a /proc stat line (`/proc/PID/stat`, or a thread's `/proc/PID/task/TID/stat`) after the command name
 * (field 2), which may hold spaces and parentheses.
 */
function statFieldsAfterCommand(statPath: string): string[] {
  const stat = readFileSync(statPath, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * CPU time (user + system, seconds, every thread included) a process and its descendants have used so far, those
 * that ended and were waited for included (a PostgreSQL backend closed by its pool during a run).
 */
export function cpuSeconds(pid: number | undefined): number {
  return overProcessTree(pid, (one) => {
    const fields = statFieldsAfterCommand(`/proc/${one}/stat`);
    // utime, stime, cutime and cstime are fields 14-17 of the line, 12-15 after the command name; cutime and cstime
    // are the waited-for children's, which the tree's walk no longer finds.
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / clockTicks();
  });
}

/** One thread's CPU time (user + system, seconds) and the process it belongs to (processLabel). */
export interface ThreadCpu {
  seconds: number;
  process: string;
}

/**
 * What a process is, for a report: `postgres` for a PostgreSQL server's process, else the app a node process runs
 * (`graphql`, `rest`: the folder under apps/) or its script's name (`floor-server`); `pid N` when unknown.
 */
export function processLabel(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    if (/postgres/.test(argv[0] ?? '')) return 'postgres';
    const script = argv.find((arg) => arg.endsWith('.js'));
    if (script) {
      const app = /(?:^|\/)apps\/([^/]+)\//.exec(script);
      return app ? app[1]! : path.basename(script, '.js');
    }
  } catch {
    // Gone meanwhile: named by its pid below.
  }
  return `pid ${pid}`;
}

/**
 * CPU time each thread of the processes and their descendants has used so far, keyed `pid/tid`; threads that cannot
 * be read (ended meanwhile) are left out. A Node service runs its HTTP parsing, JavaScript, SQLite calls and
 * serialization on one thread, and a thread cannot use more than one second of CPU a second: its time per request
 * bounds the service's rate however idle the other core is.
 */
export function threadCpuSeconds(pids: readonly (number | undefined)[]): Map<string, ThreadCpu> {
  const threads = new Map<string, ThreadCpu>();
  for (const pid of pids.filter((one): one is number => one !== undefined).flatMap(processTree)) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    const label = processLabel(pid);
    for (const task of tasks) {
      try {
        // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command name.
        const fields = statFieldsAfterCommand(`/proc/${pid}/task/${task}/stat`);
        threads.set(`${pid}/${task}`, {
          seconds: (Number(fields[11]) + Number(fields[12])) / clockTicks(),
          process: label,
        });
      } catch {
        // The thread ended between the listing and the reading.
      }
    }
  }
  return threads;
}

/** Each thread's CPU seconds between two readings of threadCpuSeconds (a thread new in `after` counts from zero). */
export function threadCpuDeltas(
  before: ReadonlyMap<string, ThreadCpu>,
  after: ReadonlyMap<string, ThreadCpu>,
): Map<string, ThreadCpu> {
  const deltas = new Map<string, ThreadCpu>();
  for (const [thread, reading] of after)
    deltas.set(thread, { ...reading, seconds: reading.seconds - (before.get(thread)?.seconds ?? 0) });
  return deltas;
}

/** The parent process id of `pid`, from /proc (Linux); undefined when it cannot be read. */
export function parentPid(pid: number): number | undefined {
  try {
    // ppid is field 4 of the line, 2 after the command name.
    const parent = Number(statFieldsAfterCommand(`/proc/${pid}/stat`)[1]);
    return Number.isSafeInteger(parent) && parent > 0 ? parent : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The PostgreSQL server's main process (the postmaster, whose children are every backend and background worker),
 * found as the parent of the backend a connection to `url` gets, when that server runs on this machine: its CPU shares the cores
 * with the service and the load generator, so the suite counts it with the service. Undefined when the backend is
 * not a local process or not PostgreSQL's.
 */
export async function localPostgresServerPid(url: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    return postgresServerOf(rows[0]!.pid);
  } finally {
    await client.end();
  }
}

/** The local PostgreSQL server whose backend is `backendPid` (localPostgresServerPid), read while it runs. */
export function postgresServerOf(backendPid: number): number | undefined {
  const server = parentPid(backendPid);
  return server !== undefined && processLabel(server) === 'postgres' ? server : undefined;
}
