// better-sqlite3 is patched (patches/better-sqlite3@12.6.2.patch) so that on Node 20 a raw row and the array `all()`
// returns are each made by one Array::New, as better-sqlite3 does itself on Node 22 and later, instead of one generic
// property store per value (docs/performance.md, twenty-fourth round). The service reads every row through raw
// statements (apps/graphql statement-cache.ts): the values must arrive exactly as the object rows and the iterator
// give them, in column order, for wide rows, many rows, none, NULLs, blobs and 64-bit integers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

const COLUMNS = 30;
const ROWS = 2_500;

describe('raw rows from the patched better-sqlite3', () => {
  let dir: string;
  let sqlite: Database.Database;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asrank-rows-'));
    sqlite = new Database(path.join(dir, 'rows.db'));
    const columns = Array.from({ length: COLUMNS }, (_, index) => `c${index}`);
    sqlite.exec(`create table wide (id integer primary key, ${columns.join(', ')})`);
    const insert = sqlite.prepare(
      `insert into wide (id, ${columns.join(', ')}) values (?, ${columns.map(() => '?').join(', ')})`,
    );
    // Each column cycles through the storage classes: integer, real, text (some non-ASCII), NULL, blob.
    const valueAt = (row: number, column: number): unknown => {
      switch ((row + column) % 5) {
        case 0:
          return row * 1_000 + column;
        case 1:
          return row + column / 8;
        case 2:
          return `r${row}c${column}${row % 3 === 0 ? ' Zürich 東京' : ''}`;
        case 3:
          return null;
        default:
          return Buffer.from([row % 256, column]);
      }
    };
    sqlite.transaction(() => {
      for (let row = 1; row <= ROWS; row += 1)
        insert.run(row, ...Array.from({ length: COLUMNS }, (_, column) => valueAt(row, column)));
    })();
  });

  afterAll(() => {
    sqlite.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('gives every row of a wide table, values in column order, as the object rows hold them', () => {
    const text = 'select * from wide order by id';
    const objects = sqlite.prepare(text).all() as Record<string, unknown>[];
    const statement = sqlite.prepare(text).raw(true);
    const names = statement.columns().map((column) => column.name);
    const raw = statement.all() as unknown[][];
    expect(raw).toHaveLength(ROWS);
    expect(raw.every((values) => Array.isArray(values) && values.length === COLUMNS + 1)).toBe(true);
    expect(raw).toEqual(objects.map((row) => names.map((name) => row[name])));
    expect([...(statement.iterate() as IterableIterator<unknown[]>)]).toEqual(raw);
    // The storage classes survive: a blob stays a Buffer, NULL stays null, text keeps its characters.
    const first = raw[0]!;
    expect(first.some((value) => Buffer.isBuffer(value))).toBe(true);
    expect(first).toContain(null);
    expect(raw[2]!.some((value) => typeof value === 'string' && value.endsWith('Zürich 東京'))).toBe(true);
  });

  it('gives an empty array when no row matches, and single-column rows as one-value arrays', () => {
    expect(sqlite.prepare('select * from wide where id < 0').raw(true).all()).toEqual([]);
    expect(sqlite.prepare('select id from wide where id <= 3 order by id').raw(true).all()).toEqual([
      [1],
      [2],
      [3],
    ]);
  });

  it('keeps 64-bit integers exact as BigInt when asked', () => {
    const statement = sqlite
      .prepare('select 9007199254740993 as big, 7 as small')
      .raw(true)
      .safeIntegers(true);
    expect(statement.all()).toEqual([[9007199254740993n, 7n]]);
  });

  it('reports an error raised while stepping, and the connection reads on', () => {
    // json_extract fails on the row whose text is not JSON, after earlier rows were read.
    const statement = sqlite
      .prepare(
        `select json_extract(case when id = 3 then '{' else '{"a":' || id || '}' end, '$.a') from wide where id <= 5 order by id`,
      )
      .raw(true);
    expect(() => statement.all()).toThrow(/malformed JSON/i);
    const healthy = sqlite.prepare('select id from wide where id <= 2 order by id').raw(true);
    expect(healthy.all()).toEqual([[1], [2]]);
  });
});
