// ingestMonth: parse the given files (streamed), derive the month, replace it atomically.
import fs from 'node:fs';
import path from 'node:path';
import { parseDateArgument } from '@asrank/domain';
import { migrateToLatest, refreshStatistics, type DatabaseHandle } from '@asrank/db';
import { BadLinePolicy } from '../input/bad-lines';
import { parseAsRel } from '../parse/as-rel';
import { parseAsOrg } from '../parse/as-org';
import { parsePfx2as, type PrefixEntry } from '../parse/pfx2as';
import { parsePpdcAses } from '../parse/ppdc-ases';
import { parseAsrankCounts } from '../parse/asrank-counts';
import { parseAsRelGeo, parseGeoLocations } from '../parse/link-geo';
import { buildMonth, type ParsedInputs } from './build';
import { replaceMonth } from './write';
import { countryRows } from '../countries';
import { createProgress, timed, timedRead, type Progress } from '../progress';
import type { MonthData, RowCounts } from './month';

export interface IngestOptions {
  date: string;
  asRel?: string;
  asOrg?: string;
  pfx2as?: string[] | string;
  ppdcAses?: string;
  asrankCounts?: string;
  linkGeo?: { asRelGeo: string; locations: string };
  skipBadLines?: boolean;
  /** Where progress goes; programmatic callers get silence by default. */
  progress?: Progress;
}

export interface IngestSummary {
  date: string;
  rows: RowCounts;
  skippedLines: number;
  skippedLinesPerFile: Record<string, number>;
  timings: { step: string; seconds: number }[];
  seconds: number;
}

export class IngestInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IngestInputError';
  }
}

function inputFiles(options: IngestOptions): string[] {
  const files = [
    options.asRel,
    options.asOrg,
    options.ppdcAses,
    options.linkGeo?.asRelGeo,
    options.linkGeo?.locations,
  ];
  const pfx2as = typeof options.pfx2as === 'string' ? [options.pfx2as] : (options.pfx2as ?? []);
  return [...files, ...pfx2as].filter((f): f is string => typeof f === 'string');
}

/**
 * Refuses an input that yielded no records before anything is written: loading it would replace the month with an
 * empty one, and a 0-byte download, or the wrong file with --skip-bad-lines, would silently wipe a loaded month.
 */
function requireRecords(option: string, file: string, records: number, policy: BadLinePolicy): void {
  if (records > 0) return;
  const skipped = policy.skippedIn(file);
  if (skipped > 0) {
    throw new IngestInputError(
      skipped === 1
        ? `${option} ${file} holds no records: its one data line was malformed and skipped`
        : `${option} ${file} holds no records: every one of its ${skipped} data lines was malformed and skipped`,
    );
  }
  const lines = policy.linesReadFrom(file);
  throw new IngestInputError(
    `${option} ${file} holds no records (${lines} line${lines === 1 ? '' : 's'} read${lines > 0 ? ', only comments and blank lines' : ''})`,
  );
}

/**
 * modified_at is the newest modification time of the inputs, not the wall clock, so loading the same files twice
 * stores identical contents.
 */
function newestModification(files: readonly string[]): string {
  let newest = 0;
  for (const file of files) {
    try {
      newest = Math.max(newest, fs.statSync(file).mtimeMs);
    } catch {
      // a missing file is reported by its parser with a clearer message
    }
  }
  return new Date(Math.floor(newest / 1000) * 1000).toISOString();
}

export async function ingestMonth(handle: DatabaseHandle, options: IngestOptions): Promise<IngestSummary> {
  const started = process.hrtime.bigint();
  const date = parseDateArgument(options.date, 'date');
  const pfx2asFiles = typeof options.pfx2as === 'string' ? [options.pfx2as] : (options.pfx2as ?? []);
  if (
    !options.asRel &&
    !options.asOrg &&
    pfx2asFiles.length === 0 &&
    !options.asrankCounts &&
    !options.ppdcAses
  ) {
    throw new IngestInputError(
      'nothing to load: give at least one of --as-rel, --as-org, --pfx2as, --ppdc-ases, --asrank-counts' +
        (options.linkGeo ? ' (--link-geo places the links of --as-rel)' : ''),
    );
  }
  // Both only add to what other inputs bring: loaded alone, they stored nothing of themselves and exited 0.
  if (options.linkGeo && !options.asRel)
    throw new IngestInputError('--link-geo places the links of --as-rel: give --as-rel too');
  if (options.ppdcAses && !options.asRel && pfx2asFiles.length === 0)
    throw new IngestInputError(
      '--ppdc-ases gives the cones of the ASNs --as-rel or --pfx2as show: give one of them too',
    );
  const progress = options.progress ?? createProgress('silent');
  const policy = new BadLinePolicy(options.skipBadLines ?? false);
  // Parsed inputs live only inside parseAndBuild, so they are garbage before the write starts (peak memory).
  const month = await parseAndBuild(options, date, pfx2asFiles, policy, progress);
  return storeMonth(handle, month, policy, progress, started);
}

/**
 * The last step of every loader (CAIDA files or JSON-lines dumps): migrate, replace the month atomically, refresh
 * the planner statistics, and summarise the load from `started` (process.hrtime.bigint()).
 */
export async function storeMonth(
  handle: DatabaseHandle,
  month: MonthData,
  policy: BadLinePolicy,
  progress: Progress,
  started: bigint,
): Promise<IngestSummary> {
  await migrateToLatest(handle.db, handle.dialect);
  const rows = await replaceMonth(handle, month, countryRows(), progress);
  // After the commit, so readers never wait on it: without statistics the planner guesses the size of every month
  // (PostgreSQL plans a just-loaded month as if its tables were empty; SQLite assumes ten rows per date).
  await timed(progress, 'update statistics', () => refreshStatistics(handle));
  return {
    date: month.date,
    rows,
    skippedLines: policy.skipped,
    skippedLinesPerFile: policy.skippedPerFile(),
    timings: progress.timings,
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
  };
}

async function parseAndBuild(
  options: IngestOptions,
  date: string,
  pfx2asFiles: string[],
  policy: BadLinePolicy,
  progress: Progress,
): Promise<MonthData> {
  const asRel = options.asRel
    ? await timedRead(progress, 'parse as-rel', [options.asRel], () => parseAsRel(options.asRel!, policy))
    : null;
  if (asRel) requireRecords('--as-rel', options.asRel!, asRel.links.length, policy);
  const asOrg = options.asOrg
    ? await timedRead(progress, 'parse as-org', [options.asOrg], () => parseAsOrg(options.asOrg!, policy))
    : null;
  if (asOrg) requireRecords('--as-org', options.asOrg!, asOrg.organizations.size + asOrg.asns.size, policy);
  let prefixes: Map<string, PrefixEntry> | null = null;
  if (pfx2asFiles.length > 0) {
    prefixes = new Map();
    for (const file of pfx2asFiles) {
      const rows = await timedRead(progress, `parse pfx2as ${path.basename(file)}`, [file], () =>
        parsePfx2as(file, policy, prefixes!),
      );
      requireRecords('--pfx2as', file, rows, policy);
    }
  }
  const ppdcCones = options.ppdcAses
    ? await timedRead(progress, 'parse ppdc-ases', [options.ppdcAses], () =>
        parsePpdcAses(options.ppdcAses!, policy),
      )
    : null;
  if (ppdcCones) requireRecords('--ppdc-ases', options.ppdcAses!, ppdcCones.size, policy);
  const counts = options.asrankCounts
    ? await timed(progress, 'parse asrank counts', () =>
        parseAsrankCounts(options.asrankCounts!, date, policy),
      )
    : null;
  const linkGeo = options.linkGeo
    ? await timedRead(
        progress,
        'parse link geo',
        [options.linkGeo.asRelGeo, options.linkGeo.locations],
        async () => {
          const links = await parseAsRelGeo(options.linkGeo!.asRelGeo, policy);
          requireRecords('--link-geo', options.linkGeo!.asRelGeo, links.length, policy);
          const locations = await parseGeoLocations(options.linkGeo!.locations, policy);
          requireRecords('--link-geo', options.linkGeo!.locations, locations.length, policy);
          return { links, locations };
        },
      )
    : null;

  const inputs: ParsedInputs = {
    date,
    modifiedAt: newestModification([...inputFiles(options), ...(counts?.files ?? [])]),
    asRel,
    asOrg,
    prefixes,
    prefixDates: pfx2asFiles
      .map((f) => /(\d{8})/.exec(path.basename(f))?.[1])
      .filter((d): d is string => d !== undefined),
    ppdcCones,
    counts,
    linkGeo,
  };
  return timed(progress, 'derive cones, degrees, ranks', () => buildMonth(inputs));
}
