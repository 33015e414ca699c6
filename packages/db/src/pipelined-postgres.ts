// One PostgreSQL connection in pg's pipeline mode, for the short statements that many requests send at once (the
// service's record lookups by key and its data-version read). A pooled statement waits for an idle connection and is
// then written alone; here each statement is written as soon as it is made, behind those still in flight, and the
// server's backend reads the next while it answers the last. Under the point lookup that carried 20,700-23,100
// requests a second against 15,700-16,900 through the pool, builds alternated four times (docs/performance.md,
// thirty-ninth round). Long statements (pages, histories, cone walks) stay on the pool, whose connections the server
// runs side by side: one slow statement here would hold up every lookup behind it.
import type { Client, Pool } from 'pg';

/** What a caller needs to run a statement: a pool's, or this connection's, `query`. */
export type PostgresQueryable = Pick<Pool, 'query'>;

export interface PipelinedPostgres extends PostgresQueryable {
  /** Closes the connection once the statements written to it are answered. */
  end(): Promise<void>;
}

/**
 * A pipelined connection made by `createClient` on the first statement, and made again on the next statement after
 * it is lost (server restart, pg_terminate_backend): pg fails the statements that were in flight on it, as a pool
 * fails a lost connection's statement, and the connection's named statements are prepared again on the new one.
 */
export function pipelinedPostgres(createClient: () => Client): PipelinedPostgres {
  let current: { client: Client; connecting: Promise<void> | undefined } | undefined;
  let ending = false;
  const connection = () => {
    if (current) return current;
    const client = createClient();
    let lost = false;
    const forget = (why: string) => {
      if (current?.client === client) current = undefined;
      // With no listener a lost connection's 'error' would end the process, as a pool's idle client's would.
      if (!ending && !lost) process.emitWarning(`PostgreSQL pipelined connection lost: ${why}`);
      lost = true;
    };
    client.on('error', (error) => forget(error.message));
    client.on('end', () => forget('ended by the server'));
    const opened = { client, connecting: undefined as Promise<void> | undefined };
    // Statements wait for the connection while it opens, so that a failure to connect reaches them as it is (pg's
    // own queue would fail them with "Connection terminated unexpectedly"); the next statement tries anew.
    opened.connecting = client.connect().then(
      () => {
        opened.connecting = undefined;
      },
      (error: Error) => {
        lost = true; // told to the statements, not warned of
        if (current === opened) current = undefined;
        throw error;
      },
    );
    current = opened;
    return opened;
  };
  const query = (...args: unknown[]): unknown => {
    const { client, connecting } = connection();
    const run = () => (client.query as (...args: unknown[]) => unknown)(...args);
    return connecting ? connecting.then(run) : run();
  };
  return {
    query: query as unknown as Pool['query'],
    end: async () => {
      ending = true;
      const opened = current;
      current = undefined;
      if (!opened) return;
      await opened.connecting?.catch(() => undefined);
      await opened.client.end();
    },
  };
}
