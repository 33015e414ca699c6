// One writer of months at a time: on SQLite a writer waits in the event loop for another's write lock (and gives up
// with a clear error after its longest wait); on PostgreSQL month writers queue on one advisory lock.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import { beginImmediateWhenFree, DatabaseBusyError, lockMonthWrites, openDatabase } from '../src';

const PG_URL = process.env.DATABASE_URL_PG;

describe('the SQLite write lock', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asrank-write-lock-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  function connections(name: string): [BetterSqlite3.Database, BetterSqlite3.Database] {
    const file = path.join(dir, name);
    const first = new BetterSqlite3(file);
    first.pragma('journal_mode = wal');
    first.exec('create table t (x integer)');
    return [first, new BetterSqlite3(file)];
  }

  it('waits for the holder past SQLite busy timeout, keeping the event loop free, then holds the lock', async () => {
    const [holder, waiter] = connections('wait.db');
    waiter.pragma('busy_timeout = 5000');
    holder.exec('begin immediate');
    let notices = 0;
    let ticks = 0;
    const ticking = setInterval(() => (ticks += 1), 50);
    const acquired = beginImmediateWhenFree(waiter, { onWait: () => (notices += 1) });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(waiter.inTransaction).toBe(false);
    holder.exec('commit');
    await acquired;
    clearInterval(ticking);
    expect(waiter.inTransaction).toBe(true);
    expect(notices).toBe(1);
    // The event loop ran between attempts: each blocks at most 200 ms.
    expect(ticks).toBeGreaterThan(10);
    // Its own busy timeout is as it was.
    expect(waiter.pragma('busy_timeout', { simple: true })).toBe(5000);
    waiter.exec('insert into t values (1)');
    waiter.exec('commit');
    holder.close();
    waiter.close();
  });

  it('gives up after its longest wait with a DatabaseBusyError that says what to do', async () => {
    const [holder, waiter] = connections('busy.db');
    holder.exec('begin immediate');
    await expect(beginImmediateWhenFree(waiter, { maxWaitMs: 300 })).rejects.toThrow(
      expect.objectContaining({
        name: DatabaseBusyError.name,
        message: expect.stringMatching(
          /^database busy: another process has held its write lock for \d+ s; retry/,
        ),
      }),
    );
    expect(waiter.inTransaction).toBe(false);
    holder.exec('rollback');
    holder.close();
    waiter.close();
  });
});

(PG_URL ? describe : describe.skip)('the PostgreSQL month writes lock', () => {
  it('makes a second writer wait until the first transaction ends', async () => {
    const first = openDatabase(PG_URL!);
    const second = openDatabase(PG_URL!);
    const events: string[] = [];
    try {
      let releaseFirst!: () => void;
      const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
      let firstLocked!: () => void;
      const locked = new Promise<void>((resolve) => (firstLocked = resolve));
      const firstWriter = first.db.transaction().execute(async (trx) => {
        await lockMonthWrites(trx);
        events.push('first locked');
        firstLocked();
        await firstHolds;
        events.push('first ends');
      });
      await locked;
      const secondWriter = second.db.transaction().execute(async (trx) => {
        await lockMonthWrites(trx);
        events.push('second locked');
        await sql`select 1`.execute(trx);
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(events).toEqual(['first locked']);
      releaseFirst();
      await Promise.all([firstWriter, secondWriter]);
      expect(events).toEqual(['first locked', 'first ends', 'second locked']);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
