// Lookups run from SQL compiled once per shape: each call binds its own values, the statement observer sees every
// execution, a placeholder is bound wherever the statement uses it, and a shape that binds anything but its placeholders
// is refused at its first use.
import { CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import { runCompiled, runPrepared } from '../src/compiledLookups';
import { createContext, type AsrankContext } from '../src/context';
import { LOAD_TIMEOUT_MS, withLoadedStore, STORE_KINDS, type LoadedStore } from './support/store';

jest.setTimeout(LOAD_TIMEOUT_MS);

describe.each(STORE_KINDS)('compiled lookups on %s', (kind) => {
  let store: LoadedStore;
  withLoadedStore(kind, (opened) => (store = opened));

  /** The latest month's first `count` ASNs by number, with their names, read with a plain query. */
  async function firstAsnsOfLatestMonth(count: number) {
    const rows = await store.handle.db
      .selectFrom('asns')
      .select(['asn', 'asn_name'])
      .where('date', '=', store.dates.at(-1)!)
      .orderBy('asn')
      .limit(count)
      .execute();
    expect(rows).toHaveLength(count);
    return rows;
  }

  /**
   * Looks the latest month's first three ASNs up one by one through one compiled `shape` run on `handle`, checks
   * each answer against a plain query, and returns what the statement observer saw.
   */
  async function lookUpFirstAsns(
    handle: Parameters<typeof runCompiled>[0],
    shape: string,
  ): Promise<string[]> {
    const { db } = store.handle;
    const latest = store.dates.at(-1)!;
    const expected = await firstAsnsOfLatestMonth(3);
    const observed: string[] = [];
    const build = (date: unknown, asn: unknown) =>
      db
        .selectFrom('asns')
        .select(['asn', 'asn_name'])
        .where('date', '=', date as string)
        .where('asn', '=', asn as number);
    for (const row of expected) {
      const rows = await runCompiled(
        handle,
        shape,
        'asns',
        build,
        ['\u0000d', '\u0000k'],
        [latest, Number(row.asn)],
        (k, table) => observed.push(`${k}:${table}`),
      );
      expect(rows.map((found) => [Number(found.asn), found.asn_name])).toEqual([
        [Number(row.asn), row.asn_name],
      ]);
    }
    return observed;
  }

  it('binds each call’s values into the SQL compiled on first use, and reports each execution', async () => {
    const observed = await lookUpFirstAsns(store.handle, `test-${kind}-${Date.now()}`);
    expect(observed).toEqual(['select:asns', 'select:asns', 'select:asns']);
  });

  if (kind === 'sqlite') {
    it('runs through the handle’s readRows when it has one (the service’s statement cache), not through Kysely', async () => {
      const sqlite = store.handle.sqlite!;
      const texts: string[] = [];
      const observed = await lookUpFirstAsns(
        {
          // A Kysely that fails every query it executes: the lookups must not reach it.
          db: store.handle.db.withPlugin({
            transformQuery: (args) => args.node,
            transformResult: () => Promise.reject(new Error('the lookup went through Kysely')),
          }),
          readRows: (text, parameters) => {
            texts.push(text);
            return sqlite.prepare(text).all(...parameters) as unknown[];
          },
        },
        `read-rows-${Date.now()}`,
      );
      expect(observed).toEqual(['select:asns', 'select:asns', 'select:asns']);
      expect(texts).toHaveLength(3);
      expect(new Set(texts).size).toBe(1);
    });
  }

  it('runs a loader batch of several keys from SQL compiled once, whatever the number of keys', async () => {
    const { db } = store.handle;
    const latest = store.dates.at(-1)!;
    const stored = await firstAsnsOfLatestMonth(7);
    const counts = { built: 0, executed: 0 };
    // Through Kysely (no pg pool or pipelined connection, no statement cache), so a plugin sees each build
    // (transformQuery, at compile) and each execution (transformResult).
    const handle = {
      ...store.handle,
      postgres: undefined,
      postgresPipelined: undefined,
      readRows: undefined,
      db: db.withPlugin({
        transformQuery: (args) => {
          counts.built += 1;
          return args.node;
        },
        transformResult: async (args) => {
          counts.executed += 1;
          return args.result;
        },
      }),
    };
    for (const batch of [stored.slice(0, 3), stored.slice(2, 7)]) {
      const records = await createContext(handle).loaders.asn.loadMany([
        ...batch.map((row) => ({ date: latest, id: Number(row.asn) })),
        { date: latest, id: 4294967294 },
      ]);
      expect(
        records.map((record) => (record instanceof Error || record === null ? record : record.asn_name)),
      ).toEqual([...batch.map((row) => row.asn_name), null]);
    }
    // Two batches of four and six keys: two executions of one statement, built once (Kysely's build is what the
    // compiled statement spares; a build per batch would count two).
    expect(counts).toEqual({ built: 1, executed: 2 });
  });

  it("keeps a request's loaders from their first use on, and each request its own", () => {
    // Made on first use (a point lookup on SQLite uses none): each access must find the one made, or a request's
    // keys would be read in several batches and its cache lost between fields.
    const context = createContext(store.handle);
    const asnLoader = context.loaders.asn;
    expect(context.loaders.asn).toBe(asnLoader);
    expect(context.asnLoader(null)).toBe(asnLoader);
    expect(context.loaders.organization).toBe(context.loaders.organization);
    expect(context.organizationLoader(null)).toBe(context.loaders.organization);
    expect(context.loaders.linkLocations).toBe(context.loaders.linkLocations);
    expect(context.pageLoaders).toBe(context.pageLoaders);
    const other = createContext(store.handle);
    expect(other.loaders.asn).not.toBe(asnLoader);
    expect(other.loaders.organization).not.toBe(context.loaders.organization);
  });

  it("shares what one operation of a batch makes or reads with the request's other operations", async () => {
    // Mercurius gives each operation of a batch a context made with Object.create(the request's): what one operation
    // makes on first use (loaders, page loaders) or reads (the data version) must be the other operations' too, so
    // the REST service's batched requests meet in one loader batch.
    const request = createContext(store.handle);
    const [first, second] = [Object.create(request), Object.create(request)] as AsrankContext[];
    expect(first!.loaders.asn).toBe(second!.loaders.asn);
    expect(first!.loaders.organization).toBe(second!.loaders.organization);
    expect(first!.pageLoaders).toBe(second!.pageLoaders);
    const columns = ['asn', 'asn_name'] as const;
    expect(first!.asnLoader([...columns])).toBe(second!.asnLoader([...columns]));
    expect(first!.organizationLoader(['org_id'])).toBe(second!.organizationLoader(['org_id']));
    expect(second!.latestDateNow()).toBeUndefined();
    await first!.availableDates();
    expect(second!.latestDateNow()).toBe(store.dates.at(-1));
  });

  it('refuses a shape whose compiled parameters are not only its placeholders', async () => {
    const { db } = store.handle;
    const build = (date: unknown, asn: unknown) =>
      db
        .selectFrom('asns')
        .select('asn')
        .where('date', '=', date as string)
        .where('asn', '=', asn as number)
        .where(sql<boolean>`${'extra'} = ${'extra'}`);
    await expect(
      runCompiled(
        store.handle,
        `extra-${kind}-${Date.now()}`,
        'asns',
        build,
        ['\u0000d', '\u0000k'],
        ['2024-01-01', 1],
      ),
    ).rejects.toMatchObject({ message: expect.stringMatching(/binds .* not only its placeholders/) });
  });

  it('binds a placeholder wherever the statement uses it, in the statement’s order', async () => {
    const { db } = store.handle;
    const [first, second] = (await db
      .selectFrom('asns')
      .select(['date', 'asn'])
      .orderBy('date')
      .orderBy('asn')
      .limit(2)
      .execute()) as { date: string; asn: number | string }[];
    // The ASN is bound before the month, the month twice, and the third placeholder never.
    const build = (date: unknown, asn: unknown, unused: unknown) => {
      void unused;
      return db
        .selectFrom('asns')
        .select(['date', 'asn'])
        .where('asn', '=', asn as number)
        .where('date', '=', date as string)
        .where(sql<boolean>`${sql.ref('date')} <= ${date}`);
    };
    const shape = `reordered-${kind}-${Date.now()}`;
    const placeholders = ['\u0000date', '\u0000asn', '\u0000unused'];
    for (const record of [first!, second!]) {
      const rows = await runCompiled<{ date: string; asn: number | string }>(
        store.handle,
        shape,
        'asns',
        build,
        placeholders,
        [record.date, record.asn, 'never bound'],
      );
      expect(rows.map((row) => [row.date, Number(row.asn)])).toEqual([[record.date, Number(record.asn)]]);
    }
  });

  if (kind === 'postgres') {
    it('runs as one named prepared statement per shape on PostgreSQL, which the server parses once', async () => {
      // One connection, so the statements it prepared are the ones pg_prepared_statements lists.
      const pool = new pg.Pool({ connectionString: store.url, max: 1 });
      try {
        const observed = await lookUpFirstAsns(
          { db: store.handle.db, postgres: pool },
          `prepared-${Date.now()}`,
        );
        expect(observed).toEqual(['select:asns', 'select:asns', 'select:asns']);
        const prepared = await pool.query<{ name: string; statement: string }>(
          'select name, statement from pg_prepared_statements',
        );
        const lookups = prepared.rows.filter((statement) => /^asrank_prepared_\d+$/.test(statement.name));
        expect(lookups).toHaveLength(1);
        expect(lookups[0]!.statement).toMatch(
          /select "asn", "asn_name" from "asns" where "date" = \$1 and "asn" = \$2/,
        );
      } finally {
        await pool.end();
      }
    });

    it('names occasional statements from a budget of their own, so that they never take the lookups’ names', async () => {
      const pool = new pg.Pool({ connectionString: store.url, max: 1 });
      try {
        const handle = { db: store.handle.db, postgres: pool };
        // More occasional texts than their budget (128): each answers, the later ones unnamed.
        for (let text = 0; text < 140; text += 1) {
          const rows = await runPrepared<{ n: number }>(
            handle,
            CompiledQuery.raw(`select ${text} + $1::int as n`, [1]),
            'none',
            undefined,
            undefined,
            'occasional',
          );
          expect(rows).toEqual([{ n: text + 1 }]);
        }
        // A lookup's shape still gets a name of its own.
        await lookUpFirstAsns(handle, `after-occasional-${Date.now()}`);
        const prepared = await pool.query<{ statement: string }>(
          "select statement from pg_prepared_statements where name like 'asrank_prepared_%'",
        );
        const statements = prepared.rows.map((row) => row.statement);
        expect(statements.filter((text) => /^select \d+ \+ \$1::int as n$/.test(text))).toHaveLength(128);
        expect(statements.filter((text) => text.includes('"asn_name" from "asns"'))).toHaveLength(1);
      } finally {
        await pool.end();
      }
    });
  }
});
