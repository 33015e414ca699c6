// The GraphQL service on PostgreSQL when the server ends its connections (a restart, a failover, an administrator's
// pg_terminate_backend): the pools' connections and the pipelined one the record lookups use (@asrank/db
// pipelined-postgres.ts) are opened again, so lookups and pages answer again at once, and the process lives on.
import { sql } from 'kysely';
import { openDatabase, type DatabaseHandle } from '@asrank/db';
import {
  asnsOfMonth,
  pgAdminUrl,
  postgresWithSample,
  startService,
  type LoadedDatabase,
  type RunningService,
} from './helpers';

if (!pgAdminUrl) console.warn('SKIP PostgreSQL connection loss: DATABASE_URL_PG is not set (CI sets it).');

const POINT_LOOKUP =
  'query PointLookup($asn: String!) { asn(asn: $asn) { asn asnName organization { orgId orgName } } }';

(pgAdminUrl ? describe : describe.skip)('the GraphQL service after PostgreSQL ends its connections', () => {
  let store: LoadedDatabase;
  let service: RunningService;
  let admin: DatabaseHandle;
  let asns: string[];
  beforeAll(async () => {
    store = await postgresWithSample(pgAdminUrl!);
    admin = openDatabase(pgAdminUrl!, { poolSize: 1 });
    service = await startService(store.url);
    const latest = [...store.dates].sort().at(-1)!;
    asns = await asnsOfMonth(store.reader, latest, 12);
  }, 120_000);
  afterAll(async () => {
    await service?.close();
    await admin?.close();
    await store?.dispose();
  });

  const lookUp = async (asn: string) => {
    const response = await fetch(`${service.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: POINT_LOOKUP, variables: { asn } }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  /** The service's sessions, as the server lists them. */
  const sessions = async () => {
    const database = new URL(store.url).pathname.slice(1);
    const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity
      where datname = ${database} and pid <> pg_backend_pid()`.execute(admin.db);
    return rows.map((row) => row.pid);
  };

  it('answers point lookups and pages again, from new connections', async () => {
    // Concurrent lookups (the pipelined connection) and a page (the pool) open the service's connections.
    const before = await Promise.all(asns.slice(0, 4).map(lookUp));
    expect(before.map(({ body }) => (body.data as { asn: { asn: string } }).asn.asn)).toEqual(
      asns.slice(0, 4),
    );
    const page = await fetch(
      `${service.baseUrl}/graphql?query=${encodeURIComponent('{ asns(first: 3) { totalCount edges { node { asn } } } }')}`,
    );
    expect(page.status).toBe(200);
    const ended = await sessions();
    expect(ended.length).toBeGreaterThan(0);
    await sql`select pg_terminate_backend(pid) from unnest(${ended}::int[]) as pid`.execute(admin.db);

    // A statement written before the loss reaches the client may fail (answered as a GraphQL error, not a hang or a
    // crash); within a few requests the lookups answer from a new connection.
    let answered: { asn: string } | null = null;
    for (const asn of asns.slice(4)) {
      const { status, body } = await lookUp(asn);
      expect([200, 500]).toContain(status);
      const data = body.data as { asn: { asn: string } | null } | null | undefined;
      if (status === 200 && data?.asn) {
        answered = data.asn;
        expect(answered.asn).toBe(asn);
        break;
      }
      expect(body.errors).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(answered).not.toBeNull();
    const pageAgain = await fetch(
      `${service.baseUrl}/graphql?query=${encodeURIComponent('{ asns(first: 3) { totalCount edges { node { asn } } } }')}`,
    );
    expect(pageAgain.status).toBe(200);
    const now = await sessions();
    expect(now.length).toBeGreaterThan(0);
    expect(now.filter((pid) => ended.includes(pid))).toEqual([]);
  });
});
