// Command-line options shared by the suite's entry points, parsed and validated once.
import { parseArgs } from 'node:util';
import type { GeneratedSpec, StoreChoice } from './datasets';

export interface SuiteOptions {
  spec: GeneratedSpec;
  /** Skip the real CAIDA month even when the shared data is present. */
  skipReal: boolean;
  /** Skip PostgreSQL even when DATABASE_URL_PG is set. */
  skipPostgres: boolean;
  /** Which stores to build and measure (`--store sqlite|postgres`; default both). */
  stores: StoreChoice;
  /** Seconds each throughput workload runs. */
  duration: number;
  /**
   * Interleaved rounds the duration is split into: ceiling, stack floor and service each run duration / rounds
   * seconds per round, in turn (rounds.ts says why).
   */
  rounds: number;
  /** Concurrent connections of the load generator. */
  connections: number;
  /** Only these workloads (W1..W6), or all. */
  only: Set<string> | null;
  /** Run the services, the ceiling and the stack floor under `node --cpu-prof` (results/profiles/STORE/PROCESS/). */
  profile: boolean;
  /**
   * Record each contender's answering processes with Linux perf during its last round (results/perf/STORE/), and
   * print where their CPU went; the processes run with --perf-basic-prof. perf-tables.ts says why perf.
   */
  perf: boolean;
  /** Processes of the GraphQL service (its WORKERS setting). */
  workers: number;
  /** bench:survey lists the queries that took this many ms or more. */
  slowMs: number;
  /** bench:survey asks only the queries whose id this matches (`--match`), or all. */
  match: RegExp | null;
}

/** What `--help` prints, and what a mistaken option is answered with. */
export const SUITE_USAGE = `usage: pnpm bench [options]   (pnpm bench:prepare takes the same options)
  --asns N --links N --prefixes N --months N --seed N
                       the generated store (default 80000 ASNs, 6.25 links and 12.5 prefixes per ASN,
                       12 months, seed 1)
  --only W1,W3,...     only these workloads (W1..W6, S2, S3, S4, S6)
  --store sqlite|postgres|both
                       which stores to measure (default both; PostgreSQL needs DATABASE_URL_PG)
  --skip-real          leave out the real CAIDA month even when ../shared/data/caida is present
  --skip-postgres      leave out PostgreSQL even when DATABASE_URL_PG is set
  --duration S         seconds per throughput measurement (default 10)
  --rounds N           interleaved rounds each measurement is split into, ceiling, stack floor and
                       service in turn (default 3; 1: one run each, one after another)
  --connections N      concurrent connections of the load generator (default 10)
  --workers N          processes of the GraphQL service (its WORKERS setting, default 1)
  --profile            run the services, the ceiling and the stack floor under node --cpu-prof
                       (results/profiles/STORE/PROCESS/; read them with dist/profile-summary.js)
  --perf               record each contender with Linux perf during its last round and print where its
                       CPU went (results/perf/STORE/; needs perf: apt-get install linux-perf)
  --slow-ms N          bench:survey only: list the queries that took N ms or more (default 1000)
  --match REGEX        bench:survey only: ask only the queries whose id matches (e.g. '^asnCone')
  --help               this text`;

/** A mistaken command line: reported as its message and the usage, without a stack. */
export class UsageError extends Error {}

/**
 * Runs an entry point of the suite: `--help` prints the usage (the suite's, unless the tool has its own); a mistaken
 * option prints one line and the usage (exit status 2); any other failure its stack (exit status 1).
 */
export function runSuiteEntryPoint(
  main: () => Promise<void>,
  argv: readonly string[] = process.argv.slice(2),
  usage: string = SUITE_USAGE,
) {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage);
    return;
  }
  main().catch((error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${usage}`);
      process.exitCode = 2;
      return;
    }
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  });
}

const LINKS_PER_ASN = 6.25;
const PREFIXES_PER_ASN = 12.5;

/**
 * A positive whole number given as `--NAME` to one of the suite's readers of results (profile-summary.js,
 * perf-summary.js), null when absent, or a UsageError saying what is wrong.
 */
export function positiveIntegerOption(name: string, value: string | undefined): number | null {
  if (value === undefined) return null;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new UsageError(`--${name} must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return number;
}

function integerOption(values: Record<string, unknown>, name: string, min: number): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new UsageError(`--${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function parseCommandLine(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      asns: { type: 'string' },
      links: { type: 'string' },
      prefixes: { type: 'string' },
      months: { type: 'string' },
      seed: { type: 'string' },
      duration: { type: 'string' },
      rounds: { type: 'string' },
      connections: { type: 'string' },
      only: { type: 'string' },
      'skip-real': { type: 'boolean', default: false },
      'skip-postgres': { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      perf: { type: 'boolean', default: false },
      workers: { type: 'string' },
      store: { type: 'string', default: 'both' },
      'slow-ms': { type: 'string' },
      match: { type: 'string' },
    },
    allowPositionals: false,
  });
}

function surveyMatch(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch (error) {
    throw new UsageError(`--match must be a regular expression: ${(error as Error).message}`);
  }
}

export function parseSuiteOptions(argv: readonly string[] = process.argv.slice(2)): SuiteOptions {
  let parsed;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    // node:util's parseArgs reports an unknown option or a missing value as a TypeError with a clear message.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values } = parsed;
  const asns = integerOption(values, 'asns', 10) ?? 80_000;
  const spec: GeneratedSpec = {
    seed: integerOption(values, 'seed', 0) ?? 1,
    asns,
    // Sizes follow the ASN count unless given, so `--asns 5000` is a consistent small Internet.
    links: integerOption(values, 'links', 1) ?? Math.round(asns * LINKS_PER_ASN),
    prefixes: integerOption(values, 'prefixes', 1) ?? Math.round(asns * PREFIXES_PER_ASN),
    months: integerOption(values, 'months', 1) ?? 12,
  };
  let only: Set<string> | null = null;
  if (values.only !== undefined) {
    only = new Set(values.only.split(',').map((name) => name.trim().toUpperCase()));
    const unknown = [...only].filter((name) => !/^(W[1-6]|S[2-4]|S6)$/.test(name));
    if (unknown.length > 0)
      throw new UsageError(
        `--only takes workload names W1..W6, S2, S3, S4, S6 separated by commas, got ${unknown.join(', ')}`,
      );
  }
  const stores = values.store as StoreChoice;
  if (!['both', 'sqlite', 'postgres'].includes(stores))
    throw new UsageError(`--store must be sqlite, postgres or both, got ${JSON.stringify(values.store)}`);
  return {
    spec,
    stores,
    skipReal: values['skip-real'] ?? false,
    skipPostgres: values['skip-postgres'] ?? false,
    duration: integerOption(values, 'duration', 1) ?? 10,
    rounds: integerOption(values, 'rounds', 1) ?? 3,
    connections: integerOption(values, 'connections', 1) ?? 10,
    only,
    profile: values.profile ?? false,
    perf: values.perf ?? false,
    workers: integerOption(values, 'workers', 1) ?? 1,
    slowMs: integerOption(values, 'slow-ms', 1) ?? 1000,
    match: values.match === undefined ? null : surveyMatch(values.match),
  };
}
