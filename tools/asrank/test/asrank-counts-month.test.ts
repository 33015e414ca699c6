// `ingest --asrank-counts DIR` takes only the files of the month being loaded (CAIDA names each after its month,
// 20171201-asn_count.txt): another month's cone sizes, degrees, link paths and dataset_id are never stored as this
// month's. A directory holding only another month's counts is an error naming both months.
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase, type DatabaseHandle } from '@asrank/db';
import { ingestMonth, InputFileError, listDatasets } from '../src';
import { parseAsrankCounts } from '../src/parse/asrank-counts';
import { BadLinePolicy } from '../src/input/bad-lines';
import { CAIDA_DIR, HAVE_CAIDA, tempDir } from './helpers';

const dir = tempDir('asrank-counts-month');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const AS_REL = path.join(dir, 'tiny.as-rel.txt');
fs.writeFileSync(AS_REL, '1|2|-1\n1|3|0\n');

/** A directory of CAIDA-named AS Rank files: month -> { suffix: content }. */
function countsDir(name: string, files: Record<string, Record<string, string>>): string {
  const countsPath = path.join(dir, name);
  fs.mkdirSync(countsPath);
  for (const [month, byName] of Object.entries(files))
    for (const [suffix, text] of Object.entries(byName))
      fs.writeFileSync(path.join(countsPath, `${month}${suffix}`), text);
  return countsPath;
}

// December's files: cone sizes 30/20/10, link paths, and December's dataset metadata.
const DECEMBER = {
  '-asn_count.txt': '# date:20171201\n1|30|300|3000|2|1\n2|20|200|2000|1|0\n3|10|100|1000|1|0\n',
  '-asn_link_count.txt': '1|2|1111\n1|3|2222\n',
  '.dataset.jsonl': '{"dataset_id":"20171201","clique":[1],"number_prefixes":749422}\n',
};
// June's own cone sizes only.
const JUNE = { '-asn_count.txt': '1|3|30|300|2|1\n2|1|10|100|1|0\n3|1|10|100|1|0\n' };

async function monthRows(handle: DatabaseHandle, date: string) {
  const dataset = await handle.db
    .selectFrom('datasets')
    .select(['dataset_id', 'number_prefixes'])
    .where('date', '=', date)
    .executeTakeFirstOrThrow();
  const asns = await handle.db
    .selectFrom('asns')
    .select(['asn', 'cone_asns'])
    .where('date', '=', date)
    .orderBy('asn')
    .execute();
  const links = await handle.db
    .selectFrom('asn_links')
    .select(['asn0', 'asn1', 'number_paths'])
    .where('date', '=', date)
    .where('canonical', '=', 1)
    .orderBy('asn1')
    .execute();
  return {
    datasetId: dataset.dataset_id,
    numberPrefixes: Number(dataset.number_prefixes),
    cones: asns.map((a) => [Number(a.asn), Number(a.cone_asns)]),
    paths: links.map((l) => [
      Number(l.asn0),
      Number(l.asn1),
      l.number_paths === null ? null : Number(l.number_paths),
    ]),
  };
}

describe('--asrank-counts takes only the files of the month being loaded', () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = openDatabase(path.join(dir, 'counts.db'));
    await ingestMonth(handle, { date: '2018-06-01', asRel: AS_REL });
  });
  afterAll(async () => handle.close());

  it("rejects a directory holding only another month's counts, naming both months, and keeps the loaded month", async () => {
    const before = await monthRows(handle, '2018-06-01');
    const december = countsDir('20171201', { '20171201': DECEMBER });
    const error = await ingestMonth(handle, {
      date: '2018-06-01',
      asRel: AS_REL,
      asrankCounts: december,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputFileError);
    expect((error as Error).message).toBe(
      `${december}: the --asrank-counts directory holds the AS Rank counts of 20171201, not of 20180601 (no 20180601-asn_count.txt)`,
    );
    expect(await monthRows(handle, '2018-06-01')).toEqual(before);
    expect(before.datasetId).toBe('20180601');
  });

  it("in a directory shared by several months, takes none of another month's optional files", async () => {
    const shared = countsDir('shared', { '20171201': DECEMBER, '20180601': JUNE });
    await ingestMonth(handle, { date: '2018-06-01', asRel: AS_REL, asrankCounts: shared });
    expect(await monthRows(handle, '2018-06-01')).toEqual({
      // Not December's dataset_id or prefix count, though its dataset.jsonl is the only one there.
      datasetId: '20180601',
      numberPrefixes: 0,
      cones: [
        [1, 3],
        [2, 1],
        [3, 1],
      ],
      // Nor December's link paths.
      paths: [
        [1, 2, null],
        [1, 3, null],
      ],
    });
    await ingestMonth(handle, { date: '2017-12-01', asRel: AS_REL, asrankCounts: shared });
    expect(await monthRows(handle, '2017-12-01')).toEqual({
      datasetId: '20171201',
      numberPrefixes: 749422,
      cones: [
        [1, 30],
        [2, 20],
        [3, 10],
      ],
      paths: [
        [1, 2, 1111],
        [1, 3, 2222],
      ],
    });
  });

  it('rejects an asn_count file whose name gives no month, and names it', async () => {
    const undated = path.join(dir, 'undated');
    fs.mkdirSync(undated);
    fs.writeFileSync(path.join(undated, 'latest-asn_count.txt'), JUNE['-asn_count.txt']);
    await expect(
      ingestMonth(handle, { date: '2018-06-01', asRel: AS_REL, asrankCounts: undated }),
    ).rejects.toThrow(
      `${undated}: no 20180601-asn_count.txt in the AS Rank counts directory (found latest-asn_count.txt, whose month is unknown: CAIDA's names start with YYYYMMDD)`,
    );
  });

  it('still says so when the directory holds no asn_count file at all', async () => {
    const empty = path.join(dir, 'empty');
    fs.mkdirSync(empty);
    await expect(
      ingestMonth(handle, { date: '2018-06-01', asRel: AS_REL, asrankCounts: empty }),
    ).rejects.toThrow(`${empty}: no *-asn_count.txt file for 20180601 in the AS Rank counts directory`);
  });
});

(HAVE_CAIDA ? describe : describe.skip)("CAIDA's real AS Rank directories", () => {
  const asrank = (month: string) => path.join(CAIDA_DIR, 'asrank', month);

  it('each month directory yields exactly its own month files', async () => {
    for (const month of ['20171201', '20180601', '20180701']) {
      const counts = await parseAsrankCounts(
        asrank(month),
        `${month.slice(0, 4)}-${month.slice(4, 6)}-${month.slice(6)}`,
        new BadLinePolicy(false),
      );
      expect(counts.files.map((file) => path.basename(file)).sort()).toEqual(
        fs
          .readdirSync(asrank(month))
          .filter((name) =>
            /(-asn_count\.txt|-org_count\.txt|-asn_link_count\.txt|-asn_loc\.txt|\.jsonl)$/.test(name),
          )
          .filter((name) => !name.endsWith('-count_info.jsonl'))
          .sort(),
      );
      expect(counts.dataset?.datasetId).toBe(month);
      expect(counts.asnCounts.size).toBeGreaterThan(60000);
    }
  }, 120_000);

  it('rejects loading 2018-06-01 with the 20171201 directory (the probe report B7)', async () => {
    const handle = openDatabase(path.join(dir, 'caida.db'));
    try {
      await expect(
        ingestMonth(handle, {
          date: '2018-06-01',
          asRel: path.join(CAIDA_DIR, 'as-rel', '20180601.as-rel.txt.bz2'),
          asrankCounts: asrank('20171201'),
        }),
      ).rejects.toThrow(
        `${asrank('20171201')}: the --asrank-counts directory holds the AS Rank counts of 20171201, not of 20180601 (no 20180601-asn_count.txt)`,
      );
      expect(await listDatasets(handle)).toEqual([]);
    } finally {
      await handle.close();
    }
  }, 120_000);
});
