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
      'nothing to load: give at least one of --as-rel, --as-org, --pfx2as, --ppdc-ases, --asrank-counts',
    );
  }
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
  const asOrg = options.asOrg
    ? await timedRead(progress, 'parse as-org', [options.asOrg], () => parseAsOrg(options.asOrg!, policy))
    : null;
  let prefixes: Map<string, PrefixEntry> | null = null;
  if (pfx2asFiles.length > 0) {
    prefixes = new Map();
    for (const file of pfx2asFiles)
      await timedRead(progress, `parse pfx2as ${path.basename(file)}`, [file], () =>
        parsePfx2as(file, policy, prefixes!),
      );
  }
  const ppdcCones = options.ppdcAses
    ? await timedRead(progress, 'parse ppdc-ases', [options.ppdcAses], () =>
        parsePpdcAses(options.ppdcAses!, policy),
      )
    : null;
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
        async () => ({
          links: await parseAsRelGeo(options.linkGeo!.asRelGeo, policy),
          locations: await parseGeoLocations(options.linkGeo!.locations, policy),
        }),
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
