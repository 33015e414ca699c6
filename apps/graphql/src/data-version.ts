// The store's data version (meta.data_version), which every month load or drop changes in the same
// transaction as the data. It keys the result cache and its ETags, so with the cache on it is read for every GraphQL
// request: one primary-key lookup (microseconds on SQLite, a round trip on PostgreSQL), shared by the requests of one
// event-loop turn. With the result cache off nothing needs it first: the ETag is made with the answer (on
// PostgreSQL the body's digest), and on PostgreSQL a point lookup reads the version with its record (result-cache.ts,
// @asrank/schema LATEST_MONTH). Reading it at most once a second would be cheaper still but could serve an answer from
// before a load for up to that second; the issue asks that a cached answer is never served after the data changed.
import type { DatabaseHandle } from '@asrank/db';
import { turnSnapshot } from './turn-snapshot';

export interface DataVersionReader {
  (): Promise<string>;
  /**
   * This turn's version if it is known without waiting (SQLite reads it synchronously), else undefined: a hook
   * that can use it needs no promise and no microtask per request.
   */
  now(): string | undefined;
}

/**
 * One read shared by the requests handled in the same turn of the event loop. Every request handled in a turn had
 * arrived when that turn's poll for I/O returned, which precedes the read (on PostgreSQL the statement is sent in
 * that turn or later), so a load committed after the shared read was committed after those requests arrived too:
 * no request is answered from a version older than the one current when it came in. (libuv polls again within a
 * turn only when over 1,024 events are ready at once; a request received by that second poll may share a read
 * made moments before it arrived.) The next turn reads again. Under the point lookup's load a turn starts ~9
 * requests; on SQLite the read, cold in the CPU's caches between requests, cost ~14 µs per request
 * (docs/performance.md, fourteenth round), on PostgreSQL a round trip (twenty-second round).
 */
function onceThisTurn<T>(compute: () => T): () => T {
  let computed = false;
  let value: T;
  const forgetAtTurnEnd = () => {
    computed = false;
  };
  return () => {
    if (!computed) {
      value = compute();
      computed = true;
      setImmediate(forgetAtTurnEnd);
    }
    return value;
  };
}

export function dataVersionReader(handle: DatabaseHandle): DataVersionReader {
  if (handle.sqlite) {
    // A prepared statement on the raw handle skips Kysely's compile step on this hot path.
    const statement = handle.sqlite.prepare(`select value from meta where key = 'data_version'`).pluck();
    // The turn's read transaction: the version and the rows the turn's requests read come from one snapshot.
    const snapshot = turnSnapshot(handle.sqlite);
    const now = onceThisTurn(() => {
      snapshot.enter();
      return String(statement.get() ?? '0');
    });
    // The promise too is the turn's one, so every caller of a turn is handed the same.
    return Object.assign(
      onceThisTurn(() => Promise.resolve(now())),
      { now },
    );
  }
  if (handle.postgres) {
    // A named statement, parsed and planned once per connection (Kysely sends each statement unnamed); short, so on
    // the pipelined connection where the handle has one.
    const pool = handle.postgresPipelined ?? handle.postgres;
    const read = onceThisTurn(async () => {
      const { rows } = await pool.query<{ value: string }>({
        name: 'asrank_data_version',
        text: `select value from meta where key = 'data_version'`,
      });
      return rows[0]?.value ?? '0';
    });
    // A round trip is never known without waiting.
    return Object.assign(read, { now: () => undefined });
  }
  const readThroughKysely = async () => {
    const row = await handle.db
      .selectFrom('meta')
      .select('value')
      .where('key', '=', 'data_version')
      .executeTakeFirst();
    return row?.value ?? '0';
  };
  return Object.assign(readThroughKysely, { now: () => undefined });
}
