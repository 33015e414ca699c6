// A statement time limit on both dialects: SQLite's through the patched better-sqlite3's `statementTimeout`
// (patches/better-sqlite3@12.6.2.patch: a progress handler that interrupts a statement past its deadline), PostgreSQL's
// statement_timeout from the URL. A stopped statement is recognised by isStatementTimeout, and the connection answers
// the next statement as before.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { isStatementTimeout, openDatabase, type DatabaseHandle } from '../src';

const PG_URL = process.env.DATABASE_URL_PG;
const withServer = PG_URL ? describe : describe.skip;
if (!PG_URL)
  console.warn('statement-timeout.test.ts: DATABASE_URL_PG is not set, the PostgreSQL case is skipped');

/** A statement that counts to a billion: seconds of work for SQLite, made of nothing but virtual machine steps. */
const COUNT_TO_A_BILLION = sql<{ n: number }>`with recursive counter(n) as (
  select 1 union all select n + 1 from counter where n < 1000000000) select max(n) as n from counter`;

describe('statement time limit on SQLite', () => {
  let dir: string;
  let handle: DatabaseHandle;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asrank-timeout-'));
    const writer = openDatabase(path.join(dir, 'store.db'));
    writer.sqlite!.exec(
      'create table numbers (n integer primary key); insert into numbers values (1), (2), (3)',
    );
    writer.sqlite!.close();
    handle = openDatabase(path.join(dir, 'store.db'), { readonly: true, statementTimeoutMs: 100 });
  });
  afterAll(async () => {
    await handle?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stops a statement past the limit with SQLITE_INTERRUPT, and the connection goes on answering', async () => {
    const started = performance.now();
    const failure = await COUNT_TO_A_BILLION.execute(handle.db).then(
      () => null,
      (error: unknown) => error,
    );
    const elapsed = performance.now() - started;
    expect((failure as { code?: string } | null)?.code).toBe('SQLITE_INTERRUPT');
    expect(isStatementTimeout(failure)).toBe(true);
    // Stopped near its deadline, not run to its end (which takes tens of seconds).
    expect(elapsed).toBeGreaterThanOrEqual(99);
    expect(elapsed).toBeLessThan(5_000);
    // A later statement gets a deadline of its own: the expired one does not stop it.
    const rows = await sql<{ total: number }>`select sum(n) as total from numbers`.execute(handle.db);
    expect(rows.rows).toEqual([{ total: 6 }]);
    const iterated = [...handle.sqlite!.prepare('select n from numbers order by n').iterate()];
    expect(iterated).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it('leaves a connection opened without a limit unlimited, and refuses a limit that is not a whole number of ms', () => {
    const unlimited = openDatabase(path.join(dir, 'store.db'), { readonly: true });
    try {
      // 30 million steps (~1 s): a limit would have stopped it long before.
      const row = unlimited
        .sqlite!.prepare(
          `with recursive counter(n) as (select 1 union all select n + 1 from counter where n < 3000000)
           select max(n) as n from counter`,
        )
        .get();
      expect(row).toEqual({ n: 3000000 });
      expect(unlimited.unenforcedStatementTimeoutMs).toBeUndefined();
    } finally {
      unlimited.sqlite!.close();
    }
    expect(handle.unenforcedStatementTimeoutMs).toBeUndefined();
    for (const statementTimeoutMs of [-1, 1.5, 2 ** 31])
      expect(() => openDatabase(path.join(dir, 'store.db'), { readonly: true, statementTimeoutMs })).toThrow(
        /statementTimeoutMs must be a whole number of ms from 0 to 2147483647/,
      );
  });

  it('opens on a better-sqlite3 without the patch (a prebuilt binary), and says the limit it cannot keep', async () => {
    // Such a build has no statementTimeout: taken off the prototype here, as that build never had it.
    const prototype = BetterSqlite3.prototype as unknown as Record<string, unknown>;
    const statementTimeout = prototype['statementTimeout'];
    expect(typeof statementTimeout).toBe('function');
    delete prototype['statementTimeout'];
    try {
      const unpatched = openDatabase(path.join(dir, 'store.db'), { readonly: true, statementTimeoutMs: 100 });
      try {
        expect(unpatched.unenforcedStatementTimeoutMs).toBe(100);
        const rows = await sql<{ total: number }>`select sum(n) as total from numbers`.execute(unpatched.db);
        expect(rows.rows).toEqual([{ total: 6 }]);
      } finally {
        await unpatched.close();
      }
    } finally {
      prototype['statementTimeout'] = statementTimeout;
    }
  });
});

withServer('statement time limit on PostgreSQL', () => {
  it('is statement_timeout from the URL, and isStatementTimeout recognises its cancellation', async () => {
    const url = new URL(PG_URL!);
    url.searchParams.set('statement_timeout', '100');
    const handle = openDatabase(url.toString(), { readonly: true });
    try {
      const failure = await sql`select pg_sleep(10)`.execute(handle.db).then(
        () => null,
        (error: unknown) => error,
      );
      expect((failure as { code?: string } | null)?.code).toBe('57014');
      expect(isStatementTimeout(failure)).toBe(true);
      const rows = await sql<{ one: number }>`select 1 as one`.execute(handle.db);
      expect(rows.rows).toEqual([{ one: 1 }]);
      expect(isStatementTimeout(new Error('something else'))).toBe(false);
    } finally {
      await handle.close();
    }
  });
});
