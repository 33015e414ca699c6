// `node dist/perf-summary.js FILE.data [--requests N] [--top N]`: where a process's CPU time went, from a perf
// recording (the suite writes them with --perf, results/perf/STORE/): by kernel call, SQLite, the GC and the
// innermost JavaScript frame's package or file, and by JavaScript function (perf-tables.ts says why perf).
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatPerfTables, perfTablesOf, perfVersion } from './perf-record';
import { positiveIntegerOption, runSuiteEntryPoint, UsageError } from './options';

const PERF_SUMMARY_USAGE = `usage: node dist/perf-summary.js FILE.data [--requests N] [--top N]
  --requests N   requests answered while recording: adds µs a request to each row
  --top N        rows of each table (default 30)
  --help         this text`;

export interface PerfSummaryOptions {
  file: string;
  requests: number | null;
  top: number;
}

/** The command line, checked: one recording and positive --requests / --top, or a UsageError saying what is wrong. */
export function parsePerfSummaryArgs(argv: readonly string[]): PerfSummaryOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { requests: { type: 'string' }, top: { type: 'string', default: '30' } },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1)
    throw new UsageError(`one perf recording is needed, got ${positionals.length}`);
  return {
    file: positionals[0]!,
    requests: positiveIntegerOption('requests', values.requests),
    top: positiveIntegerOption('top', values.top) ?? 30,
  };
}

async function main(argv: readonly string[]): Promise<void> {
  const { file, requests, top } = parsePerfSummaryArgs(argv);
  if (!perfVersion())
    throw new UsageError('Linux perf is not installed (Debian: apt-get install linux-perf)');
  if (!existsSync(file)) throw new UsageError(`${file} does not exist`);
  let tables;
  try {
    tables = perfTablesOf(file);
  } catch (error) {
    // Not a recording perf can read: said in one line, like any other mistaken argument.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  console.log(`${file}: ${formatPerfTables(tables, requests, top)}`);
}

// Run as a script only: the tests import parsePerfSummaryArgs.
if (require.main === module) {
  const argv = process.argv.slice(2);
  runSuiteEntryPoint(() => main(argv), argv, PERF_SUMMARY_USAGE);
}
