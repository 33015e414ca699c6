// Inputs at the edges, through the built CLI or ingestMonth on real stores: files that hold no records must not
// replace a loaded month, pipes and FIFOs load like files, a pfx2as network with an IPv6 zone id is a malformed
// (skippable) line, a byte order mark is not data, and a truncated bzip2 file says so in words.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { openDatabase, type DatabaseHandle } from '@asrank/db';
import { ingestMonth, IngestInputError, type IngestOptions } from '../src';
import type { GeneratedMonth } from '../src/generate';
import {
  ALL_TABLES,
  PG_URL,
  createPgDatabase,
  dumpTable,
  ingestOptionsFor,
  removeSmallDataset,
  smallDataset,
  tempDir,
} from './helpers';

const CLI = path.resolve(__dirname, '..', 'dist', 'main.js');
const BZIP2_FIXTURE = path.join(__dirname, 'fixtures', 'tiny-as-rel.compressed');
const BOM = '\uFEFF';

let dir: string;
beforeAll(() => {
  dir = tempDir('edges');
  if (!fs.existsSync(CLI))
    throw new Error(`${CLI} is missing: build the package first (pnpm --filter @asrank/cli run build)`);
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await removeSmallDataset();
});

function write(name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

function asrank(args: string[], input?: string | Buffer) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', input });
}

interface Listed {
  date: string;
  numberAsns: number;
  numberLinks: number;
  numberOrganizations: number;
  numberPrefixes: number;
}

function listed(database: string): Listed[] {
  const run = asrank(['--database', database, 'datasets', '--json']);
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as Listed[];
}

async function snapshot(handle: DatabaseHandle): Promise<Record<string, unknown[]>> {
  const result: Record<string, unknown[]> = {};
  for (const table of ALL_TABLES) result[table] = await dumpTable(handle, table);
  return result;
}

const stores: [string, () => Promise<{ handle: DatabaseHandle; drop: () => Promise<void> }>][] = [
  [
    'SQLite',
    () => Promise.resolve({ handle: openDatabase(path.join(dir, 'refuse.db')), drop: async () => undefined }),
  ],
];
if (PG_URL)
  stores.push([
    'PostgreSQL',
    async () => {
      const database = await createPgDatabase();
      return { handle: openDatabase(database.url), drop: database.drop };
    },
  ]);

describe.each(stores)('an input that holds no records, on %s', (_store, open) => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  let month: GeneratedMonth;
  let before: Record<string, unknown[]>;
  let empty: string;
  beforeAll(async () => {
    ({ handle, drop } = await open());
    month = (await smallDataset()).months[0]!;
    await ingestMonth(handle, ingestOptionsFor(month));
    before = await snapshot(handle);
    empty = write('empty.txt', '');
  });
  afterAll(async () => {
    await handle.close();
    await drop();
  });

  // [which input, its option, the options with that input replaced by an empty file]
  const replacements: [string, string, (month: GeneratedMonth, empty: string) => Partial<IngestOptions>][] = [
    ['as-rel', '--as-rel', (_m, file) => ({ asRel: file })],
    ['as-org', '--as-org', (_m, file) => ({ asOrg: file })],
    // Only the rv6 file is empty: each pfx2as file must carry records of its own.
    ['pfx2as rv6', '--pfx2as', (m, file) => ({ pfx2as: [m.pfx2as[0]!, file] })],
    ['ppdc-ases', '--ppdc-ases', (_m, file) => ({ ppdcAses: file })],
    ['as-rel-geo', '--link-geo', (m, file) => ({ linkGeo: { asRelGeo: file, locations: m.locations } })],
    ['locations', '--link-geo', (m, file) => ({ linkGeo: { asRelGeo: m.asRelGeo, locations: file } })],
  ];

  it.each(replacements)(
    'refuses an empty %s file before writing, and the loaded month stays',
    async (_input, option, replace) => {
      const options = { ...ingestOptionsFor(month), ...replace(month, empty) };
      const attempt = ingestMonth(handle, options);
      await expect(attempt).rejects.toThrow(IngestInputError);
      await expect(attempt).rejects.toThrow(`${option} ${empty} holds no records (0 lines read)`);
      expect(await snapshot(handle)).toEqual(before);
    },
  );
});

describe('the CLI refuses an input without records', () => {
  const asRelText = '# inferred clique: 1 2\n1|2|0\n1|3|-1\n2|4|-1\n';
  let database: string;
  let loaded: Listed[];
  beforeAll(() => {
    database = path.join(dir, 'cli-refuse.db');
    const load = asrank([
      '--database',
      database,
      'ingest',
      '--date',
      '2024-02-01',
      '--as-rel',
      write('good.as-rel.txt', asRelText),
      '--quiet',
    ]);
    expect(load.status).toBe(0);
    loaded = listed(database);
    expect(loaded).toEqual([expect.objectContaining({ date: '2024-02-01', numberLinks: 3 })]);
  });

  function refuse(args: string[], message: string): void {
    const run = asrank(['--database', database, 'ingest', '--date', '2024-02-01', ...args, '--quiet']);
    expect(run.stderr).toBe(`asrank: ${message}\n`);
    expect(run.status).toBe(1);
    expect(run.stdout).not.toMatch(/Loaded/);
    expect(listed(database)).toEqual(loaded);
  }

  it('names a 0-byte file and a comments-only file, exit code 1, the month unchanged', () => {
    const empty = write('zero.as-rel.txt', '');
    refuse(['--as-rel', empty], `--as-rel ${empty} holds no records (0 lines read)`);
    const comments = write('comments.as-rel.txt', '# source:topology|BGP\n\n# inferred clique: 1 2\n');
    refuse(
      ['--as-rel', comments],
      `--as-rel ${comments} holds no records (3 lines read, only comments and blank lines)`,
    );
    const emptyGzip = write('zero.as-org.txt.gz', zlib.gzipSync(''));
    refuse(
      ['--as-rel', path.join(dir, 'good.as-rel.txt'), '--as-org', emptyGzip],
      `--as-org ${emptyGzip} holds no records (0 lines read)`,
    );
  });

  it('names a file whose every line --skip-bad-lines skipped (the wrong file given)', async () => {
    const asOrg = (await smallDataset()).months[0]!.asOrg;
    const dataLines = fs
      .readFileSync(asOrg, 'utf8')
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#')).length;
    expect(dataLines).toBeGreaterThan(1);
    refuse(
      ['--as-rel', asOrg, '--skip-bad-lines'],
      `--as-rel ${asOrg} holds no records: every one of its ${dataLines} data lines was malformed and skipped`,
    );
    const oneBad = write('one-bad.as-rel.txt', '# header\n1|2|5\n');
    refuse(
      ['--as-rel', oneBad, '--skip-bad-lines'],
      `--as-rel ${oneBad} holds no records: its one data line was malformed and skipped`,
    );
  });
});

describe('pipes, stdin and FIFOs as input files', () => {
  const asRelText = '# inferred clique: 1 2\n1|2|0\n1|3|-1\n2|4|-1\n2|5|-1\n';
  let database: string;
  beforeAll(() => {
    database = path.join(dir, 'pipes.db');
  });

  // Node hands a child's stdin over as a socket, which cannot be opened by name; `cat |` makes it the pipe a
  // shell would give.
  function ingestStdin(date: string, input: string | Buffer) {
    const command = `cat | "${process.execPath}" "${CLI}" --database "${database}" ingest --date ${date} --as-rel /dev/stdin --quiet`;
    return spawnSync('bash', ['-c', command], { encoding: 'utf8', input });
  }

  function ingestThroughBash(date: string, substitution: string) {
    const command = `"${process.execPath}" "${CLI}" --database "${database}" ingest --date ${date} --as-rel <(${substitution}) --quiet`;
    return spawnSync('bash', ['-c', command], { encoding: 'utf8' });
  }

  it('reads plain and gzip data from stdin', () => {
    for (const [date, input] of [
      ['2024-01-01', asRelText],
      ['2024-02-01', zlib.gzipSync(asRelText)],
    ] as const) {
      const run = ingestStdin(date, input);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/asn_links\s+8\n/);
    }
  });

  it('reads bzip2 data from a process substitution, also when the magic bytes arrive one read at a time', () => {
    const whole = ingestThroughBash('2024-03-01', `cat "${BZIP2_FIXTURE}"`);
    expect(whole.stderr).toBe('');
    expect(whole.status).toBe(0);
    const trickled = ingestThroughBash(
      '2024-04-01',
      `head -c 1 "${BZIP2_FIXTURE}"; sleep 0.3; tail -c +2 "${BZIP2_FIXTURE}"`,
    );
    expect(trickled.stderr).toBe('');
    expect(trickled.status).toBe(0);
    const months = listed(database);
    expect(months.map((m) => [m.date, m.numberLinks])).toEqual([
      ['2024-01-01', 4],
      ['2024-02-01', 4],
      ['2024-03-01', 4],
      ['2024-04-01', 4],
    ]);
  });

  it('names the pipe when what arrives on it is malformed', () => {
    const run = ingestStdin('2024-05-01', '1|2|0\nnot a link\n');
    expect(run.stderr).toBe(
      'asrank: /dev/stdin:2: malformed line "not a link": expected asn|asn|relationship (-1, 0 or 1) with an optional |source field\n',
    );
    expect(run.status).toBe(1);
  });
});

describe('pfx2as networks the build step could not parse', () => {
  const prefixLayout = 'network<TAB>length<TAB>origin ASNs (joined with "_" for MOAS and "," for AS sets)';

  it('reports an IPv6 zone id as a malformed line, which --skip-bad-lines skips', () => {
    const file = write('zone.pfx2as', '1.2.3.0\t24\t1\nfe80::1%eth0\t64\t1\n2001:db8::\t32\t2\n');
    const database = path.join(dir, 'zone.db');
    const args = ['--database', database, 'ingest', '--date', '2024-01-01', '--pfx2as', file, '--quiet'];
    const strict = asrank(args);
    expect(strict.stderr).toBe(
      `asrank: ${file}:2: malformed line "fe80::1%eth0\\t64\\t1": expected ${prefixLayout} with an IPv4 or IPv6 network address (no zone id)\n`,
    );
    expect(strict.status).toBe(1);
    const lenient = asrank([...args, '--skip-bad-lines']);
    expect(lenient.stderr).toBe('');
    expect(lenient.status).toBe(0);
    expect(lenient.stdout).toContain(`skipped 1 malformed line(s):\n  ${file}: 1\n`);
    expect(listed(database)).toEqual([expect.objectContaining({ date: '2024-01-01', numberPrefixes: 2 })]);
  });

  it('names the longest length of the address family', async () => {
    const handle = openDatabase(path.join(dir, 'lengths.db'));
    try {
      const v4 = write('long-v4.pfx2as', '1.2.3.0\t24\t1\n1.2.3.4\t33\t1\n');
      await expect(ingestMonth(handle, { date: '2024-01-01', pfx2as: v4 })).rejects.toThrow(
        `${v4}:2: malformed line "1.2.3.4\\t33\\t1": expected ${prefixLayout} with a length of at most 32 for an IPv4 network`,
      );
      const v6 = write('long-v6.pfx2as', '2001:db8::\t129\t1\n');
      await expect(ingestMonth(handle, { date: '2024-01-01', pfx2as: v6 })).rejects.toThrow(
        `${v6}:1: malformed line "2001:db8::\\t129\\t1": expected ${prefixLayout} with a length of at most 128 for an IPv6 network`,
      );
    } finally {
      await handle.close();
    }
  });
});

describe('a UTF-8 byte order mark', () => {
  it('is not part of the first line of any input, plain or compressed', async () => {
    const month = (await smallDataset()).months[1]!;
    const withBom = path.join(dir, 'bom');
    fs.mkdirSync(withBom);
    // Same base names and modification times, so the two loads must store identical rows.
    const copy = (file: string, compress = false): string => {
      const target = path.join(withBom, path.basename(file));
      const text = BOM + fs.readFileSync(file, 'utf8');
      fs.writeFileSync(target, compress ? zlib.gzipSync(text) : text);
      const { atime, mtime } = fs.statSync(file);
      fs.utimesSync(target, atime, mtime);
      return target;
    };
    const options = ingestOptionsFor(month);
    const bomOptions: IngestOptions = {
      date: month.date,
      asRel: copy(month.asRel),
      asOrg: copy(month.asOrg, true),
      pfx2as: month.pfx2as.map((file) => copy(file)),
      ppdcAses: copy(month.ppdcAses),
      linkGeo: { asRelGeo: copy(month.asRelGeo), locations: copy(month.locations, true) },
    };
    const plain = openDatabase(path.join(dir, 'no-bom.db'));
    const marked = openDatabase(path.join(dir, 'bom.db'));
    try {
      await ingestMonth(plain, options);
      await ingestMonth(marked, bomOptions);
      const expected = await snapshot(plain);
      expect(expected.asns!.length).toBeGreaterThan(0);
      expect(await snapshot(marked)).toEqual(expected);
    } finally {
      await plain.close();
      await marked.close();
    }
  });
});

describe('a truncated bzip2 file', () => {
  it('is reported as truncated or damaged, without JavaScript internals', () => {
    const compressed = fs.readFileSync(BZIP2_FIXTURE);
    for (const length of [40, compressed.length - 1]) {
      const file = write(`truncated-${length}.bz2`, compressed.subarray(0, length));
      const run = asrank([
        '--database',
        path.join(dir, 'truncated.db'),
        'ingest',
        '--date',
        '2024-01-01',
        '--as-rel',
        file,
        '--quiet',
      ]);
      expect(run.stderr).toBe(`asrank: ${file}: corrupt bzip2 data (truncated or damaged)\n`);
      expect(run.status).toBe(1);
    }
  });
});
