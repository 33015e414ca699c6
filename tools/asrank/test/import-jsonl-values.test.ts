// `asrank import-jsonl` takes a numeric field only as an integer (a JSON number or a string of decimal digits, the two
// forms the public API's dumps use) within what its column and the API can hold, and an ASN only as decimal digits:
// anything else is a malformed line naming the field, which --skip-bad-lines skips, never a NULL, a 0, a REAL in an
// integer column, an asdot reading of a JSON fraction or (on PostgreSQL) a database error.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { openDatabase, type DatabaseHandle } from '@asrank/db';
import { importJsonl, listDatasets, MalformedLineError } from '../src';
import { createPgDatabase, PG_URL, tempDir } from './helpers';

const CLI = path.resolve(__dirname, '..', 'dist', 'main.js');
const DATE = '2019-08-01';
const jsonl = (lines: unknown[]) =>
  lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n';

const dir = tempDir('jsonl-values');
let dumps = 0;
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A dump directory holding these files (name -> lines: objects, or raw text for numbers JSON.stringify cannot write). */
function dump(files: Record<string, unknown[]>): string {
  const dumpDir = path.join(dir, `dump-${(dumps += 1)}`);
  fs.mkdirSync(dumpDir);
  for (const [name, lines] of Object.entries(files)) fs.writeFileSync(path.join(dumpDir, name), jsonl(lines));
  return dumpDir;
}

/** The month already loaded before each bad import, which a failed import must leave as it was. */
const GOOD = dump({
  'asns.jsonl': [{ asn: '3356', asnName: 'LEVEL3', rank: 1, cone: { numberAsns: 35292 } }],
});

async function importError(handle: DatabaseHandle, dumpDir: string): Promise<Error> {
  const error = await importJsonl(handle, { date: DATE, dir: dumpDir }).then(
    () => new Error('the import succeeded'),
    (e: unknown) => e as Error,
  );
  expect(error).toBeInstanceOf(MalformedLineError);
  return error;
}

async function expectGoodMonthIntact(handle: DatabaseHandle): Promise<void> {
  const rows = await handle.db.selectFrom('asns').select(['date', 'asn', 'asn_name', 'cone_asns']).execute();
  expect(rows.map((r) => [r.date, Number(r.asn), r.asn_name, Number(r.cone_asns)])).toEqual([
    [DATE, 3356, 'LEVEL3', 35292],
  ]);
}

// One bad field per case: the file and line it is on, and the start of the message naming it.
const BAD_FIELDS: [string, string, unknown[], number, RegExp][] = [
  [
    'a non-numeric rank',
    'asns.jsonl',
    [{ asn: '1' }, { asn: '2', rank: 'abc' }],
    2,
    /: rank must be an integer from 1 to 2147483647 \(a JSON number or a string of decimal digits\), got "abc"$/,
  ],
  [
    'a non-numeric cone size',
    'asns.jsonl',
    [{ asn: '1', cone: { numberAsns: 'lots' } }],
    1,
    /: cone\.numberAsns must be an integer from 0 to 2147483647 .*, got "lots"$/,
  ],
  [
    '1e300 for an integer degree',
    'asns.jsonl',
    ['{"asn":"1","asnDegree":{"total":1e300}}'],
    1,
    /: asnDegree\.total must be an integer from 0 to 2147483647 .*, got 1e\+300$/,
  ],
  [
    'a degree just past the integer column',
    'asns.jsonl',
    [{ asn: '1', asnDegree: { peer: 2147483648 } }],
    1,
    /: asnDegree\.peer must be an integer from 0 to 2147483647 .*, got 2147483648$/,
  ],
  [
    'a fractional cone size',
    'asns.jsonl',
    [{ asn: '1', cone: { numberPrefixes: 1.5 } }],
    1,
    /: cone\.numberPrefixes must be an integer/,
  ],
  [
    'a negative count',
    'asns.jsonl',
    [{ asn: '1', announcing: { numberPrefixes: -3 } }],
    1,
    /: announcing\.numberPrefixes must be an integer from 0 /,
  ],
  [
    'a number in a string that is not decimal digits',
    'asns.jsonl',
    [{ asn: '1', cone: { numberAsns: '1e3' } }],
    1,
    /: cone\.numberAsns must be an integer .*, got "1e3"$/,
  ],
  [
    'an address count past what a JS number holds exactly',
    'asns.jsonl',
    [{ asn: '1', cone: { numberAddresses: '9007199254740993' } }],
    1,
    /: cone\.numberAddresses must be an integer from 0 to 9007199254740991 /,
  ],
  [
    'a cone that is not an object',
    'asns.jsonl',
    [{ asn: '1', cone: 12 }],
    1,
    /: cone must be an object, got 12$/,
  ],
  [
    'a latitude out of range',
    'asns.jsonl',
    [{ asn: '1', latitude: 91 }],
    1,
    /: latitude must be a number from -90 to 90, got 91$/,
  ],
  [
    'a non-numeric member count of an organization',
    'organizations.jsonl',
    [{ orgId: 'O1', members: { numberAsnsSeen: 'x' } }],
    1,
    /: members\.numberAsnsSeen must be an integer/,
  ],
  [
    'a non-numeric link path count',
    'asnLinks.jsonl',
    [{ asn0: '1', asn1: '2', relationship: 'peer', numberPaths: 'many' }],
    1,
    /: numberPaths must be an integer .*, got "many"$/,
  ],
  [
    "a bad rank of a link's nested end",
    'asnLinks.jsonl',
    [{ asn0: '1', asn1: { asn: '2', rank: 0 }, relationship: 'peer' }],
    1,
    /: asn1\.rank must be an integer from 1 /,
  ],
  [
    'a non-numeric dataset count',
    'dataset.jsonl',
    [{ numberAsns: 'lots' }],
    1,
    /: numberAsns must be an integer .*, got "lots"$/,
  ],
  [
    'an IP version other than 4 or 6',
    'dataset.jsonl',
    [{ ipVersion: 5 }],
    1,
    /: ipVersion must be 4 or 6, got 5$/,
  ],
  [
    'a clique entry that is not an ASN',
    'dataset.jsonl',
    [{ clique: ['174', 'x'] }],
    1,
    /: clique must be a list of ASNs .*, got "x"$/,
  ],
];

// An "asn" that is not decimal digits (as a string or a whole JSON number up to 2^32-1).
const BAD_ASNS: [string, unknown][] = [
  ['a JSON fraction (once read as asdot 1.5 = AS65541)', 1.5],
  ['an asdot string', '1.5'],
  ['a JSON number past 2^32-1', 4294967296],
  ['a negative JSON number', -1],
  ['a JSON number too large to be exact', 1e300],
  ['a boolean', true],
];

describe('import-jsonl numeric fields (SQLite)', () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = openDatabase(path.join(dir, 'values.db'));
    await importJsonl(handle, { date: DATE, dir: GOOD });
  });
  afterAll(async () => handle.close());

  it.each(BAD_FIELDS)(
    'rejects %s as a malformed line naming the field, leaving the loaded month intact',
    async (_name, file, lines, lineNumber, message) => {
      const files: Record<string, unknown[]> = { [file]: lines };
      if (file === 'dataset.jsonl') files['asns.jsonl'] = [{ asn: '1' }];
      const dumpDir = dump(files);
      const error = await importError(handle, dumpDir);
      expect(error.message.startsWith(`${path.join(dumpDir, file)}:${lineNumber}: malformed line "`)).toBe(
        true,
      );
      expect(error.message).toMatch(message);
      await expectGoodMonthIntact(handle);
    },
  );

  it.each(BAD_ASNS)('rejects an Asn node whose "asn" is %s', async (_name, asn) => {
    const dumpDir = dump({ 'asns.jsonl': [`{"asn":${JSON.stringify(asn)}}`] });
    const error = await importError(handle, dumpDir);
    expect(error.message).toMatch(
      /asns\.jsonl:1: malformed line .*: expected an Asn node with "asn" a string of decimal digits or a JSON integer, at most 4294967295$/,
    );
    await expectGoodMonthIntact(handle);
  });

  it('rejects an AsnLink whose end is a JSON fraction instead of reading it as asdot', async () => {
    const dumpDir = dump({ 'asnLinks.jsonl': [{ asn0: 1.5, asn1: '2', relationship: 'peer' }] });
    expect((await importError(handle, dumpDir)).message).toMatch(
      /asnLinks\.jsonl:1: malformed line .*: expected an AsnLink node with two different "asn0"\/"asn1" ASNs/,
    );
    await expectGoodMonthIntact(handle);
  });

  it('accepts the forms real dumps use: JSON numbers, digit strings, address counts past 2^31, absent and null fields', async () => {
    const dumpDir = dump({
      'asns.jsonl': [
        // CAIDA's own API responses give "asn" as a JSON number and some counts as digit strings.
        {
          asn: 3356,
          rank: '1',
          cone: { numberAsns: '35292', numberPrefixes: 529469, numberAddresses: 3342308786 },
          asnDegree: { total: 2147483647, transit: '5255' },
          latitude: '37.7',
          longitude: -97.8,
        },
        { asn: '4294967295', rank: null, cone: null, asnDegree: { total: null } },
        { asn: 65541, announcing: { numberAddresses: '9007199254740991' } },
      ],
      'organizations.jsonl': [{ orgId: 'O1', rank: 2, members: { numberAsnsSeen: '12' } }],
      'asnLinks.jsonl': [
        { asn0: { asn: 3356 }, asn1: '65541', relationship: 'customer', numberPaths: '1200' },
      ],
      'dataset.jsonl': [
        { numberAddresses: 3342308786, numberAsnsSeen: '65955', ipVersion: 4, clique: [3356, '174'] },
      ],
    });
    const other = openDatabase(path.join(dir, 'accepted.db'));
    try {
      await importJsonl(other, { date: DATE, dir: dumpDir });
      const asns = await other.db.selectFrom('asns').selectAll().orderBy('asn').execute();
      expect(
        asns.map((a) => [
          Number(a.asn),
          a.rank === null ? null : Number(a.rank),
          Number(a.cone_asns),
          Number(a.cone_prefixes),
          Number(a.cone_addresses),
          Number(a.announcing_addresses),
          a.degree_total,
          a.degree_transit,
          a.latitude,
          a.longitude,
        ]),
      ).toEqual([
        [3356, 1, 35292, 529469, 3342308786, 0, 2147483647, 5255, 37.7, -97.8],
        [65541, null, 0, 0, 0, 9007199254740991, 0, 0, null, null],
        [4294967295, null, 0, 0, 0, 0, 0, 0, null, null],
      ]);
      // Every count is stored as an integer, none as a REAL.
      expect(
        other
          .sqlite!.prepare(
            `select distinct typeof(cone_asns) || typeof(cone_addresses) || typeof(degree_total) from asns`,
          )
          .pluck()
          .all(),
      ).toEqual(['integerintegerinteger']);
      const org = await other.db.selectFrom('organizations').selectAll().executeTakeFirstOrThrow();
      expect([Number(org.rank), org.number_asns_seen]).toEqual([2, 12]);
      const link = await other.db
        .selectFrom('asn_links')
        .selectAll()
        .where('asn0', '=', 3356)
        .executeTakeFirstOrThrow();
      expect([Number(link.asn1), link.relationship, Number(link.number_paths)]).toEqual([
        65541,
        'customer',
        1200,
      ]);
      const dataset = await other.db.selectFrom('datasets').selectAll().executeTakeFirstOrThrow();
      expect([
        Number(dataset.number_addresses),
        Number(dataset.number_asns_seen),
        dataset.ip_version,
        JSON.parse(dataset.clique),
      ]).toEqual([3342308786, 65955, 4, ['3356', '174']]);
    } finally {
      await other.close();
    }
  });

  it('skips the lines with bad fields under --skip-bad-lines and loads the rest', async () => {
    const dumpDir = dump({
      'asns.jsonl': [
        { asn: '1', rank: 1 },
        { asn: '2', rank: 'abc' },
        '{"asn":"3","asnDegree":{"total":1e300}}',
        { asn: 4.5 },
        { asn: '5', rank: 2 },
      ],
      'asnLinks.jsonl': [
        { asn0: '1', asn1: '5', relationship: 'peer', numberPaths: 10 },
        // Neither half of this link nor its nested end (AS6) may be kept.
        { asn0: '1', asn1: { asn: '6', cone: { numberAsns: 'lots' } }, relationship: 'customer' },
      ],
    });
    const other = openDatabase(path.join(dir, 'skipped.db'));
    try {
      const summary = await importJsonl(other, { date: DATE, dir: dumpDir, skipBadLines: true });
      expect(summary.skippedLines).toBe(4);
      expect(summary.skippedLinesPerFile).toEqual({
        [path.join(dumpDir, 'asns.jsonl')]: 3,
        [path.join(dumpDir, 'asnLinks.jsonl')]: 1,
      });
      const asns = await other.db.selectFrom('asns').select('asn').orderBy('asn').execute();
      expect(asns.map((a) => Number(a.asn))).toEqual([1, 5]);
      const links = await other.db.selectFrom('asn_links').select(['asn0', 'asn1']).orderBy('asn0').execute();
      expect(links.map((l) => [Number(l.asn0), Number(l.asn1)])).toEqual([
        [1, 5],
        [5, 1],
      ]);
    } finally {
      await other.close();
    }
  });

  it('through the CLI: one line naming file, line and field, exit code 1, no stack trace', () => {
    const dumpDir = dump({ 'asns.jsonl': ['{"asn":"1","rank":"abc","cone":{"numberAsns":"lots"}}'] });
    const run = spawnSync(
      process.execPath,
      [CLI, '--database', path.join(dir, 'cli.db'), 'import-jsonl', '--date', DATE, dumpDir],
      { encoding: 'utf8' },
    );
    expect(run.stderr).toBe(
      `asrank: ${path.join(dumpDir, 'asns.jsonl')}:1: malformed line ${JSON.stringify('{"asn":"1","rank":"abc","cone":{"numberAsns":"lots"}}')}: rank must be an integer from 1 to 2147483647 (a JSON number or a string of decimal digits), got "abc"\n`,
    );
    expect(run.status).toBe(1);
  });
});

(PG_URL ? describe : describe.skip)('import-jsonl numeric fields (PostgreSQL)', () => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await createPgDatabase();
    drop = database.drop;
    handle = openDatabase(database.url);
    await importJsonl(handle, { date: DATE, dir: GOOD });
  }, 60_000);
  afterAll(async () => {
    await handle?.close();
    await drop?.();
  });

  it('rejects 1e300 and non-numeric strings as malformed lines, not as a database error, and keeps the month', async () => {
    for (const line of [
      '{"asn":"1","asnDegree":{"total":1e300}}',
      '{"asn":"1","rank":"abc"}',
      '{"asn":"1","cone":{"numberAsns":"lots"}}',
    ]) {
      const error = await importError(handle, dump({ 'asns.jsonl': [line] }));
      expect(error.message).toMatch(
        /asns\.jsonl:1: malformed line .*: \S+ must be an integer from [01] to 2147483647/,
      );
      await expectGoodMonthIntact(handle);
    }
    expect((await listDatasets(handle)).map((d) => d.date)).toEqual([DATE]);
  });

  it('stores address counts past 2^31 and digit-string counts in their bigint columns', async () => {
    const dumpDir = dump({
      'asns.jsonl': [{ asn: 3356, cone: { numberAddresses: 3342308786, numberAsns: '35292' } }],
      'dataset.jsonl': [{ numberAddresses: '3342308786' }],
    });
    await importJsonl(handle, { date: '2019-09-01', dir: dumpDir });
    const asn = await handle.db
      .selectFrom('asns')
      .selectAll()
      .where('date', '=', '2019-09-01')
      .executeTakeFirstOrThrow();
    expect([Number(asn.asn), Number(asn.cone_addresses), Number(asn.cone_asns)]).toEqual([
      3356, 3342308786, 35292,
    ]);
    const dataset = await handle.db
      .selectFrom('datasets')
      .selectAll()
      .where('date', '=', '2019-09-01')
      .executeTakeFirstOrThrow();
    expect(Number(dataset.number_addresses)).toBe(3342308786);
  });
});
