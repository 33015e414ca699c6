// loadSampleData: loads every month of the committed synthetic sample (repo-root sample-data/, written by the
// generator; its manifest.json lists the files per month, paths relative to the manifest).
import fs from 'node:fs';
import path from 'node:path';
import type { DatabaseHandle } from '@asrank/db';
import { ingestMonth, type IngestOptions } from './ingest/ingest';

/** sample-data/ at the repository root; the same relative path from src/ (tests) and dist/ (built CLI). */
export const SAMPLE_DATA_DIR = path.resolve(__dirname, '..', '..', '..', 'sample-data');

interface ManifestMonth {
  date: string;
  asRel?: string;
  ppdcAses?: string;
  asOrg?: string;
  pfx2as?: string[] | string;
  asRelGeo?: string;
  locations?: string;
}

export function readManifest(dir: string = SAMPLE_DATA_DIR): { date: string; options: IngestOptions }[] {
  const manifestFile = path.join(dir, 'manifest.json');
  if (!fs.existsSync(manifestFile)) throw new Error(`sample manifest not found: ${manifestFile}`);
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as
    { months?: ManifestMonth[] } | ManifestMonth[];
  const months = Array.isArray(manifest) ? manifest : (manifest.months ?? []);
  const resolve = (file: string | undefined) => (file === undefined ? undefined : path.resolve(dir, file));
  return months.map((month) => ({
    date: month.date,
    options: {
      date: month.date,
      asRel: resolve(month.asRel),
      ppdcAses: resolve(month.ppdcAses),
      asOrg: resolve(month.asOrg),
      pfx2as: (typeof month.pfx2as === 'string' ? [month.pfx2as] : (month.pfx2as ?? [])).map((f) =>
        path.resolve(dir, f),
      ),
      linkGeo:
        month.asRelGeo && month.locations
          ? { asRelGeo: resolve(month.asRelGeo)!, locations: resolve(month.locations)! }
          : undefined,
    },
  }));
}

/** Loads every sample month (each atomically) and returns their dates, oldest first. */
export async function loadSampleData(
  handle: DatabaseHandle,
  dir: string = SAMPLE_DATA_DIR,
): Promise<string[]> {
  const dates: string[] = [];
  for (const { options } of readManifest(dir).sort((a, b) => a.date.localeCompare(b.date))) {
    const summary = await ingestMonth(handle, options);
    dates.push(summary.date);
  }
  return dates;
}
