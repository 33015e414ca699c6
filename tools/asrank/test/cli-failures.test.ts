// What the built CLI does when its store or output cannot be used, or another writer holds the store: one clear line
// and exit code 1 (never a stack trace), or, for a load that finds another writer, waiting for it and then loading.
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { openDatabase } from '@asrank/db';
import { generateDataset } from '../src';
import type { GeneratedMonth } from '../src/generate';
import { tempDir } from './helpers';

const CLI = path.resolve(__dirname, '..', 'dist', 'main.js');

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '' },
  });
}

describe('asrank failures outside the input files', () => {
  let dir: string;
  let month: GeneratedMonth;
  beforeAll(async () => {
    dir = tempDir('cli-failures');
    month = (await generateDataset({ outDir: path.join(dir, 'gen'), seed: 5, asns: 200, months: 1 }))
      .months[0]!;
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const ingestArgs = (database: string, date: string) => [
    '--database',
    database,
    'ingest',
    '--date',
    date,
    '--as-rel',
    month.asRel,
    '--as-org',
    month.asOrg!,
    '--quiet',
  ];

  it.each([
    ['a file that is not a database', 'junk.bin', 'the file is not a SQLite database'],
    ['a directory', 'a-directory', 'cannot open or create the file'],
    ['a path under a file', 'junk.bin/store.db', 'the path or one of its parents is a file, not a directory'],
  ])('names the store and the reason when --database is %s', (_label, name, reason) => {
    fs.writeFileSync(path.join(dir, 'junk.bin'), Buffer.alloc(4096, 7));
    fs.mkdirSync(path.join(dir, 'a-directory'), { recursive: true });
    const database = path.join(dir, name);
    // `datasets` answers a path where no file exists as a store with no months; a load must create it.
    const listing = fs.existsSync(database) ? [['--database', database, 'datasets']] : [];
    for (const args of [...listing, ingestArgs(database, '2024-01-01')]) {
      const result = run(args);
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^asrank: cannot open the database ${database}: ${reason}`));
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(fs.readFileSync(path.join(dir, 'junk.bin'))).toEqual(Buffer.alloc(4096, 7));
  });

  it('refuses an empty --database and an empty --out instead of using the current directory', () => {
    const database = run(['--database', '', 'datasets']);
    expect([database.status, database.stderr]).toEqual([
      1,
      'asrank: --database (or DATABASE_URL) must not be empty\n',
    ]);
    const out = spawnSync(process.execPath, [CLI, 'generate', '--out', '', '--asns', '10', '--months', '1'], {
      encoding: 'utf8',
      cwd: dir,
    });
    expect([out.status, out.stderr]).toEqual([
      1,
      'asrank: --out must name a directory; got an empty value\n',
    ]);
    expect(fs.existsSync(path.join(dir, 'manifest.json'))).toBe(false);
  });

  it('refuses a load dated other than the first day of a month, and an input option given twice', () => {
    const database = path.join(dir, 'dated.db');
    const midMonth = run(ingestArgs(database, '2024-02-29'));
    expect([midMonth.status, midMonth.stderr]).toEqual([
      1,
      'asrank: --date must be the first day of a month (datasets are monthly); got 2024-02-29\n',
    ]);
    const twice = run([...ingestArgs(database, '2024-02-01'), '--as-rel', month.asOrg!]);
    expect(twice.status).toBe(1);
    expect(twice.stderr).toContain(
      `--as-rel was given twice ("${month.asRel}" and "${month.asOrg}"); give it once`,
    );
    expect(fs.existsSync(database)).toBe(false);
  });

  it('refuses --link-geo without --as-rel and --ppdc-ases without --as-rel or --pfx2as, which stored nothing', () => {
    const database = path.join(dir, 'partial.db');
    const geo = run(
      ['--database', database, 'ingest', '--date', '2024-01-01', '--as-org', month.asOrg!].concat([
        '--link-geo',
        month.asRelGeo!,
        month.locations!,
      ]),
    );
    expect([geo.status, geo.stderr]).toEqual([
      1,
      'asrank: --link-geo places the links of --as-rel: give --as-rel too\n',
    ]);
    const cones = run([
      '--database',
      database,
      'ingest',
      '--date',
      '2024-01-01',
      '--ppdc-ases',
      month.ppdcAses!,
    ]);
    expect(cones.status).toBe(1);
    expect(cones.stderr).toMatch(
      /^asrank: --ppdc-ases gives the cones of the ASNs --as-rel or --pfx2as show/,
    );
    expect(run(['--database', database, 'datasets']).stdout).toMatch(/^No months loaded/);
  });

  it('names a dropped month as a date, however --date was written', () => {
    const database = path.join(dir, 'dropped.db');
    expect(run(ingestArgs(database, '2024-01-01')).status).toBe(0);
    const dropped = run(['--database', database, 'drop', '--date', '20240101']);
    expect([dropped.status, dropped.stdout]).toEqual([0, 'Dropped 2024-01-01\n']);
  });

  it('names the output directory when generate cannot write there', () => {
    const file = path.join(dir, 'not-a-directory');
    fs.writeFileSync(file, '');
    const result = run(['generate', '--out', file, '--asns', '10', '--months', '1']);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `asrank: cannot write to ${file}: the path or one of its parents is a file, not a directory\n`,
    );
  });

  it('ends quietly with exit 0 when its reader closes stdout early', () => {
    const database = path.join(dir, 'listed.db');
    expect(run(ingestArgs(database, '2024-01-01')).status).toBe(0);
    // `true` exits before the CLI writes its listing: the write meets a closed pipe (EPIPE).
    const piped = spawnSync(
      'bash',
      ['-c', `set -o pipefail; "${process.execPath}" "${CLI}" --database "${database}" datasets | true`],
      { encoding: 'utf8' },
    );
    expect([piped.status, piped.stderr]).toEqual([0, '']);
  });

  it('waits for another writer of the store, then loads its month', async () => {
    const database = path.join(dir, 'shared.db');
    expect(run(ingestArgs(database, '2024-01-01')).status).toBe(0);
    // Another process's write lock, as a load in progress holds it.
    const other = openDatabase(database);
    other.sqlite!.exec('begin immediate');
    // Without --quiet: the notice is progress output.
    const load = spawn(process.execPath, [CLI, ...ingestArgs(database, '2024-02-01').slice(0, -1)], {
      env: { ...process.env, DATABASE_URL: '' },
    });
    let stderr = '';
    let stdout = '';
    load.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => load.on('close', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        const giveUp = setTimeout(() => reject(new Error(`no waiting notice; stderr: ${stderr}`)), 30_000);
        load.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes('waiting for it to finish')) {
            clearTimeout(giveUp);
            resolve();
          }
        });
      });
      // Longer than SQLite's busy timeout of 5 s, after which the load used to fail with "database is locked".
      await new Promise((resolve) => setTimeout(resolve, 6000));
    } finally {
      other.sqlite!.exec('commit');
      await other.close();
    }
    expect(await exited).toBe(0);
    expect(stderr).toContain('another process is writing to this database; waiting for it to finish\n');
    expect(stdout).toContain('Loaded 2024-02-01');
    const listing = run(['--database', database, 'datasets', '--json']);
    expect((JSON.parse(listing.stdout) as { date: string }[]).map((row) => row.date)).toEqual([
      '2024-01-01',
      '2024-02-01',
    ]);
  }, 60_000);
});
