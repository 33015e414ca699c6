// The data version on SQLite: requests that start in one turn of the event loop share a read, and the first
// read of a later turn sees a load committed by another connection (as the ingest CLI commits from its process).
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '@asrank/db';
import { dataVersionReader } from '../src/data-version';
import { makeTempDir } from './helpers';

describe('dataVersionReader on SQLite', () => {
  let dir: string;
  let writer: DatabaseHandle;
  let reader: DatabaseHandle;

  const setVersion = (version: string) =>
    writer
      .sqlite!.prepare(
        `insert into meta (key, value) values ('data_version', ?) on conflict (key) do update set value = excluded.value`,
      )
      .run(version);

  beforeAll(async () => {
    dir = makeTempDir('data-version');
    const file = path.join(dir, 'asrank.db');
    writer = openDatabase(file);
    await migrateToLatest(writer.db, writer.dialect);
    setVersion('7');
    reader = openDatabase(file, { readonly: true });
  });

  afterAll(async () => {
    await reader.close();
    await writer.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shares one read within a turn and reads again in the next', async () => {
    const readVersion = dataVersionReader(reader);
    await nextTurn();
    const first = readVersion();
    setVersion('8');
    // Same turn: the version read a moment ago, not a second statement.
    const sameTurn = readVersion();
    expect(sameTurn).toBe(first);
    await expect(sameTurn).resolves.toBe('7');
    await nextTurn();
    await expect(readVersion()).resolves.toBe('8');
  });

  it('sees every committed change from one turn to the next', async () => {
    const readVersion = dataVersionReader(reader);
    for (const version of ['9', '10', '11']) {
      setVersion(version);
      await nextTurn();
      await expect(readVersion()).resolves.toBe(version);
    }
  });
});
