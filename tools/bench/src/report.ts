// The suite's report: figures per store and workload, checked against the targets, as Markdown (also
// copied between markers into docs/performance.md) and JSON.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, type GeneratedSpec } from './datasets';
import type { Target, WorkloadId } from './workloads';

export interface ThroughputFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  bytesPerSecond: number;
  errors: number;
  total: number;
  /**
   * CPU time per answered request (µs) over the run: of the processes answering (every thread, workers included;
   * W6: the REST service and the GraphQL service behind it) and of the load generator; and of the answering
   * processes' busiest thread (a Node service's main thread), whose time a request bounds the rate at 10⁶ / it.
   * Absent in older results (busiestThread in those before the forty-eighth round).
   */
  cpuMicrosPerRequest?: {
    answering: number;
    loadGenerator: number;
    busiestThread?: number;
    /** The process the busiest thread belongs to (processes.ts processLabel: `graphql`, `rest`, `postgres`, ...). */
    busiestThreadProcess?: string;
  };
  /** Requests per second of each interleaved round (rounds.ts), in order. Absent in older results. */
  roundRequestsPerSecond?: number[];
}

export interface WorkloadReport {
  id: WorkloadId;
  title: string;
  dialect: 'sqlite' | 'postgres';
  distinctRequests: number;
  meanResponseBytes: number;
  service: ThroughputFigures;
  ceiling: ThroughputFigures;
  /** The stack floor (Fastify + Mercurius answering from memory); null where not measured (the variants of W1 reported apart). */
  floor?: ThroughputFigures | null;
  raw: { microsPerRequest: number; rowsPerRequest: number } | null;
  target: Target;
}

export interface StreamReport {
  dialect: 'sqlite' | 'postgres';
  pages: number;
  megabytes: number;
  seconds: number;
  /** The median walk's rate; every measured walk's rate in walkMbPerSecond. */
  mbPerSecond: number;
  walkMbPerSecond?: number[];
  rssStartMb: number;
  rssPeakMb: number;
  rssEndMb: number;
  /** CPU per page of the GraphQL service (its process tree) and of the walking client (this process). */
  serviceCpuMsPerPage?: number;
  clientCpuMsPerPage?: number;
  raw: { seconds: number; rows: number } | null;
}

export interface StoreReport {
  label: string;
  dialect: 'sqlite' | 'postgres';
  months: number;
  /** Starts with the code cache an earlier start wrote (the GraphQL service's dist/.code-cache). */
  startupMs: number[];
  /** The first start after a build: no code cache yet (absent in reports before the code cache). */
  startupWithoutCodeCacheMs?: number;
  workloads: WorkloadReport[];
  stream: StreamReport | null;
  failures?: string[];
  /** PostgreSQL: its server ran on this machine, and its CPU is in the service's (absent before it was counted). */
  databaseServerCounted?: boolean;
}

export interface SuiteReport {
  at: string;
  machine: { cpu: string; memoryGb: number; node: string; platform: string; cores?: number };
  loadAverageAtStart: number[];
  loadAverageAtEnd?: number[];
  options: {
    connections: number;
    duration: number;
    /** Interleaved rounds each measurement's duration was split into (rounds.ts). Absent in older results: one. */
    rounds?: number;
    spec: GeneratedSpec;
    workers?: number;
    /** Flags `node` ran the GraphQL service (and the floor and ceiling) with. */
    nodeFlags?: readonly string[];
  };
  stores: StoreReport[];
}

const START_MARKER = '<!-- bench:summary:start -->';
const END_MARKER = '<!-- bench:summary:end -->';
const STARTUP_TARGET_MS = 1000;

function verdict(pass: boolean): string {
  return pass ? 'met' : '**missed**';
}

function targetText(workload: WorkloadReport): string {
  const parts: string[] = [];
  const ratio = workload.service.requestsPerSecond / workload.ceiling.requestsPerSecond;
  if (workload.target.minCeilingRatio !== undefined) {
    parts.push(
      `≥ ${workload.target.minCeilingRatio * 100}% ceiling: ${verdict(ratio >= workload.target.minCeilingRatio)}`,
    );
  }
  if (workload.target.maxP99Ms !== undefined) {
    parts.push(
      `p99 < ${workload.target.maxP99Ms} ms: ${verdict(workload.service.p99Ms < workload.target.maxP99Ms)}`,
    );
  }
  if (workload.service.errors > 0) parts.push(`**${workload.service.errors} errors**`);
  return parts.join('; ');
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * The lowest and highest ratio of one round's service rate to the same round's ceiling rate (rounds.ts), when the
 * workload was measured in interleaved rounds: how far the host's swings moved the ratio within the run.
 */
function roundRatios(workload: WorkloadReport): string {
  const service = workload.service.roundRequestsPerSecond;
  const ceiling = workload.ceiling.roundRequestsPerSecond;
  if (!service || !ceiling || service.length < 2 || service.length !== ceiling.length) return '';
  const ratios = service.map((rate, index) => (rate / ceiling[index]!) * 100);
  return ` (rounds ${Math.min(...ratios).toFixed(0)}-${Math.max(...ratios).toFixed(0)}%)`;
}

/** Start-up against its target; since the code cache, the first start after a build (without it) beside it. */
function startupLine(store: StoreReport): string {
  const startup = median(store.startupMs);
  const judged = `${startup.toFixed(0)} ms (target < ${STARTUP_TARGET_MS} ms: ${verdict(startup < STARTUP_TARGET_MS)})`;
  const measured = `Start-up (spawn to first answered /health, median of ${store.startupMs.length}`;
  const cold = store.startupWithoutCodeCacheMs;
  if (cold === undefined) return `${measured}): ${judged}.`;
  return (
    `${measured}, with the code cache an earlier start wrote): ${judged}; ` +
    `the first start after a build, without it: ${cold.toFixed(0)} ms (${verdict(cold < STARTUP_TARGET_MS)}).`
  );
}

export function formatMarkdown(report: SuiteReport): string {
  const lines: string[] = [
    `Run ${report.at} on ${report.machine.cpu}, ${report.machine.memoryGb} GB RAM, Node ${report.machine.node}, ${report.machine.platform}; ` +
      `autocannon ${report.options.connections} connections x ${report.options.duration} s per measurement over loopback` +
      ((report.options.rounds ?? 1) > 1
        ? ` (in ${report.options.rounds} interleaved rounds of ceiling, stack floor and service; rates over all rounds, latencies over every response)`
        : '') +
      '; ' +
      `load average at start ${report.loadAverageAtStart.map((value) => value.toFixed(2)).join(' / ')}` +
      (report.loadAverageAtEnd
        ? `, at end ${report.loadAverageAtEnd.map((value) => value.toFixed(2)).join(' / ')}`
        : '') +
      `; GraphQL service WORKERS=${report.options.workers ?? 1}` +
      (report.options.nodeFlags?.length
        ? `, under node ${report.options.nodeFlags.join(' ')} (so are the stack floor and the ceiling)`
        : '') +
      '. The load generator, the services and the ceiling share the 2 cores. ' +
      "Stack floor: Fastify + Mercurius (graphql-jit) over the service's schema answering the same data from memory " +
      '(W6: the REST service in front of it), no resolver, plugin or database of ours.',
    '',
  ];
  for (const store of report.stores) {
    lines.push(
      `### ${store.label} — ${store.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`,
      '',
      startupLine(store),
      '',
      '| workload | req/s | p50 ms | p99 ms | MB/s | ceiling req/s | % of ceiling | stack floor req/s (% of ceiling) | raw SQLite µs/req (rows) | target |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    );
    for (const workload of store.workloads) {
      const ratio = workload.service.requestsPerSecond / workload.ceiling.requestsPerSecond;
      const raw = workload.raw
        ? `${workload.raw.microsPerRequest.toFixed(1)} (${workload.raw.rowsPerRequest.toFixed(0)})`
        : '–';
      const floor = workload.floor
        ? `${workload.floor.requestsPerSecond.toFixed(0)} (${((workload.floor.requestsPerSecond / workload.ceiling.requestsPerSecond) * 100).toFixed(0)}%)`
        : '–';
      lines.push(
        `| ${workload.id} ${workload.title} | ${workload.service.requestsPerSecond.toFixed(0)} | ${workload.service.p50Ms} | ${workload.service.p99Ms} | ` +
          `${(workload.service.bytesPerSecond / 1e6).toFixed(1)} | ${workload.ceiling.requestsPerSecond.toFixed(0)} | ${(ratio * 100).toFixed(0)}%${roundRatios(workload)} | ${floor} | ${raw} | ${targetText(workload)} |`,
      );
    }
    if (store.stream) {
      const stream = store.stream;
      const raw = stream.raw
        ? `${(stream.raw.seconds * 1000).toFixed(0)} ms for ${stream.raw.rows} rows`
        : '–';
      const walks =
        stream.walkMbPerSecond && stream.walkMbPerSecond.length > 1
          ? `; the median of ${stream.walkMbPerSecond.length} walks at ${stream.walkMbPerSecond.map((rate) => rate.toFixed(1)).join(' / ')} MB/s`
          : '';
      lines.push(
        `| W5 cone stream, ten largest cones (${stream.pages} pages, ${stream.megabytes.toFixed(1)} MB in ${stream.seconds.toFixed(2)} s${walks}) | | | | ` +
          `${stream.mbPerSecond.toFixed(1)} | | | | ${raw} | ≥ 50 MB/s: ${verdict(stream.mbPerSecond >= 50)}; RSS ${stream.rssStartMb.toFixed(0)} → peak ${stream.rssPeakMb.toFixed(0)} → ${stream.rssEndMb.toFixed(0)} MB |`,
      );
    }
    lines.push(...cpuBudgetTable(store, report.machine.cores));
    for (const failure of store.failures ?? []) lines.push('', `Failed: ${failure}`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

const micros = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '–');

/** A busiest thread's µs a request, with its process when known (`94 (graphql)`). */
function threadFigure(cpu: NonNullable<ThroughputFigures['cpuMicrosPerRequest']>): string {
  const figure = micros(cpu.busiestThread ?? Number.NaN);
  return cpu.busiestThreadProcess ? `${figure} (${cpu.busiestThreadProcess})` : figure;
}

/**
 * What the machine can spend on a request at each ratio target, against what the stack floor and the service spent
 * per request in this run. Two bounds hold at once. At the target's rate the cores supply `cores / rate` of CPU per
 * request; the load generator takes its share (measured during the floor's run, the rate nearest the target), and
 * whatever is left must pay for every process that answers, whatever their number (WORKERS). And no thread runs more
 * than a second a second: the answering processes' busiest thread (a Node service's main thread, which parses,
 * executes and serializes every request) has `1 / rate` per request, however idle the other core is. A floor that
 * alone exceeds either bound puts the target out of reach of this stack on this machine, with no code of ours at all.
 */
export function cpuBudgetTable(store: StoreReport, cores: number | undefined): string[] {
  if (!cores) return [];
  const rows = store.workloads.flatMap((workload) => {
    const ratio = workload.target.minCeilingRatio;
    const floorCpu = workload.floor?.cpuMicrosPerRequest;
    const serviceCpu = workload.service.cpuMicrosPerRequest;
    if (ratio === undefined || !floorCpu || !serviceCpu) return [];
    const targetRate = ratio * workload.ceiling.requestsPerSecond;
    const perRequest = (cores * 1e6) / targetRate;
    const oneThread = 1e6 / targetRate;
    const left = perRequest - floorCpu.loadGenerator;
    const ours = serviceCpu.answering - floorCpu.answering;
    const floorThread = floorCpu.busiestThread;
    const shortfalls: string[] = [];
    if (floorCpu.answering > left)
      shortfalls.push(`the floor alone needs ${micros(floorCpu.answering - left)} µs more than is left`);
    if (floorThread !== undefined && floorThread > oneThread)
      shortfalls.push(
        `the floor's busiest thread alone needs ${micros(floorThread - oneThread)} µs more than one thread has`,
      );
    const answer =
      shortfalls.length > 0
        ? `no: ${shortfalls.join('; ')}`
        : `only if ours costs ≤ ${micros(left - floorCpu.answering)} µs` +
          (floorThread === undefined
            ? ''
            : `, ≤ ${micros(oneThread - floorThread)} of it on the busiest thread`);
    const threads = `${threadFigure(floorCpu)} / ${threadFigure(serviceCpu)}`;
    return [
      `| ${workload.id} | ${targetRate.toFixed(0)} | ${micros(perRequest)} | ${micros(oneThread)} | ${micros(floorCpu.loadGenerator)} | ${micros(left)} | ` +
        `${micros(workload.ceiling.cpuMicrosPerRequest?.answering ?? Number.NaN)} | ${micros(floorCpu.answering)} | ${micros(serviceCpu.answering)} | ${micros(ours)} | ${threads} | ${answer} |`,
    ];
  });
  if (rows.length === 0) return [];
  return [
    '',
    `CPU per answered request (µs; user + system of every thread of the answering processes, from /proc${
      store.databaseServerCounted ? "; the service's includes the PostgreSQL server's processes" : ''
    }) against what ${cores} cores, and one thread, supply per request at each ratio target:`,
    '',
    '| workload | target req/s | cores per request at target | one thread per request at target | load generator | left to answer | ceiling | stack floor | service | ours (service − floor) | busiest thread: stack floor / service | can the stack floor meet it? |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows,
  ];
}

/** Replaces the summary between the markers of docs/performance.md (appends the markers when missing). */
export function updatePerformanceDoc(markdown: string): void {
  const file = path.join(REPO_ROOT, 'docs', 'performance.md');
  const block = `${START_MARKER}\n${markdown}${END_MARKER}`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# Performance\n';
  const start = current.indexOf(START_MARKER);
  const end = current.indexOf(END_MARKER);
  const next =
    start >= 0 && end > start
      ? current.slice(0, start) + block + current.slice(end + END_MARKER.length)
      : `${current.trimEnd()}\n\n## Latest benchmark summary\n\n${block}\n`;
  writeFileSync(file, next);
}
