// Linux perf around a measurement (the suite's --perf): `perf record` of the answering processes while autocannon
// runs, then the tables of perf-tables.ts from `perf script`. The processes are started with `--perf-basic-prof`
// so perf can name V8's compiled JavaScript (Node writes /tmp/perf-PID.map).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
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
    stop: async () => {
      child.kill('SIGINT');
      const code = await exited;
      if (code !== 0 && code !== null) throw new Error(`perf record exited with ${code}: ${stderr.trim()}`);
    },
  };
}

/** The tables of a recorded file, JavaScript frames traced back through the scripts' source maps. */
export function perfTablesOf(file: string): PerfTables {
  const text = execFileSync('perf', ['script', '-i', file, '-F', 'period,ip,sym,dso'], {
    encoding: 'utf8',
    maxBuffer: 1 << 29,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
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
  const last = contenders.at(-1)!;
  const before = contenders.at(-2)!;
  const categories = [...new Set(contenders.flatMap((contender) => [...contender.tables.categories.keys()]))];
  const difference = (category: string) => perRequest(last, category) - perRequest(before, category);
  const rows = categories.sort((a, b) => difference(b) - difference(a)).slice(0, top);
  const cell = (micros: number) => micros.toFixed(2);
  const lines = [
    `| µs a request | ${contenders.map((contender) => contender.name).join(' | ')} | ${last.name} − ${before.name} |`,
    `|---|${contenders.map(() => '---:|').join('')}---:|`,
    `| all of it | ${contenders.map((contender) => cell(contender.tables.totalNanos / 1e3 / contender.requests)).join(' | ')} | ${cell(last.tables.totalNanos / 1e3 / last.requests - before.tables.totalNanos / 1e3 / before.requests)} |`,
    ...rows.map(
      (category) =>
        `| ${category} | ${contenders.map((contender) => cell(perRequest(contender, category))).join(' | ')} | ${cell(difference(category))} |`,
    ),
  ];
  return lines.join('\n');
}
