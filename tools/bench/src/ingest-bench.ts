// Ingest benchmark: times `ingestMonth` (from @asrank/cli) loading one month into a fresh SQLite file and,
// when DATABASE_URL_PG is set, into a fresh PostgreSQL database, for
//   1. the real CAIDA December 2017 month (as-rel + AS Rank counts + as-org 20170401 + pfx2as 20170329), read in
//      place from ../shared/data/caida (skipped with a message when absent; ASRANK_SHARED_DATA overrides the path);
//   2. a generated full-Internet month (default 80,000 ASNs, 500,000 links, 1,000,000 prefixes).
// Prints a Markdown table and writes it, with the raw numbers as JSON, to tools/bench/results/ (git-ignored).
//
// Each (dataset, store) run happens in its own child process: better-sqlite3 writes synchronously and blocks
// the event loop, so an RSS sampling timer inside the loading process would miss the peak. The child reports
// both a sampled peak (timer every 50 ms) and the kernel's high-water mark (`resourceUsage().maxRSS`), which
// is exact for that process alone.
//
// Usage (from the repository root): pnpm bench:ingest [--asns N] [--links N] [--prefixes N] [--seed N]
//   [--only real|generated] [--keep]
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateDataset, ingestMonth, type IngestOptions } from '@asrank/cli';
import { openDatabase } from '@asrank/db';
import pg from 'pg';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
const RESULTS_DIR = path.resolve(__dirname, '..', 'results');

type Store = 'sqlite' | 'postgres';

interface RunRequest {
  label: string;
  store: Store;
  options: IngestOptions;
  /** SQLite file path or PostgreSQL URL of the empty target database. */
  target: string;
}

interface RunResult {
  label: string;
  store: Store;
  seconds: number;
  sampledPeakRssMb: number;
  maxRssMb: number;
  rows: Record<string, number>;
  steps: { step: string; seconds: number }[];
  error?: string;
}

function sharedCaidaDir(): string {
  return process.env.ASRANK_SHARED_DATA ?? path.resolve(REPO_ROOT, '..', 'shared', 'data', 'caida');
}

function megabytes(bytes: number): number {
  return Math.round(bytes / 1024 / 1024);
}

// ------------------------------------------------------------------------------------------------
// Child: one ingest into one store, measured.

async function runChild(request: RunRequest): Promise<RunResult> {
  let sampledPeak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss);
  }, 50);
  const handle = openDatabase(request.target);
  try {
    const started = process.hrtime.bigint();
    const summary = await ingestMonth(handle, request.options);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss);
    return {
      label: request.label,
      store: request.store,
      seconds,
      sampledPeakRssMb: megabytes(sampledPeak),
      // resourceUsage().maxRSS is in kilobytes.
      maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      rows: { ...summary.rows },
      steps: summary.timings,
    };
  } finally {
    clearInterval(sampler);
    await handle.close();
  }
}

// ------------------------------------------------------------------------------------------------
// Parent: prepares inputs and stores, runs each child, reports.

function runInChild(request: RunRequest): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = fork(__filename, ['--child', JSON.stringify(request)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: RunResult | null = null;
    child.on('message', (message) => {
      result = message as RunResult;
    });
    child.on('exit', (code, signal) => {
      resolve(
        result ?? {
          label: request.label,
          store: request.store,
          seconds: Number.NaN,
          sampledPeakRssMb: Number.NaN,
          maxRssMb: Number.NaN,
          rows: {},
          steps: [],
          error: `child exited with ${signal ?? `code ${code}`}`,
        },
      );
    });
  });
}

/** A fresh, uniquely named PostgreSQL database on the DATABASE_URL_PG server; returns its URL and a dropper. */
async function createPgDatabase(serverUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `bench_ingest_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: serverUrl });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  };
}

function realMonthInputs(): IngestOptions | null {
  const caida = sharedCaidaDir();
  const files = {
    asRel: path.join(caida, 'as-rel', '20171201.as-rel.txt.bz2'),
    asrankCounts: path.join(caida, 'asrank', '20171201'),
    asOrg: path.join(caida, 'as-org2info', '20170401.as-org2info.txt.gz'),
    pfx2as: path.join(caida, 'pfx2as', 'routeviews-rv2-20170329-0200.pfx2as.gz'),
  };
  const missing = Object.values(files).filter((file) => !existsSync(file));
  if (missing.length > 0) {
    console.log(
      `Skipping the real December 2017 month: ${missing.join(', ')} not found (set ASRANK_SHARED_DATA to the caida data folder).`,
    );
    return null;
  }
  return { date: '2017-12-01', ...files };
}

function formatTable(
  results: readonly RunResult[],
  generation: { seconds: number; label: string } | null,
): string {
  const rowCount = (result: RunResult, table: string): string =>
    result.rows[table] === undefined ? '' : String(result.rows[table]);
  const lines = [
    '| dataset | store | ingest (s) | peak RSS (MB, kernel) | peak RSS (MB, sampled) | asns | asn_links | prefixes | cone_members |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map((result) =>
      result.error
        ? `| ${result.label} | ${result.store} | failed: ${result.error} | | | | | | |`
        : `| ${result.label} | ${result.store} | ${result.seconds.toFixed(1)} | ${result.maxRssMb} | ${result.sampledPeakRssMb} | ${rowCount(result, 'asns')} | ${rowCount(result, 'asn_links')} | ${rowCount(result, 'prefixes')} | ${rowCount(result, 'cone_members')} |`,
    ),
  ];
  if (generation)
    lines.push(
      '',
      `Writing the input files of the ${generation.label} month took ${generation.seconds.toFixed(1)} s.`,
    );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      asns: { type: 'string', default: '80000' },
      links: { type: 'string', default: '500000' },
      prefixes: { type: 'string', default: '1000000' },
      seed: { type: 'string', default: '1' },
      only: { type: 'string' },
      keep: { type: 'boolean', default: false },
    },
  });
  const integer = (name: 'asns' | 'links' | 'prefixes' | 'seed'): number => {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < 0)
      throw new Error(`--${name} must be a non-negative integer, got ${JSON.stringify(values[name])}`);
    return value;
  };
  if (values.only !== undefined && values.only !== 'real' && values.only !== 'generated') {
    throw new Error(`--only must be "real" or "generated", got ${JSON.stringify(values.only)}`);
  }
  const pgServer = process.env.DATABASE_URL_PG;
  if (!pgServer) console.log('DATABASE_URL_PG is not set: PostgreSQL runs are skipped.');

  const workDir = mkdtempSync(path.join(os.tmpdir(), 'asrank-bench-ingest-'));
  const datasets: { label: string; options: IngestOptions }[] = [];
  let generation: { seconds: number; label: string } | null = null;
  try {
    if (values.only !== 'generated') {
      const real = realMonthInputs();
      if (real) datasets.push({ label: 'CAIDA 2017-12-01 (real)', options: real });
    }
    if (values.only !== 'real') {
      const sizes = { asns: integer('asns'), links: integer('links'), prefixes: integer('prefixes') };
      const label = `generated ${sizes.asns} ASNs / ${sizes.links} links / ${sizes.prefixes} prefixes`;
      const started = process.hrtime.bigint();
      const files = await generateDataset({
        outDir: path.join(workDir, 'generated'),
        seed: integer('seed'),
        months: 1,
        ...sizes,
      });
      generation = { label, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
      console.log(`${label}: generated in ${generation.seconds.toFixed(1)} s`);
      const month = files.months[0];
      if (!month) throw new Error('the generator wrote no month');
      datasets.push({
        label,
        options: {
          date: month.date,
          asRel: month.asRel,
          ppdcAses: month.ppdcAses,
          asOrg: month.asOrg,
          pfx2as: month.pfx2as,
          linkGeo: { asRelGeo: month.asRelGeo, locations: month.locations },
        },
      });
    }

    const results: RunResult[] = [];
    for (const [index, dataset] of datasets.entries()) {
      const sqliteFile = path.join(workDir, `bench-${index}.db`);
      console.log(`${dataset.label}: loading into SQLite ...`);
      results.push(
        await runInChild({
          label: dataset.label,
          store: 'sqlite',
          options: dataset.options,
          target: sqliteFile,
        }),
      );
      rmSync(sqliteFile, { force: true });
      if (pgServer) {
        console.log(`${dataset.label}: loading into PostgreSQL ...`);
        const database = await createPgDatabase(pgServer);
        try {
          results.push(
            await runInChild({
              label: dataset.label,
              store: 'postgres',
              options: dataset.options,
              target: database.url,
            }),
          );
        } finally {
          await database.drop();
        }
      }
    }

    const table = formatTable(results, generation);
    console.log(`\n${table}\n`);
    mkdirSync(RESULTS_DIR, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const report = {
      kind: 'ingest',
      at: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      generation,
      results,
    };
    writeFileSync(path.join(RESULTS_DIR, `ingest-${stamp}.json`), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(
      path.join(RESULTS_DIR, `ingest-${stamp}.md`),
      `# Ingest benchmark ${report.at}\n\n${table}\n`,
    );
    console.log(
      `Results written to ${path.relative(process.cwd(), RESULTS_DIR) || '.'}/ingest-${stamp}.{md,json}`,
    );
    if (results.some((result) => result.error)) process.exitCode = 1;
  } finally {
    if (values.keep) console.log(`Kept inputs in ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  runChild(JSON.parse(process.argv[3] ?? '{}') as RunRequest)
    .then((result) => process.send?.(result, () => process.exit(0)))
    .catch((error: unknown) => {
      console.error(error instanceof Error ? (error.stack ?? error.message) : error);
      process.exit(1);
    });
} else {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
