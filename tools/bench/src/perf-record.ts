// Linux perf around a measurement (the suite's --perf): `perf record` of the answering processes while autocannon
// runs, then the tables of perf-tables.ts from `perf script`. The processes are started with `--perf-basic-prof`
// so perf can name V8's compiled JavaScript (Node writes /tmp/perf-PID.map).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { sourceMappedFrames } from './profile-tables';
import { parsePerfScript, perfTables, type PerfTables } from './perf-tables';

/** Samples a second of each recorded CPU: enough for shares of a few percent over a measurement of seconds. */
const SAMPLES_PER_SECOND = 999;

/** The `perf` binary's version line, or null when it is missing (the suite's --perf then refuses to start). */
export function perfVersion(): string | null {
  try {
    return execFileSync('perf', ['--version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

export interface PerfRecording {
  /** The processes recorded. */
  pids: readonly number[];
  /** Stops recording and waits until perf has written its file. */
  stop(): Promise<void>;
}

/** Starts `perf record -g -e cpu-clock` of `pids` (every thread of each) into `outputFile`. */
export async function startPerfRecord(pids: readonly number[], outputFile: string): Promise<PerfRecording> {
  const child: ChildProcess = spawn(
    'perf',
    [
      'record',
      '-g',
      '-e',
      'cpu-clock',
      '-F',
      String(SAMPLES_PER_SECOND),
      '-p',
      pids.join(','),
      '-o',
      outputFile,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // perf attaches within milliseconds; a process it cannot attach to makes it exit at once.
  const early = await Promise.race([
    exited,
    new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 300)),
  ]);
  if (early !== 'running')
    throw new Error(`perf record of ${pids.join(',')} exited with ${early}: ${stderr.trim()}`);
  return {
    pids,
    stop: async () => {
      child.kill('SIGINT');
      const code = await exited;
      if (code !== 0 && code !== null) throw new Error(`perf record exited with ${code}: ${stderr.trim()}`);
    },
  };
}

/** Where Node's --perf-basic-prof writes a process's names of compiled JavaScript, which perf reads by pid. */
const jitMapOf = (pid: number) => `/tmp/perf-${pid}.map`;

/**
 * Keeps the JavaScript names of the recorded processes beside the recording (`FILE.maps/`): Node never removes
 * /tmp/perf-PID.map and the suite removes them with the processes, after which perf script could no longer name
 * a frame of compiled JavaScript in the recording.
 */
export function keepJitMaps(pids: readonly number[], file: string): void {
  const dir = `${file}.maps`;
  mkdirSync(dir, { recursive: true });
  for (const pid of pids) {
    if (existsSync(jitMapOf(pid))) copyFileSync(jitMapOf(pid), path.join(dir, path.basename(jitMapOf(pid))));
  }
}

/** The tables of a recorded file, JavaScript frames traced back through the scripts' source maps. */
export function perfTablesOf(file: string): PerfTables {
  // The kept names go back where perf looks for them for the time it reads the recording (unless a live process
  // of the same pid has its own there).
  const restored: string[] = [];
  const kept = `${file}.maps`;
  if (existsSync(kept)) {
    for (const name of readdirSync(kept)) {
      const target = path.join('/tmp', name);
      if (existsSync(target)) continue;
      copyFileSync(path.join(kept, name), target);
      restored.push(target);
    }
  }
  try {
    return perfTablesOfRecording(file);
  } finally {
    for (const target of restored) rmSync(target, { force: true });
  }
}

function perfTablesOfRecording(file: string): PerfTables {
  let text: string;
  try {
    text = execFileSync('perf', ['script', '-i', file, '-F', 'period,ip,sym,dso'], {
      encoding: 'utf8',
      maxBuffer: 1 << 29,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`perf script cannot read ${file}${stderr ? `: ${stderr.split('\n')[0]}` : ''}`);
  }
  return perfTables(parsePerfScript(text), sourceMappedFrames());
}

/** The tables as text: µs a request (when `requests` is known) and the share of the recorded CPU time. */
export function formatPerfTables(tables: PerfTables, requests: number | null, top: number): string {
  const lines: string[] = [];
  const perRequest = (nanos: number) =>
    requests ? `${(nanos / 1e3 / requests).toFixed(2).padStart(7)} µs` : '';
  const share = (nanos: number) => `${((100 * nanos) / tables.totalNanos).toFixed(1).padStart(5)}%`;
  lines.push(
    `${(tables.totalNanos / 1e6).toFixed(0)} ms of CPU sampled` +
      (requests
        ? `, ${requests} requests: ${(tables.totalNanos / 1e3 / requests).toFixed(1)} µs a request`
        : ''),
  );
  const print = (title: string, table: Map<string, number>) => {
    lines.push('', title);
    for (const [name, nanos] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top))
      lines.push(`  ${perRequest(nanos)} ${share(nanos)}  ${name}`);
  };
  print(
    'By the kernel call, SQLite, the GC, or the innermost JavaScript frame (package / file)',
    tables.categories,
  );
  print('By the innermost JavaScript function (the native code it calls included)', tables.functions);
  return lines.join('\n');
}

/** One contender's recording: its name, its tables, and the requests it answered meanwhile. */
export interface RecordedContender {
  name: string;
  tables: PerfTables;
  requests: number;
}

/**
 * The contenders' categories side by side in µs a request, the last contender's (the service) against the one
 * before it (the stack floor, when measured) in the last column, largest difference first: where the service
 * spends what the floor does not.
 */
export function formatPerfComparison(contenders: readonly RecordedContender[], top: number): string {
  const perRequest = (contender: RecordedContender, category: string) =>
    (contender.tables.categories.get(category) ?? 0) / 1e3 / contender.requests;
  const totalPerRequest = (contender: RecordedContender) =>
    contender.tables.totalNanos / 1e3 / contender.requests;
  const last = contenders.at(-1)!;
  const before = contenders.at(-2)!;
  const categories = [...new Set(contenders.flatMap((contender) => [...contender.tables.categories.keys()]))];
  const difference = (category: string) => perRequest(last, category) - perRequest(before, category);
  const rows = categories.sort((a, b) => difference(b) - difference(a)).slice(0, top);
  const cell = (micros: number) => micros.toFixed(2);
  const lines = [
    `| µs a request | ${contenders.map((contender) => contender.name).join(' | ')} | ${last.name} − ${before.name} |`,
    `|---|${contenders.map(() => '---:|').join('')}---:|`,
    `| all of it | ${contenders.map((contender) => cell(totalPerRequest(contender))).join(' | ')} | ${cell(totalPerRequest(last) - totalPerRequest(before))} |`,
    ...rows.map(
      (category) =>
        `| ${category} | ${contenders.map((contender) => cell(perRequest(contender, category))).join(' | ')} | ${cell(difference(category))} |`,
    ),
  ];
  return lines.join('\n');
}
