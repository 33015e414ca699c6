// The `asrank` command line: argument parsing (commander), path resolution against the directory the user ran
// `pnpm asrank` from, progress on stderr, summaries on stdout, and clear one-line errors instead of stack traces.
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import fs from 'node:fs';
import { ArgumentError, parseDateArgument } from '@asrank/domain';
import {
  DatabaseBusyError,
  DEFAULT_DATABASE_URL,
  openDatabase,
  parseDatabaseUrl,
  type DatabaseHandle,
} from '@asrank/db';
import { ingestMonth, IngestInputError, type IngestSummary } from './ingest/ingest';
import { importJsonl } from './import-jsonl';
import { dropMonth, listDatasets, upgradeStore } from './datasets';
import { generateDataset } from './generate';
import { loadSampleData } from './sample';
import { createProgress } from './progress';
import { MalformedLineError } from './input/bad-lines';
import { InputFileError } from './input/open';

/** pnpm runs scripts from the package directory and records where the user was in INIT_CWD. */
export function userDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return env.INIT_CWD && env.INIT_CWD !== '' ? env.INIT_CWD : process.cwd();
}

function resolvePath(file: string): string {
  return path.resolve(userDirectory(), file);
}

function resolveDatabaseUrl(url: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || url === ':memory:') return url;
  if (url.startsWith('sqlite:')) return `sqlite:${resolvePath(url.slice('sqlite:'.length))}`;
  return resolvePath(url);
}

function positiveInteger(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1)
      throw new InvalidArgumentError(`${name} must be a positive integer, got "${value}"`);
    return Number(value);
  };
}

function integer(name: string) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be an integer, got "${value}"`);
    return Number(value);
  };
}

/** A load's month: a calendar date on the first day of a month, as every dataset is dated (the spec's monthly records). */
function monthArgument(value: string): string {
  const date = parseDateArgument(value, '--date');
  if (!date.endsWith('-01'))
    throw new IngestInputError(`--date must be the first day of a month (datasets are monthly); got ${date}`);
  return date;
}

/** An option given once: a second value used to replace the first without a word (`--as-rel a --as-rel b`). */
function once(option: string) {
  return (value: string, previous: string | undefined): string => {
    if (previous !== undefined)
      throw new InvalidArgumentError(
        `${option} was given twice ("${previous}" and "${value}"); give it once`,
      );
    return value;
  };
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function printSummary(summary: IngestSummary, out: NodeJS.WritableStream): void {
  out.write(`Loaded ${summary.date} in ${summary.seconds.toFixed(1)} s\n`);
  out.write('rows per table:\n');
  for (const [table, count] of Object.entries(summary.rows)) out.write(`  ${table.padEnd(16)} ${count}\n`);
  out.write('seconds per step:\n');
  for (const { step, seconds } of summary.timings) out.write(`  ${step.padEnd(40)} ${seconds.toFixed(2)}\n`);
  if (summary.skippedLines > 0) {
    out.write(`skipped ${summary.skippedLines} malformed line(s):\n`);
    for (const [file, count] of Object.entries(summary.skippedLinesPerFile))
      out.write(`  ${file}: ${count}\n`);
  } else {
    out.write('skipped 0 malformed lines\n');
  }
}

/** The SQLite file a URL names when it does not exist yet (listing or dropping must not create an empty store). */
function missingSqliteFile(url: string): string | null {
  const parsed = parseDatabaseUrl(resolveDatabaseUrl(url));
  return parsed.dialect === 'sqlite' && parsed.target !== ':memory:' && !fs.existsSync(parsed.target)
    ? parsed.target
    : null;
}

/** The store could not be opened or written: a one-line reason, not better-sqlite3's stack. */
class DatabaseAccessError extends Error {
  override readonly name = 'DatabaseAccessError';
}

/** What a user can do about an error of opening or writing a SQLite store or a file, by its code. */
const STORE_AND_FILE_PROBLEMS: Readonly<Record<string, string>> = {
  SQLITE_NOTADB: 'the file is not a SQLite database',
  SQLITE_CANTOPEN:
    'cannot open or create the file (is the path a directory, or its directory missing or not writable?)',
  SQLITE_READONLY: 'the file or its directory is read-only (a store needs write access for its WAL files)',
  SQLITE_READONLY_DIRECTORY: 'its directory is read-only (a store needs write access for its WAL files)',
  SQLITE_BUSY: 'another process is writing to it; retry when it has finished',
  SQLITE_FULL: 'the disk is full',
  EEXIST: 'the path or one of its parents is a file, not a directory',
  ENOTDIR: 'the path or one of its parents is a file, not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
};

function databaseProblem(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? STORE_AND_FILE_PROBLEMS[code] : undefined;
}

async function withDatabase<T>(url: string, work: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const target = resolveDatabaseUrl(url);
  let handle: DatabaseHandle;
  try {
    handle = openDatabase(target);
  } catch (error) {
    const problem = databaseProblem(error);
    if (problem) throw new DatabaseAccessError(`cannot open the database ${target}: ${problem}`);
    throw error;
  }
  try {
    return await work(handle);
  } catch (error) {
    const problem = databaseProblem(error);
    if (problem && handle.dialect === 'sqlite')
      throw new DatabaseAccessError(`cannot write the database ${target}: ${problem}`);
    throw error;
  } finally {
    await handle.close();
  }
}

/** Runs `work`, which writes files under `dir`, turning a file system refusal into a one-line error. */
async function writingTo<T>(dir: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const problem =
      typeof code === 'string' && code.startsWith('E') ? STORE_AND_FILE_PROBLEMS[code] : undefined;
    if (problem) throw new IngestInputError(`cannot write to ${dir}: ${problem}`);
    throw error;
  }
}

export function buildProgram(out: NodeJS.WritableStream = process.stdout): Command {
  const program = new Command('asrank')
    .description('AS Rank data tool: load CAIDA data into the query service store')
    .addOption(
      new Option('--database <url>', 'SQLite file path, sqlite:PATH or postgres:// URL')
        .env('DATABASE_URL')
        .default(DEFAULT_DATABASE_URL),
    )
    .showHelpAfterError()
    .exitOverride();
  const databaseUrl = () => {
    const url = program.opts<{ database: string }>().database;
    // An empty value would resolve to the current directory.
    if (url.trim() === '') throw new DatabaseAccessError('--database (or DATABASE_URL) must not be empty');
    return url;
  };

  program
    .command('ingest')
    .description('load one month from CAIDA files (plain, .gz or .bz2; detected from content)')
    .requiredOption('--date <YYYY-MM-DD>', 'the month the data describes')
    .option(
      '--as-rel <file>',
      'AS relationships, serial-1 (.as-rel.txt) or serial-2 (.as-rel2.txt)',
      once('--as-rel'),
    )
    .option('--as-org <file>', 'AS-to-organization file (as-org2info.txt)', once('--as-org'))
    .option('--pfx2as <file>', 'RouteViews prefix-to-AS file; repeat for rv2 + rv6', collect)
    .option(
      '--ppdc-ases <file>',
      'customer cones (ppdc-ases); computed from --as-rel when absent',
      once('--ppdc-ases'),
    )
    .option(
      '--asrank-counts <dir>',
      "directory of CAIDA's AS Rank intermediate files (*-asn_count.txt, ...)",
      once('--asrank-counts'),
    )
    .option('--link-geo <files...>', 'two files: the as-rel-geo file and its locations file')
    .option('--skip-bad-lines', 'skip malformed lines (and report how many) instead of stopping')
    .option('--quiet', 'no progress output')
    .action(async (opts: Record<string, unknown>) => {
      monthArgument(String(opts.date));
      const linkGeo = opts.linkGeo as string[] | undefined;
      if (linkGeo && linkGeo.length !== 2) {
        throw new IngestInputError(
          `--link-geo takes exactly two files (as-rel-geo, then locations); got ${linkGeo.length}`,
        );
      }
      const summary = await withDatabase(databaseUrl(), (handle) =>
        ingestMonth(handle, {
          date: String(opts.date),
          asRel: opts.asRel ? resolvePath(String(opts.asRel)) : undefined,
          asOrg: opts.asOrg ? resolvePath(String(opts.asOrg)) : undefined,
          pfx2as: ((opts.pfx2as as string[] | undefined) ?? []).map(resolvePath),
          ppdcAses: opts.ppdcAses ? resolvePath(String(opts.ppdcAses)) : undefined,
          asrankCounts: opts.asrankCounts ? resolvePath(String(opts.asrankCounts)) : undefined,
          linkGeo: linkGeo
            ? { asRelGeo: resolvePath(linkGeo[0]!), locations: resolvePath(linkGeo[1]!) }
            : undefined,
          skipBadLines: Boolean(opts.skipBadLines),
          progress: createProgress(opts.quiet ? 'silent' : 'auto'),
        }),
      );
      printSummary(summary, out);
    });

  program
    .command('import-jsonl')
    .description(
      'load one month from AS Rank API JSON-lines dumps (asns.jsonl, organizations.jsonl, asnLinks.jsonl)',
    )
    .requiredOption('--date <YYYY-MM-DD>', 'the month the dump describes')
    .argument('<dir>', 'directory holding the .jsonl files')
    .option('--skip-bad-lines', 'skip malformed lines (and report how many) instead of stopping')
    .option('--quiet', 'no progress output')
    .action(async (dir: string, opts: Record<string, unknown>) => {
      monthArgument(String(opts.date));
      const summary = await withDatabase(databaseUrl(), (handle) =>
        importJsonl(handle, {
          date: String(opts.date),
          dir: resolvePath(dir),
          skipBadLines: Boolean(opts.skipBadLines),
          progress: createProgress(opts.quiet ? 'silent' : 'auto'),
        }),
      );
      printSummary(summary, out);
    });

  program
    .command('generate')
    .description('write a synthetic, CAIDA-shaped dataset (deterministic for a seed)')
    .requiredOption('--out <dir>', 'output directory')
    .option('--seed <n>', 'random seed', integer('--seed'), 1)
    .option('--asns <n>', 'number of ASNs', positiveInteger('--asns'), 2000)
    .option('--months <k>', 'number of consecutive months', positiveInteger('--months'), 3)
    .option('--start-date <YYYY-MM-DD>', 'first month')
    .option('--links <n>', 'number of links (default 6.25 per ASN)', positiveInteger('--links'))
    .option(
      '--prefixes <n>',
      'number of prefixes, IPv4 + IPv6 (default 12.5 per ASN)',
      positiveInteger('--prefixes'),
    )
    .option('--gzip', 'write .gz files', false)
    .action(
      async (opts: {
        out: string;
        seed: number;
        asns: number;
        months: number;
        startDate?: string;
        links?: number;
        prefixes?: number;
        gzip: boolean;
      }) => {
        // resolvePath('') is the current directory, which the user did not name.
        if (opts.out.trim() === '')
          throw new IngestInputError('--out must name a directory; got an empty value');
        const outDir = resolvePath(opts.out);
        await writingTo(outDir, () =>
          generateDataset({
            outDir,
            seed: opts.seed,
            asns: opts.asns,
            months: opts.months,
            startDate: opts.startDate,
            links: opts.links,
            prefixes: opts.prefixes,
            gzip: opts.gzip,
          }),
        );
        out.write(
          `Generated ${opts.months} month(s) of ${opts.asns} ASNs (seed ${opts.seed}) in ${outDir}\n`,
        );
      },
    );

  program
    .command('load-sample')
    .description('load every month of the committed sample dataset (sample-data/)')
    .action(async () => {
      const dates = await withDatabase(databaseUrl(), (handle) => loadSampleData(handle));
      out.write(`Loaded sample months: ${dates.join(', ')}\n`);
    });

  program
    .command('datasets')
    .description('list loaded months with their counts')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const missing = missingSqliteFile(databaseUrl());
      if (missing !== null) {
        out.write(opts.json ? '[]\n' : `No months loaded (no database at ${missing}).\n`);
        return;
      }
      const rows = await withDatabase(databaseUrl(), (handle) => listDatasets(handle));
      if (opts.json) {
        out.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      if (rows.length === 0) {
        out.write('No months loaded.\n');
        return;
      }
      const header = ['date', 'asns', 'asns seen', 'organizations', 'links', 'prefixes'];
      const lines = rows.map((r) =>
        [r.date, r.numberAsns, r.numberAsnsSeen, r.numberOrganizations, r.numberLinks, r.numberPrefixes].map(
          String,
        ),
      );
      const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
      for (const line of [header, ...lines])
        out.write(`${line.map((cell, i) => cell.padStart(widths[i]!)).join('  ')}\n`);
    });

  program
    .command('drop')
    .description('remove one loaded month')
    .requiredOption('--date <YYYY-MM-DD>', 'the month to remove')
    .action(async (opts: { date: string }) => {
      const date = parseDateArgument(opts.date, '--date');
      const missing = missingSqliteFile(databaseUrl());
      if (missing !== null) throw new IngestInputError(`no database at ${missing} (nothing to drop)`);
      const dropped = await withDatabase(databaseUrl(), (handle) => dropMonth(handle, opts.date));
      if (!dropped) throw new IngestInputError(`no month ${date} is loaded (see "asrank datasets")`);
      out.write(`Dropped ${date}\n`);
    });

  program
    .command('migrate')
    .description(
      'apply pending migrations and refresh the planner statistics (upgrades a store loaded by an older version)',
    )
    .action(async () => {
      const missing = missingSqliteFile(databaseUrl());
      if (missing !== null) throw new IngestInputError(`no database at ${missing} (nothing to migrate)`);
      const applied = await withDatabase(databaseUrl(), (handle) => upgradeStore(handle));
      out.write(
        `${applied.length > 0 ? `Applied ${applied.join(', ')}` : 'No migration pending'}; statistics refreshed\n`,
      );
    });

  return program;
}

/** Errors a user can act on are printed as one line; anything else is a bug and keeps its stack. */
function isUserError(error: unknown): error is Error {
  return (
    error instanceof ArgumentError ||
    error instanceof MalformedLineError ||
    error instanceof InputFileError ||
    error instanceof IngestInputError ||
    error instanceof DatabaseAccessError ||
    error instanceof DatabaseBusyError ||
    (error instanceof Error &&
      /^(DATABASE_URL|database migration|database unavailable)/.test(error.message)) ||
    (error instanceof Error &&
      'code' in error &&
      ['ECONNREFUSED', 'ENOTFOUND', '3D000', '28P01'].includes(String(error.code)))
  );
}

/**
 * A reader that stops early (`asrank datasets | head -1`) closes stdout: that is not a failure of the command, whose
 * work (a load already committed) is done, so the process ends quietly with the code it has.
 */
function endQuietlyWhenStdoutCloses(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

export async function runCli(argv: string[]): Promise<number> {
  endQuietlyWhenStdoutCloses();
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (isUserError(error)) {
      process.stderr.write(`asrank: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(
      `asrank: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 2;
  }
}
