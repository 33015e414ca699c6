// The PostgreSQL handle's pipelined connection (pipelined-postgres.ts): statements written together are answered
// each with its own rows on one backend, an error fails its statement only, and a lost connection is replaced.
// Needs a server (DATABASE_URL_PG) except for the unreachable one.
import { Pool } from 'pg';
import { openDatabase, type DatabaseHandle } from '../src';

const PG_URL = process.env.DATABASE_URL_PG;
const withServer = PG_URL ? describe : describe.skip;
if (!PG_URL)
  console.warn('pipelined-postgres.test.ts: DATABASE_URL_PG is not set, the server cases are skipped');

interface Answer {
  n: number;
  pid: number;
}

const numbered = (pipelined: NonNullable<DatabaseHandle['postgresPipelined']>, n: number) =>
  pipelined
    .query<Answer>({
      name: 'pipelined_test_numbered',
      text: 'select $1::int as n, pg_backend_pid() as pid',
      values: [n],
    })
    .then((result) => result.rows[0]!);

withServer('the pipelined PostgreSQL connection', () => {
  let handle: DatabaseHandle;
  let admin: Pool;
  beforeAll(() => {
    handle = openDatabase(PG_URL!);
    admin = new Pool({ connectionString: PG_URL, max: 1 });
  });
  afterAll(async () => {
    await handle?.close();
    await admin?.end();
  });

  it('answers statements written together each with its own rows, all on one backend', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, n) => numbered(handle.postgresPipelined!, n)),
    );
    expect(answers.map((answer) => answer.n)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    expect(new Set(answers.map((answer) => answer.pid)).size).toBe(1);
    // Planned as the pool's named statements are: once, generically.
    const { rows } = await handle.postgresPipelined!.query<{ plan_cache_mode: string }>(
      'show plan_cache_mode',
    );
    expect(rows[0]!.plan_cache_mode).toBe('force_generic_plan');
  });

  it('fails only the statement that errs, not those written before and after it', async () => {
    const pipelined = handle.postgresPipelined!;
    const [before, failed, after] = await Promise.allSettled([
      numbered(pipelined, 1),
      pipelined.query('select 1 / (0 * $1::int) as n', [7]),
      numbered(pipelined, 3),
    ]);
    expect(before).toMatchObject({ status: 'fulfilled', value: { n: 1 } });
    expect(failed).toMatchObject({ status: 'rejected', reason: { message: 'division by zero' } });
    expect(after).toMatchObject({ status: 'fulfilled', value: { n: 3 } });
  });

  it('opens a new connection, with its named statements prepared again, after the server ends the old one', async () => {
    const pipelined = handle.postgresPipelined!;
    // Node's warning channel, watched (jest's sandbox does not pass process 'warning' events to the test).
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const { pid } = await numbered(pipelined, 1);
      await admin.query('select pg_terminate_backend($1)', [pid]);
      // Until the loss reaches the client a statement may still be written to the old connection and fail; the
      // next one after that runs on a new backend.
      let answer: Answer | undefined;
      for (let attempt = 0; attempt < 5 && answer === undefined; attempt += 1) {
        answer = await numbered(pipelined, 2).catch(async (error: Error) => {
          expect(error.message).toMatch(/terminat|Connection|ECONNRESET|closed/i);
          await new Promise((resolve) => setTimeout(resolve, 50));
          return undefined;
        });
      }
      expect(answer?.n).toBe(2);
      expect(answer?.pid).not.toBe(pid);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(/^PostgreSQL pipelined connection lost: /);
    } finally {
      warn.mockRestore();
    }
  });
});

it('fails a statement with the connection error when the server cannot be reached, without hanging', async () => {
  // Nothing listens on port 1.
  const handle = openDatabase('postgres://nobody@127.0.0.1:1/none');
  try {
    await expect(handle.postgresPipelined!.query('select 1')).rejects.toThrow(/ECONNREFUSED/);
    // And again, on a connection made anew.
    await expect(handle.postgresPipelined!.query('select 1')).rejects.toThrow(/ECONNREFUSED/);
  } finally {
    await handle.close();
  }
});
