// The statement cache under Kysely, on a real SQLite file: same answers as without it, compiled statements
// reused per SQL text, a busy (iterating) statement never handed out twice, and the size bound respected.
import fs from 'node:fs';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { openDatabase, type DatabaseHandle } from '@asrank/db';
import { statementCachingDatabase, withStatementCache } from '../src/statement-cache';
import { makeTempDir } from './helpers';

describe('statement cache', () => {
  let dir: string;
  let handle: DatabaseHandle;

  beforeAll(() => {
    dir = makeTempDir('statements');
    handle = openDatabase(path.join(dir, 'cache.db'));
    const sqlite = handle.sqlite!;
    sqlite.exec('create table numbers (n integer primary key, label text not null)');
    const insert = sqlite.prepare('insert into numbers (n, label) values (?, ?)');
    for (let n = 1; n <= 50; n++) insert.run(n, `n${n}`);
  });

  afterAll(async () => {
    await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers queries through Kysely exactly as the uncached connection does', async () => {
    const cached = withStatementCache({ ...handle, close: async () => undefined });
    for (const limit of [1, 7, 50]) {
      const query = (db: DatabaseHandle['db']) =>
        sql<{
          n: number;
          label: string;
        }>`select n, label from numbers where n <= ${limit} order by n desc`.execute(db);
      expect((await query(cached.db)).rows).toEqual((await query(handle.db)).rows);
    }
  });

  it('writes LIMIT as SQLite reads it without planning again, and pages as the uncached connection does', async () => {
    const cached = withStatementCache({ ...handle, close: async () => undefined });
    // Tables outside the schema's types: typed loosely for this test.
    const numbers = (db: DatabaseHandle['db']) =>
      (db as unknown as Kysely<{ numbers: { n: number; label: string } }>)
        .selectFrom('numbers')
        .select(['n', 'label'])
        .orderBy('n', 'desc')
        .limit(5)
        .offset(3);
    expect(numbers(cached.db).compile().sql).toContain('limit cast(? as integer) offset ?');
    const rows = await numbers(cached.db).execute();
    expect(rows.map((row) => row.n)).toEqual([47, 46, 45, 44, 43]);
    expect(rows).toEqual(await numbers(handle.db).execute());
  });

  it('builds the same row objects from raw rows: duplicate names, nulls, streamed rows', async () => {
    const cached = withStatementCache({ ...handle, close: async () => undefined });
    // Two columns named n: better-sqlite3's own objects keep the last one.
    const joined = (db: DatabaseHandle['db']) =>
      sql`select a.n, a.label, b.n, null as missing from numbers a join numbers b on b.n = a.n + 1 where a.n < ${5} order by a.n`.execute(
        db,
      );
    const rows = (await joined(cached.db)).rows;
    expect(rows).toEqual((await joined(handle.db)).rows);
    expect(rows[0]).toEqual({ n: 2, label: 'n1', missing: null });
    const streamed: unknown[] = [];
    for await (const row of cached.db
      .selectFrom('numbers' as never)
      .selectAll()
      .stream())
      streamed.push(row);
    expect(streamed).toEqual(
      await handle.db
        .selectFrom('numbers' as never)
        .selectAll()
        .execute(),
    );
    expect(streamed).toHaveLength(50);
  });

  it('runs a compiled query at once through readRows, with Kysely’s rows and the statement Kysely reuses', async () => {
    const cached = withStatementCache({ ...handle, close: async () => undefined });
    const query = (cached.db as unknown as Kysely<{ numbers: { n: number; label: string } }>)
      .selectFrom('numbers')
      .select(['n', 'label'])
      .where('n', '>', 47)
      .orderBy('n');
    const compiled = query.compile();
    const compiles = jest.spyOn(handle.sqlite!, 'prepare');
    try {
      const rows = cached.readRows!(compiled.sql, [45]);
      expect(rows).toEqual([46, 47, 48, 49, 50].map((n) => ({ n, label: `n${n}` })));
      // Kysely runs the same text from the statement readRows compiled.
      expect(await query.execute()).toEqual([48, 49, 50].map((n) => ({ n, label: `n${n}` })));
      expect(compiles.mock.calls.map(([text]) => text)).toEqual([compiled.sql]);
    } finally {
      compiles.mockRestore();
    }
  });

  it('reuses the compiled statement of a SQL text and compiles a new text once', () => {
    const database = statementCachingDatabase(handle.sqlite!);
    const first = database.prepare('select count(*) as total from numbers where n > ?');
    expect(database.prepare('select count(*) as total from numbers where n > ?')).toBe(first);
    expect(database.prepare('select count(*) as total from numbers where n < ?')).not.toBe(first);
    expect(first.all([10])).toEqual([{ total: 40 }]);
  });

  it('hands out a fresh statement while the cached one is still iterating', () => {
    const database = statementCachingDatabase(handle.sqlite!);
    const text = 'select n from numbers order by n';
    const streaming = database.prepare(text);
    const iterator = streaming.iterate([]);
    iterator.next();
    const concurrent = database.prepare(text);
    expect(concurrent).not.toBe(streaming);
    expect(concurrent.all([])).toHaveLength(50);
    iterator.return?.();
    expect(database.prepare(text)).toBe(streaming);
  });

  it('keeps at most `size` statements, dropping the oldest', () => {
    const database = statementCachingDatabase(handle.sqlite!, 2);
    const a = database.prepare('select 1 as a');
    const b = database.prepare('select 2 as b');
    database.prepare('select 3 as c');
    expect(database.prepare('select 2 as b')).toBe(b);
    expect(database.prepare('select 1 as a')).not.toBe(a);
  });
});
