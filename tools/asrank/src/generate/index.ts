// `asrank generate`: a seeded, synthetic but realistic Internet written as CAIDA-format files, one
// directory per month, plus a manifest. The same options always give byte-identical files.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ArgumentError } from '@asrank/domain';
import {
  writeAsOrg,
  writeAsRel2,
  writeAsRelGeo,
  writeLocations,
  writePfx2asV4,
  writePfx2asV6,
  writePpdcAses,
  type MonthContext,
} from './formats';
import { World } from './world';

export interface GenerateOptions {
  /** Directory that receives one `YYYYMMDD/` folder per month and `manifest.json`. */
  outDir: string;
  /** PRNG seed, an integer 0..4294967295. */
  seed: number;
  /** Number of routed ASNs in the first month (the organizations file lists ~3% more, unrouted). */
  asns: number;
  /** Number of consecutive months. */
  months: number;
  /** First month, `YYYY-MM-01` or `YYYYMM01`; default 2024-01-01. */
  startDate?: string;
  /** Links in the first month (p2c + p2p); default 6.25 per ASN (80,000 ASNs -> 500,000 links). */
  links?: number;
  /** IPv4 + IPv6 prefixes in the first month (8% IPv6); default 12.5 per ASN (80,000 ASNs -> 1,000,000). */
  prefixes?: number;
  /** Write `.gz` files instead of plain text. */
  gzip?: boolean;
}

/** The files of one month; paths are absolute in GeneratedFiles and relative to the manifest in manifest.json. */
export interface GeneratedMonth {
  /** YYYY-MM-DD */
  date: string;
  asRel: string;
  ppdcAses: string;
  asOrg: string;
  /** rv2 (IPv4) then rv6 (IPv6). */
  pfx2as: string[];
  asRelGeo: string;
  locations: string;
}

export interface GeneratedFiles {
  outDir: string;
  manifest: string;
  months: GeneratedMonth[];
}

/** What `manifest.json` holds. */
export interface GeneratedManifest {
  format: 'asrank-generated/1';
  synthetic: true;
  options: {
    seed: number;
    asns: number;
    months: number;
    startDate: string;
    links: number;
    prefixes: number;
    gzip: boolean;
  };
  months: GeneratedMonth[];
}

export const DEFAULT_START_DATE = '2024-01-01';
export const LINKS_PER_ASN = 6.25;
export const PREFIXES_PER_ASN = 12.5;
export const MAX_ASNS = 200_000;
export const MAX_MONTHS = 120;
const MAX_LINKS = 5_000_000;
const MAX_PREFIXES = 5_000_000;

function requireInteger(value: unknown, argument: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ArgumentError(
      argument,
      `${argument} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** Parses the first month: `YYYY-MM-01` or `YYYYMM01`. */
function parseStartMonth(value: string): { year: number; month: number } {
  const match = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(value);
  const year = Number(match?.[1]);
  const month = Number(match?.[2]);
  if (!match || month < 1 || month > 12 || year < 1970 || year > 9999) {
    throw new ArgumentError(
      'startDate',
      `startDate must be a date YYYY-MM-DD or YYYYMMDD on the first day of a month, got ${JSON.stringify(value)}`,
    );
  }
  if (match[3] !== '01') {
    throw new ArgumentError(
      'startDate',
      `startDate must be the first day of a month (datasets are monthly), got ${JSON.stringify(value)}`,
    );
  }
  return { year, month };
}

export function monthDates(startDate: string, months: number): string[] {
  const start = parseStartMonth(startDate);
  const dates: string[] = [];
  for (let offset = 0; offset < months; offset++) {
    const zeroBased = start.month - 1 + offset;
    const year = start.year + Math.floor(zeroBased / 12);
    const month = (zeroBased % 12) + 1;
    dates.push(`${year}-${String(month).padStart(2, '0')}-01`);
  }
  return dates;
}

export async function generateDataset(options: GenerateOptions): Promise<GeneratedFiles> {
  if (typeof options.outDir !== 'string' || options.outDir.trim() === '') {
    throw new ArgumentError('outDir', 'outDir must be a directory path');
  }
  const seed = requireInteger(options.seed, 'seed', 0, 0xffffffff);
  const asns = requireInteger(options.asns, 'asns', 10, MAX_ASNS);
  const months = requireInteger(options.months, 'months', 1, MAX_MONTHS);
  const maxLinks = Math.min(MAX_LINKS, (asns * (asns - 1)) / 2);
  const links = requireInteger(
    options.links ?? Math.min(maxLinks, Math.round(asns * LINKS_PER_ASN)),
    'links',
    1,
    maxLinks,
  );
  const prefixes = requireInteger(
    options.prefixes ?? Math.round(asns * PREFIXES_PER_ASN),
    'prefixes',
    1,
    MAX_PREFIXES,
  );
  const startDate = options.startDate ?? DEFAULT_START_DATE;
  const dates = monthDates(startDate, months);
  const gzip = options.gzip === true;
  const outDir = path.resolve(options.outDir);
  const suffix = gzip ? '.gz' : '';

  // The xoroshiro seed is 32-bit signed; `| 0` maps 0..2^32-1 onto it one to one.
  const world = new World(
    { seed: seed | 0, months, asns, links, prefixes },
    (dates[0] as string).replaceAll('-', ''),
  );
  const relativeMonths: GeneratedMonth[] = [];
  for (const [monthIndex, date] of dates.entries()) {
    if (monthIndex > 0) world.advanceMonth();
    const compactDate = date.replaceAll('-', '');
    const relative: GeneratedMonth = {
      date,
      asRel: `${compactDate}/${compactDate}.as-rel2.txt${suffix}`,
      ppdcAses: `${compactDate}/${compactDate}.ppdc-ases.txt${suffix}`,
      asOrg: `${compactDate}/${compactDate}.as-org2info.txt${suffix}`,
      pfx2as: [
        `${compactDate}/routeviews-rv2-${compactDate}-1200.pfx2as${suffix}`,
        `${compactDate}/routeviews-rv6-${compactDate}-1200.pfx2as${suffix}`,
      ],
      asRelGeo: `${compactDate}/${compactDate}.as-rel-geo.txt${suffix}`,
      locations: `${compactDate}/${compactDate}.locations.txt${suffix}`,
    };
    await mkdir(path.join(outDir, compactDate), { recursive: true });
    const at = (file: string): string => path.join(outDir, file);
    const context: MonthContext = { world, compactDate, seed, gzip };
    await writeAsRel2(at(relative.asRel), context);
    await writePpdcAses(at(relative.ppdcAses), context);
    await writeAsOrg(at(relative.asOrg), context);
    await writePfx2asV4(at(relative.pfx2as[0] as string), context);
    await writePfx2asV6(at(relative.pfx2as[1] as string), context);
    await writeAsRelGeo(at(relative.asRelGeo), context);
    await writeLocations(at(relative.locations), context);
    relativeMonths.push(relative);
  }

  const manifest: GeneratedManifest = {
    format: 'asrank-generated/1',
    synthetic: true,
    options: { seed, asns, months, startDate: dates[0] as string, links, prefixes, gzip },
    months: relativeMonths,
  };
  const manifestPath = path.join(outDir, 'manifest.json');
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  const absolute = (file: string): string => path.join(outDir, file);
  return {
    outDir,
    manifest: manifestPath,
    months: relativeMonths.map((month) => ({
      date: month.date,
      asRel: absolute(month.asRel),
      ppdcAses: absolute(month.ppdcAses),
      asOrg: absolute(month.asOrg),
      pfx2as: month.pfx2as.map(absolute),
      asRelGeo: absolute(month.asRelGeo),
      locations: absolute(month.locations),
    })),
  };
}
