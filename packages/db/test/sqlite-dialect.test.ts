// SQLite handles write a LIMIT as `cast(? as integer)`: a bound `limit ?` is read by SQLite's planner, which then
// plans the statement again on every run (docs/performance.md, eighth round). The pages must stay exactly those of a
// bound LIMIT, with the same plans.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../src';

describe('SQLite LIMIT', () => {
  let dir: string;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asrank-limit-'));
    handle = openDatabase(path.join(dir, 'limit.db'));
    await migrateToLatest(handle.db, handle.dialect);
    const insert = handle.sqlite!.prepare(
      `insert into asns (date, asn, asn_name, rank, cone_asns) values ('2024-01-01', ?, ?, ?, ?)`,
    );
    handle.sqlite!.transaction(() => {
      for (let asn = 1; asn <= 120; asn += 1) insert.run(asn, `AS${asn}`, asn, asn % 7);
    })();
  });

  afterAll(async () => {
    await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const page = (first: number, offset: number) =>
    handle.db
      .selectFrom('asns')
      .select(['asn', 'cone_asns'])
      .where('date', '=', '2024-01-01')
      .orderBy('cone_asns', 'desc')
      .orderBy('asn')
      .limit(first)
      .offset(offset);

  it('is compiled as a cast of the bound value; OFFSET stays a plain parameter', () => {
    const compiled = page(10, 20).compile();
    expect(compiled.sql).toMatch(/ limit cast\(\? as integer\) offset \?$/);
    expect(compiled.parameters.slice(-2)).toEqual([10, 20]);
  });

  it.each([
    [0, 0],
    [1, 0],
    [7, 3],
    [50, 100],
    [500, 0],
  ])('answers first %i at offset %i with the rows of a bound LIMIT', async (first, offset) => {
    const expected = handle
      .sqlite!.prepare(
        `select asn, cone_asns from asns where date = '2024-01-01' order by cone_asns desc, asn limit ? offset ?`,
      )
      .all(first, offset);
    const rows = await page(first, offset).execute();
    expect(rows).toEqual(expected);
    expect(rows.length).toBe(Math.max(0, Math.min(first, 120 - offset)));
  });

  it('keeps the plan a bound LIMIT gets', () => {
    const { sql, parameters } = page(100, 0).compile();
    const plan = (text: string) =>
      handle
        .sqlite!.prepare(`explain query plan ${text}`)
        .all(...parameters)
        .map((row) => (row as { detail: string }).detail);
    expect(plan(sql)).toEqual(plan(sql.replace('limit cast(? as integer)', 'limit ?')));
    expect(plan(sql).join(' ')).toMatch(/USING COVERING INDEX asns_date_cone_asns_desc/);
  });
});
