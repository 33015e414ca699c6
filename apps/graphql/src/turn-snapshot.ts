// On SQLite every statement outside a transaction is a read transaction of its own, and opening and closing one
// on a WAL file takes and drops the file's and the WAL index's shared locks: system calls (fcntl), ~5 µs a statement
// on this machine, as much as the point lookup's read itself (docs/performance.md, twenty-seventh round). The
// statements run in one turn of the event loop share one read transaction instead, opened by the turn's first
// statement and closed at the turn's end, before the next turn's I/O is polled: the requests of one turn already
// share one data-version read (data-version.ts), and now also the snapshot it came from. A load committed by
// another process is seen from the next turn on, as before; SQLite's writers never wait for readers in WAL mode,
// and a checkpoint only waits for this turn.
import type { DatabaseHandle } from '@asrank/db';

type SqliteConnection = NonNullable<DatabaseHandle['sqlite']>;

export interface TurnSnapshot {
  /** Called before a statement runs: opens this turn's read transaction unless one is open. */
  enter(): void;
  /** Closes this turn's read transaction now (a statement iterated over several turns runs outside it). */
  leave(): void;
}

const snapshotsByConnection = new WeakMap<SqliteConnection, TurnSnapshot>();

/** The turn snapshot of a read-only connection, one per connection however many callers ask. */
export function turnSnapshot(sqlite: SqliteConnection): TurnSnapshot {
  const known = snapshotsByConnection.get(sqlite);
  if (known) return known;
  const begin = sqlite.prepare('begin');
  const commit = sqlite.prepare('commit');
  // Only a transaction this module began is ended by it; one a caller opened on the connection is theirs.
  let ownTransaction = false;
  let leaveScheduled = false;
  const leave = () => {
    if (!ownTransaction) return;
    // A read transaction's COMMIT cannot fail for want of anything; SQLite may have ended it already after an
    // I/O error, and a closed connection has none left.
    if (sqlite.open && sqlite.inTransaction) commit.run();
    ownTransaction = false;
  };
  const leaveAtTurnEnd = () => {
    try {
      leave();
      leaveScheduled = false;
    } catch {
      // better-sqlite3 runs no statement while another one on the connection is being iterated (a statement run
      // outside the statement cache): the transaction ends at the end of a later turn, after that iteration.
      setImmediate(leaveAtTurnEnd);
    }
  };
  const snapshot: TurnSnapshot = {
    enter() {
      if (sqlite.inTransaction) return;
      begin.run();
      ownTransaction = true;
      if (!leaveScheduled) {
        leaveScheduled = true;
        setImmediate(leaveAtTurnEnd);
      }
    },
    leave,
  };
  snapshotsByConnection.set(sqlite, snapshot);
  return snapshot;
}
