// The month prefix index on hand-made rows: prefix ids with gaps (positions found by search, not arithmetic), a
// MOAS prefix listed once, an origin whose prefix row is missing left out, and the text of each prefix exact.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '@asrank/db';
import {
  coneListsOf,
  conePrefixPositions,
  monthIndexTuning,
  monthPrefixIndex,
  networkAt,
} from '../src/conePrefixIndex';
import { StatementCounter } from './support/statementCounter';
import { LOAD_TIMEOUT_MS, openLoadedStore, STORE_KINDS, type LoadedStore } from './support/store';

const DATE = '2024-01-01';

describe('month prefix index (SQLite)', () => {
  let tmp: string;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'asrank-cone-index-'));
    handle = openDatabase(path.join(tmp, 'asrank.db'));
    await migrateToLatest(handle.db, handle.dialect);
    const prefixes = [
      { prefix_id: 3, network: '10.0.0.0', length: 8 },
      { prefix_id: 7, network: '10.1.0.0', length: 16 },
      { prefix_id: 8, network: '192.0.2.0', length: 24 },
      { prefix_id: 20, network: '2001:db8::', length: 32 },
      { prefix_id: 21, network: '2001:db8:1::', length: 48 },
    ];
    await handle.db
      .insertInto('prefixes')
      .values(
        prefixes.map((row) => ({
          ...row,
          date: DATE,
          ip_version: row.network.includes(':') ? 6 : 4,
          origin_count: 1,
        })),
      )
      .execute();
    // Another month's rows must not leak in.
    await handle.db
      .insertInto('prefixes')
      .values({
        date: '2024-02-01',
        prefix_id: 5,
        network: '198.51.100.0',
        length: 24,
        ip_version: 4,
        origin_count: 1,
      })
      .execute();
    const origins: [number, number][] = [
      [100, 3],
      [100, 20],
      [200, 20], // MOAS: 20 is originated by 100 and 200
      [200, 8],
      [300, 7],
      [300, 99], // no prefix row 99
    ];
    await handle.db
      .insertInto('prefix_origins')
      .values(origins.map(([asn, prefixId]) => ({ date: DATE, asn, prefix_id: prefixId })))
      .execute();
  });

  afterAll(async () => {
    await handle?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('lists each cone prefix once, in prefix_id order, with its exact text', async () => {
    const month = await monthPrefixIndex(
      { db: handle.db, dialect: handle.dialect, dataVersion: 'test' },
      DATE,
    );
    expect([...month.prefixIds]).toEqual([3, 7, 8, 20, 21]);
    const prefixesOf = (members: number[]) =>
      [...conePrefixPositions(month, Uint32Array.from(members))].map(
        (position) => `${month.prefixIds[position]} ${networkAt(month, position)}/${month.lengths[position]}`,
      );
    expect(prefixesOf([100, 200])).toEqual(['3 10.0.0.0/8', '8 192.0.2.0/24', '20 2001:db8::/32']);
    expect(prefixesOf([300])).toEqual(['7 10.1.0.0/16']);
    expect(prefixesOf([50, 100, 150, 200, 250, 300, 400])).toEqual([
      '3 10.0.0.0/8',
      '7 10.1.0.0/16',
      '8 192.0.2.0/24',
      '20 2001:db8::/32',
    ]);
    expect(prefixesOf([999])).toEqual([]);
    expect(networkAt(month, 4)).toBe('2001:db8:1::');
  });

  it('reads a month in chunks as it reads it whole, and answers other requests between the chunks', async () => {
    const whole = await monthPrefixIndex(
      { db: handle.db, dialect: handle.dialect, dataVersion: 'whole' },
      DATE,
    );
    const tuning = { ...monthIndexTuning };
    // Two prefixes and one origin ASN a statement: three prefix chunks and three origin chunks.
    Object.assign(monthIndexTuning, { prefixesPerChunk: 2, originAsnsPerChunk: 1 });
    try {
      let answeredMeanwhile = false;
      let loaded = false;
      setImmediate(() => (answeredMeanwhile = !loaded));
      const chunked = await monthPrefixIndex(
        { db: handle.db, dialect: handle.dialect, dataVersion: 'chunked' },
        DATE,
      );
      loaded = true;
      expect(answeredMeanwhile).toBe(true);
      expect(chunked).toEqual(whole);
      expect(chunked).not.toBe(whole);
      expect([...chunked.prefixIds]).toEqual([3, 7, 8, 20, 21]);
      expect([...chunked.originAsns]).toEqual([100, 200, 300]);
      expect(networkAt(chunked, 3)).toBe('2001:db8::');
    } finally {
      Object.assign(monthIndexTuning, tuning);
    }
  });

  it('reads the month again when a load commits between its chunks, never a mix of two versions', async () => {
    const tuning = { ...monthIndexTuning };
    Object.assign(monthIndexTuning, { prefixesPerChunk: 2, originAsnsPerChunk: 1 });
    const version = async () =>
      (
        await handle.db
          .selectFrom('meta')
          .select('value')
          .where('key', '=', 'data_version')
          .executeTakeFirst()
      )?.value;
    const versionBefore = await version();
    try {
      // Runs between the first chunk (prefixes 3 and 7) and the second: the month gains prefix 4, and the data
      // version moves, as a load's commit does. Read on from id 7, the month would lack it.
      setImmediate(() => {
        void handle.db
          .insertInto('prefixes')
          .values({
            date: DATE,
            prefix_id: 4,
            network: '10.2.0.0',
            length: 16,
            ip_version: 4,
            origin_count: 1,
          })
          .execute()
          .then(() =>
            handle.db.updateTable('meta').set({ value: 'moved' }).where('key', '=', 'data_version').execute(),
          );
      });
      const month = await monthPrefixIndex(
        { db: handle.db, dialect: handle.dialect, dataVersion: 'moving' },
        DATE,
      );
      expect([...month.prefixIds]).toEqual([3, 4, 7, 8, 20, 21]);
      expect(networkAt(month, 1)).toBe('10.2.0.0');
    } finally {
      Object.assign(monthIndexTuning, tuning);
      await handle.db.deleteFrom('prefixes').where('date', '=', DATE).where('prefix_id', '=', 4).execute();
      await handle.db
        .updateTable('meta')
        .set({ value: versionBefore ?? '0' })
        .where('key', '=', 'data_version')
        .execute();
    }
  });

  it("reads a cone's members ascending, 32-bit ASNs whole, and only that cone's of that month", async () => {
    const members: [string, number, number][] = [
      [DATE, 100, 4_200_000_000],
      [DATE, 100, 7],
      [DATE, 100, 65_536],
      [DATE, 100, 100],
      [DATE, 100, 3],
      [DATE, 200, 9],
      ['2024-02-01', 100, 5],
    ];
    await handle.db
      .insertInto('cone_members')
      .values(members.map(([date, asn, member]) => ({ date, asn, member_asn: member })))
      .execute();
    const scope = { db: handle.db, dialect: handle.dialect, dataVersion: 'members' };
    expect([...(await coneListsOf(scope, { date: DATE, asn: 100 })).members]).toEqual([
      3, 7, 100, 65_536, 4_200_000_000,
    ]);
    expect([...(await coneListsOf(scope, { date: DATE, asn: 200 })).members]).toEqual([9]);
    expect([...(await coneListsOf(scope, { date: DATE, asn: 300 })).members]).toEqual([]);
  });
});

describe.each(STORE_KINDS)('month prefix index of the sample in chunks (%s)', (kind) => {
  let store: LoadedStore;

  beforeAll(async () => {
    store = await openLoadedStore(kind);
  }, LOAD_TIMEOUT_MS);
  afterAll(async () => {
    await store?.close();
  });

  it('reads the same index in small chunks as in one', async () => {
    const date = store.dates.at(-1)!;
    const scope = (dataVersion: string) => ({
      db: store.handle.db,
      dialect: store.handle.dialect,
      dataVersion,
    });
    const whole = await monthPrefixIndex(scope('whole'), date);
    expect(whole.prefixIds.length).toBeGreaterThan(1000);
    const tuning = { ...monthIndexTuning };
    // Chunks that end inside the month on both lists, the last one short.
    Object.assign(monthIndexTuning, { prefixesPerChunk: 333, originAsnsPerChunk: 17 });
    try {
      expect(await monthPrefixIndex(scope('chunked'), date)).toEqual(whole);
    } finally {
      Object.assign(monthIndexTuning, tuning);
    }
  });

  it('reads a month whose prefix ids have gaps by their ids, by ranges of ids or chunk after chunk', async () => {
    const date = store.dates.at(-1)!;
    const { db, dialect } = store.handle;
    const scope = (dataVersion: string) => ({ db, dialect, dataVersion });
    // Every seventh prefix of the month taken out for the test (a month's ids follow one another as the loads
    // number them, and a chunk's ids are then implied by its first; these chunks' are not).
    const removed = await db
      .selectFrom('prefixes')
      .selectAll()
      .where('date', '=', date)
      .where(sql<boolean>`prefix_id % 7 = 3`)
      .execute();
    expect(removed.length).toBeGreaterThan(100);
    const tuning = { ...monthIndexTuning };
    try {
      await db
        .deleteFrom('prefixes')
        .where('date', '=', date)
        .where(sql<boolean>`prefix_id % 7 = 3`)
        .execute();
      const expectedIds = (
        await db
          .selectFrom('prefixes')
          .select('prefix_id')
          .where('date', '=', date)
          .orderBy('prefix_id')
          .execute()
      ).map((row) => Number(row.prefix_id));
      const whole = await monthPrefixIndex(scope('gaps whole'), date);
      expect([...whole.prefixIds]).toEqual(expectedIds);
      const kept = await db
        .selectFrom('prefixes')
        .select(['prefix_id', 'network', 'length'])
        .where('date', '=', date)
        .orderBy('prefix_id')
        .limit(50)
        .execute();
      kept.forEach((row, position) => {
        expect(networkAt(whole, position)).toBe(row.network);
        expect(whole.lengths[position]).toBe(Number(row.length));
      });
      // Chunks of 333 ids: on PostgreSQL as ranges of ids read two at a time, then (no range allowed) one after the
      // other as SQLite reads them. The chunks that show the gap first are read again with their ids, and the chunks
      // after them with their ids at once: one or two prefix statements more than the chunks (none read twice).
      Object.assign(monthIndexTuning, { prefixesPerChunk: 333, originAsnsPerChunk: 17 });
      const prefixStatements = new StatementCounter(
        (tree) => tree.includes('"prefixes"') && tree.includes('"network"'),
      );
      const counted = { db: db.withPlugin(prefixStatements), dialect, dataVersion: 'gaps by ranges' };
      expect(await monthPrefixIndex(counted, date)).toEqual(whole);
      const chunks = Math.ceil(expectedIds.length / 333);
      expect(prefixStatements.executed).toBeGreaterThanOrEqual(chunks + 1);
      expect(prefixStatements.executed).toBeLessThanOrEqual(Math.ceil((expectedIds.at(-1)! + 1) / 333) + 2);
      Object.assign(monthIndexTuning, { maxPrefixRangeChunks: 0 });
      expect(await monthPrefixIndex(scope('gaps in turn'), date)).toEqual(whole);
    } finally {
      Object.assign(monthIndexTuning, tuning);
      await db
        .deleteFrom('prefixes')
        .where('date', '=', date)
        .where(sql<boolean>`prefix_id % 7 = 3`)
        .execute();
      for (let at = 0; at < removed.length; at += 500)
        await db
          .insertInto('prefixes')
          .values(removed.slice(at, at + 500))
          .execute();
    }
  });
});
