// The service's reads of one event-loop turn share one SQLite read transaction (a snapshot), on a real WAL file
// written by a second connection as the ingest CLI writes it: a commit in mid-turn is seen from the next turn on,
// the data version and the rows of one turn agree, and the turn's end closes the transaction it opened and no other.
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '@asrank/db';
import { dataVersionReader } from '../src/data-version';
import { statementCachingDatabase, withStatementCache } from '../src/statement-cache';
import { turnSnapshot } from '../src/turn-snapshot';
import { makeTempDir } from './helpers';

describe('one read transaction per event-loop turn (SQLite)', () => {
  let dir: string;
  let writer: DatabaseHandle;
  let reader: DatabaseHandle;
  let served: DatabaseHandle;
  let nextValue = 1;

  const addRow = (version: string) => {
    const sqlite = writer.sqlite!;
    sqlite.transaction(() => {
      sqlite.prepare('insert into numbers (n) values (?)').run(nextValue++);
      sqlite
        .prepare(
          `insert into meta (key, value) values ('data_version', ?) on conflict (key) do update set value = excluded.value`,
        )
        .run(version);
    })();
  };
  const countRows = () =>
    (served.readRows!('select count(*) as total from numbers', []) as { total: number }[])[0]!.total;

  beforeAll(async () => {
    dir = makeTempDir('turn-snapshot');
    const file = path.join(dir, 'asrank.db');
    writer = openDatabase(file);
    await migrateToLatest(writer.db, writer.dialect);
    writer.sqlite!.exec('create table numbers (n integer primary key)');
    addRow('1');
    reader = openDatabase(file, { readonly: true });
    served = withStatementCache(reader);
  });

  afterAll(async () => {
    await served.close();
    await writer.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads a commit made in mid-turn only from the next turn on', async () => {
    await nextTurn();
    const before = countRows();
    expect(reader.sqlite!.inTransaction).toBe(true);
    addRow('2');
    expect(countRows()).toBe(before);
    await nextTurn();
    expect(reader.sqlite!.inTransaction).toBe(false);
    expect(countRows()).toBe(before + 1);
  });

  it('gives the data version and the rows of one turn from the same snapshot', async () => {
    const readVersion = dataVersionReader(served);
    await nextTurn();
    const version = await readVersion();
    const rows = countRows();
    addRow(String(Number(version) + 1));
    // A row read later in the same turn still belongs to the version this turn's requests were given.
    expect(countRows()).toBe(rows);
    await nextTurn();
    await expect(readVersion()).resolves.toBe(String(Number(version) + 1));
    expect(countRows()).toBe(rows + 1);
  });

  it('runs Kysely through the same turn transaction and reads across turns', async () => {
    const versionViaKysely = async () =>
      (await served.db.selectFrom('meta').select('value').where('key', '=', 'data_version').execute())[0]!
        .value;
    await nextTurn();
    const version = await versionViaKysely();
    addRow(String(Number(version) + 1));
    await nextTurn();
    expect(await versionViaKysely()).toBe(String(Number(version) + 1));
  });

  it('leaves a transaction the caller opened to the caller', async () => {
    await nextTurn();
    const sqlite = reader.sqlite!;
    sqlite.exec('begin');
    countRows();
    await nextTurn();
    expect(sqlite.inTransaction).toBe(true);
    sqlite.exec('commit');
    expect(sqlite.inTransaction).toBe(false);
  });

  it('iterates a statement over several turns outside the turn transaction', async () => {
    await nextTurn();
    const database = statementCachingDatabase(reader.sqlite!, 10, turnSnapshot(reader.sqlite!));
    const total = countRows();
    const seen: unknown[] = [];
    for (const row of database.prepare('select n from numbers order by n').iterate([])) {
      seen.push(row);
      // The turn's end comes while the statement is still open; closing the turn transaction then would throw.
      await nextTurn();
    }
    expect(seen).toHaveLength(total);
    expect(countRows()).toBe(total);
  });

  it('closes the turn transaction after a statement the service did not start is iterated past the turn', async () => {
    await nextTurn();
    const sqlite = reader.sqlite!;
    const total = countRows();
    const iterator = sqlite.prepare('select n from numbers').iterate();
    iterator.next();
    // The turn ends while the connection is busy with the iteration: no COMMIT can run, and nothing may throw.
    await nextTurn();
    expect(sqlite.inTransaction).toBe(true);
    let rest = 0;
    while (!iterator.next().done) rest += 1;
    expect(rest).toBe(total - 1);
    await nextTurn();
    expect(sqlite.inTransaction).toBe(false);
  });
});
