// `pnpm bench`: the query-service benchmark suite (issue 7). For each store (generated full-Internet months and,
// when present, the real December 2017 month; SQLite and PostgreSQL) it starts the built GraphQL and REST
// services and a ceiling server as separate processes, then for every workload:
//   1. sends each request once (warm-up; checks the answers carry no error; records the response bytes),
//   2. loads those bytes into the ceiling (bare Fastify, answers from memory),
//   3. measures the ceiling, the stack floor and the service with autocannon, rotating through the requests (many
//      different keys), each after 2 s of the same load unmeasured, in interleaved rounds (rounds.ts: a host that
//      changes speed weighs on all three alike),
//   4. times the same rows read straight from SQLite with better-sqlite3 prepared statements.
// W5 walks asnConesStream page by page on one connection, from a client process of its own (cone-walk.ts), and
// samples the service's RSS and CPU meanwhile.
// Output: Markdown + JSON under tools/bench/results/, and the summary between the markers in docs/performance.md.
//
// Beside the ceiling, the stack floor (stack-floor.ts: Fastify + Mercurius over the service's schema, answering from
// memory) is measured the same way, so each workload shows what the fixed stack costs before our own layers.
//
// Usage: pnpm bench [--asns N] [--months N] [--duration S] [--rounds N] [--connections N] [--only W1,W5] [--skip-real]
//   [--skip-postgres] [--store sqlite|postgres] [--profile] [--perf] [--workers N (the GraphQL service's WORKERS)]
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import BetterSqlite3 from 'better-sqlite3';
import { SERVICE_NODE_FLAGS, codeCacheDirectory } from '@asrank/graphql';
import { MEASURED_CONE_WALKS, medianWalkIndex, walkConeStreamInChild } from './cone-walk';
import { BENCH_ROOT, REPO_ROOT, prepareGenerated, prepareReal, type PreparedStores } from './datasets';
import { parseSuiteOptions, runSuiteEntryPoint, UsageError, type SuiteOptions } from './options';
import {
  formatPerfComparison,
  formatPerfTables,
  keepJitMaps,
  perfTablesOf,
  perfVersion,
  startPerfRecord,
  type RecordedContender,
} from './perf-record';
import { combineRounds, roundRate, type RoundMeasurement } from './rounds';
import {
  CEILING_MAIN,
  DATA_PATH_MAIN,
  FLOOR_MAIN,
  GRAPHQL_BUNDLE,
  GRAPHQL_MAIN,
  REST_MAIN,
  cpuSeconds,
  threadCpuDeltas,
  threadCpuSeconds,
  localPostgresServerPid,
  processTree,
  rssMb,
  startService,
  type ServiceProcess,
} from './processes';
import {
  formatMarkdown,
  updatePerformanceDoc,
  type StoreReport,
  type SuiteReport,
  type ThroughputFigures,
} from './report';
import {
  W5_QUERY,
  buildWorkloads,
  rawConeWalk,
  readFacts,
  type HttpRequestSpec,
  type ThroughputWorkload,
} from './workloads';

const RESULTS_DIR = path.join(BENCH_ROOT, 'results');
/** Longest time spent sending each distinct request once before a measurement. */
const RECORD_BUDGET_MS = 30_000;
/**
 * Uncached, unshed measurements: the result cache would answer the rotated requests from memory after the
 * warm-up, and load shedding (503 when the event loop lags) would turn this 2-core machine's contention into
 * errors instead of latency. The cached figure is measured separately (W1 cached).
 */
const GRAPHQL_ENV = { RESULT_CACHE_MB: '0', MAX_EVENT_LOOP_DELAY_MS: '0' };
const REST_ENV = { MAX_EVENT_LOOP_DELAY_MS: '0', RATE_LIMIT_MAX: '0' };
/** A fresh object every time: autocannon writes Content-Length into the headers object it is given. */
function jsonHeaders(): Record<string, string> {
  return { 'content-type': 'application/json' };
}

interface Services {
  graphql: ServiceProcess;
  rest: ServiceProcess;
  ceiling: ServiceProcess;
  /** The stack floor in front of `graphql`, and a REST service in front of the floor (W6's floor). */
  floor: ServiceProcess;
  restFloor: ServiceProcess;
  /** The local PostgreSQL server's main process when the store is PostgreSQL on this machine (its CPU is counted). */
  databaseServerPid?: number;
}

/** fetch() hides the reason (refused, reset) in `cause`. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return error.message + cause;
}

function log(message: string): void {
  console.log(`[bench] ${message}`);
}

/**
 * autocannon over loopback for `seconds`, rotating through `requests` so consecutive requests hit different keys.
 * The CPU time that `answering` (the processes behind `baseUrl`) and the load generator (autocannon runs in this
 * process) used during the run comes with it, so each figure says what a request cost the machine; every 2xx
 * response's latency too, so rounds combine into exact percentiles (rounds.ts).
 */
async function measure(
  baseUrl: string,
  requests: readonly HttpRequestSpec[],
  options: SuiteOptions,
  answering: readonly (number | undefined)[],
  seconds: number,
): Promise<RoundMeasurement> {
  const answeringCpu = () => answering.reduce<number>((sum, pid) => sum + cpuSeconds(pid), 0);
  const answeringBefore = answeringCpu();
  const threadsBefore = threadCpuSeconds(answering);
  const loadGeneratorBefore = process.cpuUsage();
  let next = 0;
  const latenciesMs: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const run = autocannon(
      {
        url: baseUrl,
        connections: options.connections,
        duration: seconds,
        requests: [
          {
            setupRequest: (request) => {
              const spec = requests[next++ % requests.length] as HttpRequestSpec;
              return {
                ...request,
                method: spec.method,
                path: spec.path,
                body: spec.body,
                headers: spec.body ? jsonHeaders() : {},
              };
            },
          },
        ],
      },
      (error, finished) => (error ? reject(error as Error) : resolve(finished)),
    );
    run.on('response', (_client, statusCode, _bytes, latencyMs) => {
      // As autocannon's own latency figures: successful responses only (errors are counted apart).
      if (statusCode >= 200 && statusCode < 300) latenciesMs.push(latencyMs);
    });
  });
  const loadGenerator = process.cpuUsage(loadGeneratorBefore);
  return {
    total: result.requests.total,
    seconds: result.duration,
    bytes: result.throughput.total,
    errors: result.errors + result.timeouts + result.non2xx,
    latenciesMs,
    answeringCpuSeconds: answeringCpu() - answeringBefore,
    threadCpuSeconds: threadCpuDeltas(threadsBefore, threadCpuSeconds(answering)),
    loadGeneratorCpuMicros: loadGenerator.user + loadGenerator.system,
  };
}

/** One of the processes a workload is measured against, by the name the log gives it. */
interface Contender {
  name: string;
  baseUrl: string;
  /** The processes whose CPU answers the contender's requests (each with its descendants). */
  answering: readonly (number | undefined)[];
}

/** Seconds of unmeasured load each contender answers before a workload's rounds. */
const LOAD_WARM_UP_SECONDS = 2;

/** A name as part of a file or process name: runs of other characters as one dash, lower case. */
function fileSlug(name: string): string {
  return name.replace(/\W+/g, '-').toLowerCase();
}

/**
 * Measures the contenders in `options.rounds` interleaved rounds (each `options.duration / options.rounds` seconds,
 * in the contenders' order, round after round) and combines each one's rounds (rounds.ts says why).
 */
async function measureInRounds(
  id: string,
  contenders: readonly Contender[],
  requests: readonly HttpRequestSpec[],
  options: SuiteOptions,
  perfStem: string | null = null,
): Promise<ThroughputFigures[]> {
  const rounds = contenders.map((): RoundMeasurement[] => []);
  const seconds = options.duration / options.rounds;
  // Each contender first answers the same load unmeasured: the recording pass sends its requests one at a time,
  // which leaves V8 still compiling the paths ten connections take (at 23:36 on 2026-11-26 the first rounds of
  // W1 and W6 read 13,038 and 6,058 req/s against 17,476-18,292 and 8,963-9,160 after, and perf found TurboFan
  // still at work in the REST service).
  for (const contender of contenders) {
    await measure(
      contender.baseUrl,
      requests,
      options,
      contender.answering,
      Math.min(LOAD_WARM_UP_SECONDS, seconds),
    );
  }
  const recorded: RecordedContender[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    for (const [index, contender] of contenders.entries()) {
      // perf records the last round only (the first may still be compiling a fresh process's hot code): its
      // sampling costs the measured processes a little CPU.
      const perfFile =
        perfStem && round === options.rounds ? `${perfStem}-${fileSlug(contender.name)}.data` : null;
      const recording = perfFile
        ? await startPerfRecord(
            contender.answering.filter((pid): pid is number => pid !== undefined).flatMap(processTree),
            perfFile,
          )
        : null;
      const measured = await measure(contender.baseUrl, requests, options, contender.answering, seconds);
      rounds[index]!.push(measured);
      if (recording && perfFile) {
        await recording.stop();
        keepJitMaps(recording.pids, perfFile);
        const tables = perfTablesOf(perfFile);
        recorded.push({ name: contender.name, tables, requests: measured.total });
        const summary = formatPerfTables(tables, measured.total, 25);
        writeFileSync(perfFile.replace(/\.data$/, '.txt'), `${summary}\n`);
        log(`${id}: ${contender.name} under perf, ${summary.split('\n').slice(0, 11).join('\n    ')}`);
      }
    }
    log(
      `${id}: round ${round}/${options.rounds}: ` +
        contenders
          .map((contender, index) => `${contender.name} ${roundRate(rounds[index]!.at(-1)!).toFixed(0)}`)
          .join(', ') +
        ' req/s',
    );
  }
  if (perfStem && recorded.length > 1) {
    writeFileSync(`${perfStem}-side-by-side.txt`, `${formatPerfComparison(recorded, 30)}\n`);
  }
  return rounds.map((measured) => combineRounds(measured));
}

/**
 * One request, retried once when a pooled keep-alive socket turns out closed: between two phases the suite's
 * fetch pool can sit idle longer than a service keeps an idle socket (Fastify's connectionTimeout is an
 * inactivity timeout too), and the request that lands on the dropped socket fails without being processed.
 */
async function fetchOnce(url: string, spec: HttpRequestSpec): Promise<{ response: Response; body: string }> {
  const send = async () => {
    const response = await fetch(url, {
      method: spec.method,
      body: spec.body,
      headers: spec.body ? jsonHeaders() : {},
    });
    return { response, body: await response.text() };
  };
  try {
    return await send();
  } catch {
    return send();
  }
}

/** Sends every request once, checks the answer, and returns the exact bytes keyed as the ceiling looks them up. */
async function record(
  baseUrl: string,
  requests: readonly HttpRequestSpec[],
  id: string,
): Promise<{ key: string; body: string }[]> {
  const recorded: { key: string; body: string }[] = [];
  const deadline = Date.now() + RECORD_BUDGET_MS;
  for (const spec of requests) {
    // A pathologically slow workload is still measured, over the requests recorded within the budget.
    if (recorded.length > 0 && Date.now() > deadline) {
      log(
        `${id}: recording stopped after ${recorded.length} of ${requests.length} requests (${RECORD_BUDGET_MS / 1000} s budget); measuring with those`,
      );
      break;
    }
    const { response, body } = await fetchOnce(baseUrl + spec.path, spec);
    if (!response.ok || body.includes('"errors"')) {
      throw new Error(
        `${id}: ${spec.method} ${spec.path} ${spec.body ?? ''} answered ${response.status}: ${body.slice(0, 400)}`,
      );
    }
    recorded.push({ key: spec.body ?? spec.path, body });
  }
  return recorded;
}

/** Runs `raw` over the request indexes for about two seconds; mean µs per request and rows per request. */
function measureRaw(
  sqliteFile: string,
  workload: ThroughputWorkload,
  distinct: number,
): { microsPerRequest: number; rowsPerRequest: number } | null {
  if (!workload.raw) return null;
  const db = new BetterSqlite3(sqliteFile, { readonly: true, fileMustExist: true });
  try {
    // A warm-up pass like the service's (bounded: a slow statement must not stall the suite), then at least
    // two seconds, or one pass over the distinct requests when that is quicker to reach.
    const warmUntil = Date.now() + 10_000;
    for (let index = 0; index < distinct && Date.now() < warmUntil; index++) workload.raw(db, index);
    let calls = 0;
    let rows = 0;
    const started = process.hrtime.bigint();
    let elapsedNs = 0;
    while (calls === 0 || elapsedNs < 2e9 || (calls < distinct && elapsedNs < 10e9)) {
      rows += workload.raw(db, calls % distinct);
      calls++;
      elapsedNs = Number(process.hrtime.bigint() - started);
      if (calls > 5_000_000) break;
    }
    elapsedNs = Number(process.hrtime.bigint() - started);
    return { microsPerRequest: elapsedNs / 1000 / calls, rowsPerRequest: rows / calls };
  } finally {
    db.close();
  }
}

async function runThroughput(
  workload: ThroughputWorkload,
  services: Services,
  store: PreparedStores,
  dialect: 'sqlite' | 'postgres',
  options: SuiteOptions,
  report: StoreReport,
  measureFloor = true,
): Promise<void> {
  const service = workload.service === 'rest' ? services.rest : services.graphql;
  log(
    `${report.label} / ${dialect} / ${workload.id}: warm-up and recording ${workload.requests.length} distinct requests`,
  );
  const recorded = await record(service.baseUrl, workload.requests, workload.id);
  const requests = workload.requests.slice(0, recorded.length);
  const meanBytes = recorded.reduce((sum, entry) => sum + Buffer.byteLength(entry.body), 0) / recorded.length;
  const recordFile = path.join(RESULTS_DIR, 'tmp', `${workload.id}-answers.json`);
  mkdirSync(path.dirname(recordFile), { recursive: true });
  writeFileSync(recordFile, JSON.stringify(recorded));
  await (
    await fetch(`${services.ceiling.baseUrl}/__load`, {
      method: 'POST',
      headers: jsonHeaders(),
      body: JSON.stringify({ file: recordFile }),
    })
  ).text();

  // Every contender has seen each request once before it is measured, as the service has in the recording pass: a
  // ceiling measured cold answered its first round at half the rate of the next (W1, 2026-11-26).
  await record(services.ceiling.baseUrl, requests, `${workload.id} ceiling`);
  const contenders: Contender[] = [
    { name: 'ceiling', baseUrl: services.ceiling.baseUrl, answering: [services.ceiling.child.pid] },
  ];
  if (measureFloor) {
    const floorService = workload.service === 'rest' ? services.restFloor : services.floor;
    // The floor learns each answer from the service the first time it sees a request.
    await record(floorService.baseUrl, requests, `${workload.id} floor`);
    // W6's floor is two processes, as its service is: the REST service and the GraphQL floor behind it.
    const floorProcesses =
      workload.service === 'rest' ? [services.restFloor, services.floor] : [services.floor];
    contenders.push({
      name: 'stack floor',
      baseUrl: floorService.baseUrl,
      answering: floorProcesses.map((floorProcess) => floorProcess.child.pid),
    });
  }
  const serviceProcesses =
    workload.service === 'rest' ? [services.rest, services.graphql] : [services.graphql];
  contenders.push({
    name: `${workload.service} service`,
    baseUrl: service.baseUrl,
    // A local PostgreSQL server answers with the service, on the same cores.
    answering: [
      ...serviceProcesses.map((serviceProcess) => serviceProcess.child.pid),
      ...(services.databaseServerPid === undefined ? [] : [services.databaseServerPid]),
    ],
  });
  const perfDir = options.perf ? path.join(RESULTS_DIR, 'perf', `${store.key}-${dialect}`) : null;
  if (perfDir) mkdirSync(perfDir, { recursive: true });
  // A variant of W1 (its title's part after the dash) records into files of its own.
  const variant = workload.title.split(' — ')[1];
  const perfStem = perfDir
    ? path.join(perfDir, workload.id + (variant ? `-${fileSlug(variant)}` : ''))
    : null;
  const figures = await measureInRounds(workload.id, contenders, requests, options, perfStem);
  const ceiling = figures[0]!;
  const floor = measureFloor ? figures[1]! : null;
  const measured = figures.at(-1)!;
  const raw = dialect === 'sqlite' ? measureRaw(store.sqliteFile, workload, requests.length) : null;
  log(
    `${workload.id}: ${measured.requestsPerSecond.toFixed(0)} req/s (ceiling ${ceiling.requestsPerSecond.toFixed(0)}` +
      (floor ? `, stack floor ${floor.requestsPerSecond.toFixed(0)}` : '') +
      `), p50 ${measured.p50Ms} ms, p99 ${measured.p99Ms} ms` +
      (raw ? `, raw SQLite ${raw.microsPerRequest.toFixed(1)} µs/request` : ''),
  );
  report.workloads.push({
    id: workload.id,
    title: workload.title,
    dialect,
    distinctRequests: requests.length,
    meanResponseBytes: meanBytes,
    service: measured,
    ceiling,
    floor,
    raw,
    target: workload.target,
  });
}

async function runConeWalk(
  asns: readonly string[],
  services: Services,
  store: PreparedStores,
  dialect: 'sqlite' | 'postgres',
  report: StoreReport,
  workers: number,
): Promise<void> {
  const url = `${services.graphql.baseUrl}/graphql`;
  const pid = services.graphql.child.pid;
  const rss: number[] = [];
  let sampler: NodeJS.Timeout | undefined;
  let serviceCpuStart = 0;
  const serviceCpuSeconds: number[] = [];
  const databaseServer = services.databaseServerPid;
  let databaseCpuStart = 0;
  const databaseCpuSeconds: number[] = [];
  // One warm-up walk per worker: each walk opens a new connection, and the primary deals connections to the
  // workers in turn, so every worker has loaded the month's prefix index before the measured walks. The client
  // process walks them too, so its own code is warm for the measured walks.
  log(
    `${report.label} / ${dialect} / W5: ${workers} warm-up walk(s), then ${MEASURED_CONE_WALKS} measured walks`,
  );
  const walks = await walkConeStreamInChild({ url, query: W5_QUERY, asns }, workers, MEASURED_CONE_WALKS, {
    beforeWalk: () => {
      if (!sampler) {
        rss.push(rssMb(pid));
        sampler = setInterval(() => rss.push(rssMb(pid)), 100);
      }
      serviceCpuStart = cpuSeconds(pid);
      if (databaseServer !== undefined) databaseCpuStart = cpuSeconds(databaseServer);
    },
    afterWalk: () => {
      serviceCpuSeconds.push(cpuSeconds(pid) - serviceCpuStart);
      if (databaseServer !== undefined)
        databaseCpuSeconds.push(cpuSeconds(databaseServer) - databaseCpuStart);
    },
  }).finally(() => clearInterval(sampler));
  rss.push(rssMb(pid));
  const walkMbPerSecond = walks.map((walk) => walk.bytes / 1e6 / walk.seconds);
  const medianIndex = medianWalkIndex(walkMbPerSecond);
  const measured = { ...walks[medianIndex]!, rss, serviceCpuSeconds: serviceCpuSeconds[medianIndex]! };
  let raw: { seconds: number; rows: number } | null = null;
  if (dialect === 'sqlite') {
    const db = new BetterSqlite3(store.sqliteFile, { readonly: true, fileMustExist: true });
    try {
      const started = process.hrtime.bigint();
      const rows = rawConeWalk(db, store.dates[store.dates.length - 1] as string, asns.map(Number));
      raw = { rows, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
    } finally {
      db.close();
    }
  }
  const mbPerSecond = walkMbPerSecond[medianIndex]!;
  const perPageMs = (seconds: number) => (seconds * 1000) / measured.pages;
  // Which side a slow walk waited on: the service's CPU per page, the client's, and the page's wall time.
  log(
    `W5: walks at ${walkMbPerSecond.map((rate) => rate.toFixed(1)).join(' / ')} MB/s; the median walk: ` +
      `${(measured.bytes / 1e6).toFixed(1)} MB in ${measured.pages} pages, ${mbPerSecond.toFixed(1)} MB/s; ` +
      `per page ${perPageMs(measured.seconds).toFixed(2)} ms, service CPU ${perPageMs(measured.serviceCpuSeconds).toFixed(2)} ms, ` +
      (databaseServer === undefined
        ? ''
        : `PostgreSQL server CPU ${perPageMs(databaseCpuSeconds[medianIndex]!).toFixed(2)} ms, `) +
      `client CPU ${perPageMs(measured.clientCpuSeconds).toFixed(2)} ms`,
  );
  report.stream = {
    dialect,
    pages: measured.pages,
    megabytes: measured.bytes / 1e6,
    seconds: measured.seconds,
    mbPerSecond,
    walkMbPerSecond,
    rssStartMb: measured.rss[0] ?? Number.NaN,
    rssPeakMb: Math.max(...measured.rss),
    rssEndMb: measured.rss[measured.rss.length - 1] ?? Number.NaN,
    serviceCpuMsPerPage: perPageMs(measured.serviceCpuSeconds),
    clientCpuMsPerPage: perPageMs(measured.clientCpuSeconds),
    raw,
  };
}

/**
 * Start-up: process spawn to the first answered /health on this store, once without the GraphQL service's code
 * cache (as the first start after a build) and then three times with the cache that start wrote when it stopped
 * (apps/graphql/src/code-cache.ts).
 */
async function measureStartup(
  databaseUrl: string,
  logDir: string,
  workers: number,
): Promise<{ withCodeCache: number[]; withoutCodeCache: number }> {
  const codeCache = codeCacheDirectory(GRAPHQL_BUNDLE);
  rmSync(codeCache, { recursive: true, force: true });
  const times: number[] = [];
  for (let attempt = 0; attempt < 4; attempt++) {
    const service = await startService({
      name: `startup-${attempt}`,
      script: GRAPHQL_MAIN,
      nodeFlags: SERVICE_NODE_FLAGS,
      env: { DATABASE_URL: databaseUrl, WORKERS: String(workers) },
      readyPath: '/health',
      logDir,
    });
    times.push(service.readyMs);
    await service.stop();
  }
  if (!existsSync(codeCache))
    log('start-up: the GraphQL service wrote no code cache when it stopped; every start was without one');
  return { withoutCodeCache: times[0] as number, withCodeCache: times.slice(1) };
}

async function runStore(
  store: PreparedStores,
  dialect: 'sqlite' | 'postgres',
  options: SuiteOptions,
  logDir: string,
): Promise<StoreReport> {
  const databaseUrl = dialect === 'sqlite' ? store.sqliteFile : (store.postgresUrl as string);
  const facts = await readFacts(databaseUrl);
  const { throughput, stream } = buildWorkloads(facts);
  const report: StoreReport = {
    label: store.label,
    dialect,
    months: store.dates.length,
    startupMs: [],
    workloads: [],
    stream: null,
  };
  const startup = await measureStartup(databaseUrl, logDir, options.workers);
  report.startupMs = startup.withCodeCache;
  report.startupWithoutCodeCacheMs = startup.withoutCodeCache;
  log(
    `${store.label} / ${dialect}: start-up ${startup.withoutCodeCache.toFixed(0)} ms without the code cache, ` +
      `${startup.withCodeCache.map((ms) => ms.toFixed(0)).join(', ')} ms with it`,
  );

  const profileDir = options.profile ? path.join(RESULTS_DIR, 'profiles', `${store.key}-${dialect}`) : null;
  const graphql = await startService({
    name: `graphql-${dialect}`,
    script: GRAPHQL_MAIN,
    nodeFlags: SERVICE_NODE_FLAGS,
    env: { DATABASE_URL: databaseUrl, ...GRAPHQL_ENV, WORKERS: String(options.workers) },
    readyPath: '/health',
    logDir,
    profileDir,
    perfMap: options.perf,
  });
  const started: ServiceProcess[] = [graphql];
  try {
    const rest = await startService({
      name: `rest-${dialect}`,
      script: REST_MAIN,
      env: { GRAPHQL_URL: `${graphql.baseUrl}/graphql`, ...REST_ENV },
      readyPath: '/restful/doc/json',
      logDir,
      profileDir,
      perfMap: options.perf,
    });
    started.push(rest);
    const ceiling = await startService({
      name: 'ceiling',
      script: CEILING_MAIN,
      nodeFlags: SERVICE_NODE_FLAGS,
      env: {},
      readyPath: '/health',
      logDir,
      profileDir,
      perfMap: options.perf,
    });
    started.push(ceiling);
    const floor = await startService({
      name: 'stack-floor',
      script: FLOOR_MAIN,
      nodeFlags: SERVICE_NODE_FLAGS,
      env: { UPSTREAM_URL: `${graphql.baseUrl}/graphql` },
      readyPath: '/health',
      logDir,
      profileDir,
      perfMap: options.perf,
    });
    started.push(floor);
    const restFloor = await startService({
      name: `rest-floor-${dialect}`,
      script: REST_MAIN,
      env: { GRAPHQL_URL: `${floor.baseUrl}/graphql`, ...REST_ENV },
      readyPath: '/restful/doc/json',
      logDir,
      profileDir,
      perfMap: options.perf,
    });
    started.push(restFloor);
    const services: Services = { graphql, rest, ceiling, floor, restFloor };
    if (dialect === 'postgres') {
      services.databaseServerPid = await localPostgresServerPid(databaseUrl);
      report.databaseServerCounted = services.databaseServerPid !== undefined;
      log(
        services.databaseServerPid === undefined
          ? 'the PostgreSQL server is not a process of this machine: its CPU is not counted with the service'
          : `the PostgreSQL server runs here (pid ${services.databaseServerPid}): its CPU is counted with the service`,
      );
    }
    for (const workload of throughput) {
      if (options.only && !options.only.has(workload.id)) continue;
      try {
        await runThroughput(workload, services, store, dialect, options, report);
      } catch (error) {
        const message = describeError(error);
        log(`${workload.id} failed: ${message}`);
        report.failures = [...(report.failures ?? []), `${workload.id}: ${message}`];
      }
    }
    // Reported apart, each against a second instance of the service: W1 with the result cache on; W1 with one
    // service process per core (WORKERS=auto, counted by the service itself), which is how a deployment would use
    // this machine; and W1 against the service's data path alone (data-path-server.ts), so a run shows what the
    // features left out there cost a request. Every other figure is the default single process's. `cores` names
    // the variant and skips it on a machine of one core.
    const pointLookup = throughput.find((workload) => workload.id === 'W1');
    if (pointLookup && (!options.only || options.only.has('W1'))) {
      const variants: { label: string; env: Record<string, string>; script?: string }[] = [
        { label: 'result cache ON', env: { MAX_EVENT_LOOP_DELAY_MS: '0', WORKERS: String(options.workers) } },
      ];
      const cores = os.availableParallelism();
      if (options.workers === 1 && cores > 1)
        variants.push({
          label: `WORKERS=${cores}, one per core`,
          env: { ...GRAPHQL_ENV, WORKERS: 'auto' },
        });
      variants.push({
        label: 'data path only, no request ids, logs, metrics, guards or ETags',
        env: GRAPHQL_ENV,
        script: DATA_PATH_MAIN,
      });
      for (const variant of variants) {
        const second = await startService({
          name: `graphql-${fileSlug(variant.label)}-${dialect}`,
          script: variant.script ?? GRAPHQL_MAIN,
          nodeFlags: SERVICE_NODE_FLAGS,
          env: { DATABASE_URL: databaseUrl, ...variant.env },
          readyPath: '/health',
          logDir,
          perfMap: options.perf,
        });
        try {
          await runThroughput(
            { ...pointLookup, title: `${pointLookup.title} — ${variant.label}`, raw: null },
            { ...services, graphql: second },
            store,
            dialect,
            options,
            report,
            false, // the floor does not depend on the service's cache or processes: measured once, above
          );
        } catch (error) {
          report.failures = [...(report.failures ?? []), `W1 ${variant.label}: ${describeError(error)}`];
        } finally {
          await second.stop();
        }
      }
    }
    if (!options.only || options.only.has('W5')) {
      try {
        await runConeWalk(stream.asns, services, store, dialect, report, options.workers);
      } catch (error) {
        const message = describeError(error);
        log(`W5 failed: ${message}`);
        report.failures = [...(report.failures ?? []), `W5: ${message}`];
      }
    }
  } finally {
    for (const service of started.reverse()) await service.stop();
  }
  return report;
}

function machine(): SuiteReport['machine'] {
  const cpus = os.cpus();
  return {
    cpu: `${cpus.length} x ${cpus[0]?.model ?? 'unknown CPU'}`,
    memoryGb: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    cores: cpus.length,
  };
}

async function main(): Promise<void> {
  const options = parseSuiteOptions();
  if (options.perf && !perfVersion())
    throw new UsageError(
      '--perf needs Linux perf, which is not installed (Debian: apt-get install linux-perf)',
    );
  const pgServer = options.skipPostgres ? null : (process.env.DATABASE_URL_PG ?? null);
  if (!pgServer && !options.skipPostgres) log('DATABASE_URL_PG is not set: the PostgreSQL runs are skipped.');
  for (const entry of [GRAPHQL_MAIN, REST_MAIN]) {
    try {
      readFileSync(entry);
    } catch {
      throw new Error(`${path.relative(REPO_ROOT, entry)} is missing: build the services first (pnpm build)`);
    }
  }
  const stores: PreparedStores[] = [await prepareGenerated(options.spec, pgServer, options.stores)];
  if (!options.skipReal) {
    const real = await prepareReal(pgServer, options.stores);
    if (real) stores.push(real);
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const logDir = path.join(RESULTS_DIR, `logs-${stamp}`);
  const report: SuiteReport = {
    at: new Date().toISOString(),
    machine: machine(),
    loadAverageAtStart: os.loadavg(),
    options: {
      connections: options.connections,
      duration: options.duration,
      rounds: options.rounds,
      spec: options.spec,
      workers: options.workers,
      nodeFlags: SERVICE_NODE_FLAGS,
    },
    stores: [],
  };
  for (const store of stores) {
    for (const dialect of ['sqlite', 'postgres'] as const) {
      if (dialect === 'postgres' && !store.postgresUrl) continue;
      if (options.stores !== 'both' && options.stores !== dialect) continue;
      report.stores.push(await runStore(store, dialect, options, logDir));
    }
  }
  report.loadAverageAtEnd = os.loadavg();
  const markdown = formatMarkdown(report);
  console.log(`\n${markdown}`);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(path.join(RESULTS_DIR, `queries-${stamp}.json`), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(path.join(RESULTS_DIR, `queries-${stamp}.md`), markdown);
  log(`results written to tools/bench/results/queries-${stamp}.{md,json}`);
  // Only a full-size run stands for the service in the docs; a smoke run at --asns 5000 stays in results/.
  if (options.spec.asns >= 80_000 && !options.only && options.stores === 'both') {
    updatePerformanceDoc(markdown);
    log('docs/performance.md summary updated');
  }
  if (report.stores.some((store) => (store.failures ?? []).length > 0)) process.exitCode = 1;
}

runSuiteEntryPoint(main);
