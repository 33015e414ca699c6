// A serving (read-only) PostgreSQL handle's sessions run without JIT compilation, on each of its three ways to the
// server (Kysely's pool, the prepared-statement pool, the pipelined connection); a loading handle keeps the server's
// own setting. Needs a server (DATABASE_URL_PG).
import { sql } from 'kysely';
import { Client } from 'pg';
import { openDatabase, type DatabaseHandle } from '../src';

const PG_URL = process.env.DATABASE_URL_PG;
const withServer = PG_URL ? describe : describe.skip;
if (!PG_URL) console.warn('serving-sessions.test.ts: DATABASE_URL_PG is not set, its cases are skipped');

/** `jit` as each of the handle's ways to the server sees it. */
async function jitSettings(handle: DatabaseHandle): Promise<string[]> {
  const viaKysely = await sql<{ jit: string }>`show jit`.execute(handle.db);
  const viaPrepared = await handle.postgres!.query<{ jit: string }>('show jit');
  const viaPipeline = await handle.postgresPipelined!.query<{ jit: string }>('show jit');
  return [viaKysely.rows[0]!.jit, viaPrepared.rows[0]!.jit, viaPipeline.rows[0]!.jit];
}

withServer('PostgreSQL sessions of a serving handle', () => {
  it('run without JIT compilation on every connection, and keep the planning of named statements', async () => {
    const serving = openDatabase(PG_URL!, { readonly: true });
    try {
      expect(await jitSettings(serving)).toEqual(['off', 'off', 'off']);
      const { rows } = await serving.postgres!.query<{ plan_cache_mode: string }>('show plan_cache_mode');
      expect(rows[0]!.plan_cache_mode).toBe('force_generic_plan');
    } finally {
      await serving.close();
    }
  });

  it("leave a loading handle's sessions with the server's setting", async () => {
    const plain = new Client({ connectionString: PG_URL });
    const loading = openDatabase(PG_URL!);
    try {
      await plain.connect();
      const { jit } = (await plain.query<{ jit: string }>('show jit')).rows[0]!;
      expect(await jitSettings(loading)).toEqual([jit, jit, jit]);
    } finally {
      await plain.end();
      await loading.close();
    }
  });
});
