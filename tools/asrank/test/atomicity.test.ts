// Loading is atomic and repeatable: a real child process running the built CLI is SIGKILLed mid-load and the previous
// month survives untouched; loading the same files twice stores identical rows; bad lines are reported precisely.
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { openDatabase, type DatabaseHandle } from '@asrank/db';
import { generateDataset, ingestMonth, type IngestOptions } from '../src';
import {
  ALL_TABLES,
  dumpTable,
  ingestOptionsFor,
  nameSearchContents,
  removeSmallDataset,
  smallDataset,
  tempDir,
} from './helpers';

const CLI = path.resolve(__dirname, '..', 'dist', 'main.js');

function cliArgs(options: IngestOptions): string[] {
  const pfx2as = typeof options.pfx2as === 'string' ? [options.pfx2as] : (options.pfx2as ?? []);
  return [
    'ingest',
    '--date',
    options.date,
    '--as-rel',
    options.asRel!,
    '--as-org',
    options.asOrg!,
    '--ppdc-ases',
    options.ppdcAses!,
    ...pfx2as.flatMap((f) => ['--pfx2as', f]),
    '--link-geo',
    options.linkGeo!.asRelGeo,
    options.linkGeo!.locations,
  ];
}

async function snapshot(
  handle: DatabaseHandle,
  tables: readonly string[] = ALL_TABLES,
): Promise<Record<string, unknown[]>> {
  const result: Record<string, unknown[]> = {};
  for (const table of tables) result[table] = await dumpTable(handle, table);
  return result;
}

let dir: string;
beforeAll(() => {
  dir = tempDir('atomic');
  if (!fs.existsSync(CLI))
    throw new Error(`${CLI} is missing: build the package first (pnpm --filter @asrank/cli run build)`);
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await removeSmallDataset();
});

describe('atomic month loads', () => {
  it('leaves the previous month unchanged when the loading process is SIGKILLed mid-transaction', async () => {
    const small = (await smallDataset()).months[0]!;
    const file = path.join(dir, 'killed.db');
    const handle = openDatabase(file);
    await ingestMonth(handle, ingestOptionsFor(small));
    const before = await snapshot(handle);
    const indexedBefore = nameSearchContents(handle).indexed;
    await handle.close();

    // A bigger month for the same date, so the write phase lasts long enough to be interrupted.
    const big = (await generateDataset({ outDir: path.join(dir, 'big'), seed: 11, asns: 8000, months: 1 }))
      .months[0]!;
    const child = spawn(
      process.execPath,
      [CLI, '--database', file, ...cliArgs(ingestOptionsFor(big, small.date))],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const killedAfter = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        // Non-TTY progress prints one line per finished table; after "write asns" the transaction is open and
        // organizations, links, cones and prefixes are still to come.
        if (/^write asns: \d+ rows/m.test(stderr) && child.exitCode === null && !child.killed) {
          child.kill('SIGKILL');
          resolve(stderr);
        }
      });
      child.on('exit', () =>
        reject(new Error(`the loader exited before it could be killed:\n${stderr}\n${stdout}`)),
      );
    });
    const exit = await new Promise<NodeJS.Signals | null>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve(child.signalCode);
      else child.on('exit', (_code, signal) => resolve(signal));
    });
    expect(exit).toBe('SIGKILL');
    expect(killedAfter).not.toMatch(/write prefix_origins/);
    expect(stdout).not.toMatch(/Loaded/);

    const reopened = openDatabase(file);
    try {
      expect(await snapshot(reopened)).toEqual(before);
      expect(indexedBefore.length).toBeGreaterThan(0);
      expect(nameSearchContents(reopened)).toEqual({ indexed: indexedBefore, stored: indexedBefore });
    } finally {
      await reopened.close();
    }
  });

  it('stores identical contents when the same files are loaded twice, and bumps data_version each time', async () => {
    const month = (await smallDataset()).months[1]!;
    const handle = openDatabase(path.join(dir, 'twice.db'));
    try {
      await ingestMonth(handle, ingestOptionsFor(month));
      const tables = ALL_TABLES.filter((t) => t !== 'meta');
      const first = await snapshot(handle, tables);
      const version1 = await handle.db
        .selectFrom('meta')
        .select('value')
        .where('key', '=', 'data_version')
        .executeTakeFirstOrThrow();
      await ingestMonth(handle, ingestOptionsFor(month));
      const second = await snapshot(handle, tables);
      const version2 = await handle.db
        .selectFrom('meta')
        .select('value')
        .where('key', '=', 'data_version')
        .executeTakeFirstOrThrow();
      expect(second).toEqual(first);
      // The second load replaced the month's name search entries instead of adding to them.
      const { indexed, stored } = nameSearchContents(handle);
      expect(indexed).toEqual(stored);
      expect(first.asns!.length).toBeGreaterThan(0);
      expect(Number(version2.value)).toBe(Number(version1.value) + 1);
    } finally {
      await handle.close();
    }
  });
});

describe('malformed input through the CLI', () => {
  const asRelText = '# inferred clique: 1 2\n1|2|0\n1|3|-1\n2|four|-1\n2|5|-1\n3|6|7\n';
  let asRelFile: string;
  beforeAll(() => {
    asRelFile = path.join(dir, 'broken.as-rel.txt');
    fs.writeFileSync(asRelFile, asRelText);
  });

  it('stops with the file, line number and expectation, exit code 1, no stack trace, nothing stored', () => {
    const db = path.join(dir, 'malformed.db');
    const run = spawnSync(
      process.execPath,
      [CLI, '--database', db, 'ingest', '--date', '2024-02-01', '--as-rel', asRelFile, '--quiet'],
      {
        encoding: 'utf8',
      },
    );
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(
      `asrank: ${asRelFile}:4: malformed line "2|four|-1": expected asn|asn|relationship (-1, 0 or 1) with an optional |source field`,
    );
    const listing = spawnSync(process.execPath, [CLI, '--database', db, 'datasets'], { encoding: 'utf8' });
    expect(listing.stdout).toContain('No months loaded.');
  });

  it('with --skip-bad-lines loads the rest and reports how many lines were skipped; relative paths follow INIT_CWD', () => {
    const run = spawnSync(
      process.execPath,
      [
        CLI,
        '--database',
        'lenient.db',
        'ingest',
        '--date',
        '20240201',
        '--as-rel',
        'broken.as-rel.txt',
        '--skip-bad-lines',
      ],
      { encoding: 'utf8', cwd: path.dirname(CLI), env: { ...process.env, INIT_CWD: dir, DATABASE_URL: '' } },
    );
    expect(run.stderr).not.toMatch(/unexpected error/);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('skipped 2 malformed line(s)');
    expect(run.stdout).toMatch(/asn_links\s+6\n/);
    const listing = spawnSync(
      process.execPath,
      [CLI, '--database', path.join(dir, 'lenient.db'), 'datasets', '--json'],
      { encoding: 'utf8' },
    );
    const rows = JSON.parse(listing.stdout) as {
      date: string;
      numberLinks: number;
      numberAsnsSeen: number;
    }[];
    expect(rows).toEqual([
      expect.objectContaining({ date: '2024-02-01', numberLinks: 3, numberAsnsSeen: 4 }),
    ]);
  });

  it('rejects a bad --date and an unknown drop with one clear line', () => {
    const bad = spawnSync(
      process.execPath,
      [CLI, '--database', path.join(dir, 'x.db'), 'ingest', '--date', '2024-13-01', '--as-rel', asRelFile],
      { encoding: 'utf8' },
    );
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(
      /^asrank: --date must be a real calendar date written YYYY-MM-DD or YYYYMMDD; "2024-13-01" does not exist/,
    );
    const missing = path.join(dir, 'never-created.db');
    const listMissing = spawnSync(process.execPath, [CLI, '--database', missing, 'datasets'], {
      encoding: 'utf8',
    });
    expect(listMissing.stdout).toBe(`No months loaded (no database at ${missing}).\n`);
    expect(fs.existsSync(missing)).toBe(false);
    const dropMissing = spawnSync(
      process.execPath,
      [CLI, '--database', missing, 'drop', '--date', '2020-01-01'],
      { encoding: 'utf8' },
    );
    expect(dropMissing.status).toBe(1);
    expect(dropMissing.stderr.trim()).toBe(`asrank: no database at ${missing} (nothing to drop)`);
    const existing = path.join(dir, 'malformed.db');
    const drop = spawnSync(process.execPath, [CLI, '--database', existing, 'drop', '--date', '2020-01-01'], {
      encoding: 'utf8',
    });
    expect(drop.status).toBe(1);
    expect(drop.stderr.trim()).toBe('asrank: no month 2020-01-01 is loaded (see "asrank datasets")');
  });
});
