// The data version on SQLite and PostgreSQL: requests that start in one turn of the event loop share a read, and
// the first read of a later turn sees a load committed by another connection (as the ingest CLI commits from its
// process).
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'kysely';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '@asrank/db';
import { dataVersionReader } from '../src/data-version';
import { dropDatabaseWhenIdle, makeTempDir, pgAdminUrl } from './helpers';

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

  it('knows the version of the turn without waiting, from the same read as the promise', async () => {
    const readVersion = dataVersionReader(reader);
    setVersion('12');
    await nextTurn();
    expect(readVersion.now()).toBe('12');
    setVersion('13');
    expect(readVersion.now()).toBe('12');
    await expect(readVersion()).resolves.toBe('12');
    await nextTurn();
    expect(readVersion.now()).toBe('13');
    await expect(readVersion()).resolves.toBe('13');
  });
});

if (!pgAdminUrl) {
  console.warn('SKIP dataVersionReader on PostgreSQL: DATABASE_URL_PG is not set (CI sets it).');
}

(pgAdminUrl ? describe : describe.skip)('dataVersionReader on PostgreSQL', () => {
  const name = `asrank_data_version_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  let admin: DatabaseHandle;
  let writer: DatabaseHandle;
  let reader: DatabaseHandle;
  const statements: string[] = [];

  const setVersion = (version: string) =>
    sql`insert into meta (key, value) values ('data_version', ${version})
        on conflict (key) do update set value = excluded.value`.execute(writer.db);

  beforeAll(async () => {
    admin = openDatabase(pgAdminUrl!, { poolSize: 1 });
    await sql`create database ${sql.id(name)}`.execute(admin.db);
    const url = new URL(pgAdminUrl!);
    url.pathname = `/${name}`;
    writer = openDatabase(url.toString(), { poolSize: 1 });
    await migrateToLatest(writer.db, writer.dialect);
    await setVersion('7');
    reader = openDatabase(url.toString(), { poolSize: 2 });
    // Counts the statements the reader's pipelined connection sends (the data version is read there, a short
    // statement), to tell a shared read from a second one.
    const query = reader.postgresPipelined!.query.bind(reader.postgresPipelined!);
    reader.postgresPipelined!.query = ((config: unknown, ...rest: unknown[]) => {
      statements.push(typeof config === 'string' ? config : (config as { text: string }).text);
      return (query as (...args: unknown[]) => unknown)(config, ...rest);
    }) as typeof query;
  }, 60_000);

  afterAll(async () => {
    await reader?.close();
    await writer?.close();
    await dropDatabaseWhenIdle(admin, name);
    await admin.close();
  });

  it('shares one round trip within a turn and reads again in the next', async () => {
    const readVersion = dataVersionReader(reader);
    await nextTurn();
    statements.length = 0;
    const first = readVersion();
    const sameTurn = readVersion();
    expect(sameTurn).toBe(first);
    await expect(sameTurn).resolves.toBe('7');
    expect(statements).toHaveLength(1);
    // A round trip is never known without waiting.
    expect(readVersion.now()).toBeUndefined();
    await setVersion('8');
    await nextTurn();
    await expect(readVersion()).resolves.toBe('8');
    expect(statements).toHaveLength(2);
  });

  it('sees every committed change from one turn to the next', async () => {
    const readVersion = dataVersionReader(reader);
    for (const version of ['9', '10', '11']) {
      await setVersion(version);
      await nextTurn();
      await expect(readVersion()).resolves.toBe(version);
    }
  });
});
