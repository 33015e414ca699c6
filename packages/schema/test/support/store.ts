// Test stores: a fresh SQLite file, and a fresh PostgreSQL database when DATABASE_URL_PG is set, each loaded with
// the committed sample through the real ingest (or, until the sample is committed, a small generated dataset).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { graphql, type ExecutionResult } from 'graphql';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '@asrank/db';
import { LINK_RELATIONSHIPS } from '@asrank/domain';
import { generateDataset, ingestMonth, loadSampleData, readManifest, SAMPLE_DATA_DIR } from '@asrank/cli';
import { createContext, createSchema, type StoreFacts } from '../../src';

export interface LoadedStore {
  name: 'sqlite' | 'postgres';
  handle: DatabaseHandle;
  dates: string[];
  /** PostgreSQL: the URL of the store's own database, for a test that opens handles of its own to it. */
  url?: string;
  close(): Promise<void>;
}

export const PG_URL = process.env.DATABASE_URL_PG;
if (!PG_URL) console.warn('DATABASE_URL_PG is not set: PostgreSQL variants of the schema tests are skipped.');

/** The store kinds to run every data test on. */
export const STORE_KINDS: ('sqlite' | 'postgres')[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];

/** The directory of the months the stores are loaded from (for tests that read the input files). */
export const loadedSampleDir = (): Promise<string> => sampleDir();

let generatedDir: Promise<string> | undefined;

/** The sample's directory, or a generated stand-in (seeded, so identical every run) while none is committed. */
function sampleDir(): Promise<string> {
  if (fs.existsSync(path.join(SAMPLE_DATA_DIR, 'manifest.json'))) return Promise.resolve(SAMPLE_DATA_DIR);
  generatedDir ??= (async () => {
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'asrank-schema-sample-'));
    process.once('exit', () => fs.rmSync(outDir, { recursive: true, force: true }));
    await generateDataset({ outDir, seed: 20240101, asns: 400, months: 3 });
    return outDir;
  })();
  return generatedDir;
}

export async function openLoadedStore(kind: 'sqlite' | 'postgres'): Promise<LoadedStore> {
  const dir = await sampleDir();
  if (kind === 'sqlite') {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'asrank-schema-'));
    const handle = openDatabase(path.join(tmp, 'asrank.db'));
    const dates = await loadSampleData(handle, dir);
    return {
      name: kind,
      handle,
      dates,
      close: async () => {
        await handle.close();
        fs.rmSync(tmp, { recursive: true, force: true });
      },
    };
  }
  const database = `schema_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${database}`);
  await admin.end();
  const url = new URL(PG_URL!);
  url.pathname = `/${database}`;
  const handle = openDatabase(url.toString());
  const dates = await loadSampleData(handle, dir);
  return {
    name: kind,
    handle,
    dates,
    url: url.toString(),
    close: async () => {
      await handle.close();
      const dropper = new pg.Client({ connectionString: PG_URL });
      await dropper.connect();
      // pg's pool.end() resolves before its backends have exited; dropping WITH (FORCE) at once would terminate them
      // and the already-ended clients would raise an unhandled 'error'. Wait for them to go first.
      for (let attempt = 0; attempt < 100; attempt += 1) {
        const sessions = await dropper.query(
          'select count(*)::int as n from pg_stat_activity where datname = $1',
          [database],
        );
        if (sessions.rows[0]?.n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await dropper.query(`drop database if exists ${database} with (force)`);
      await dropper.end();
    },
  };
}

/** The first `count` ASNs of month `date` by number (with `order` 'desc', the last), as decimal strings. */
export async function asnsOfMonth(
  handle: DatabaseHandle,
  date: string,
  count: number,
  order: 'asc' | 'desc' = 'asc',
): Promise<string[]> {
  const rows = await handle.db
    .selectFrom('asns')
    .select('asn')
    .where('date', '=', date)
    .orderBy('asn', order)
    .limit(count)
    .execute();
  return rows.map((row) => String(row.asn));
}

/** The `count` ASNs of month `date` with the most links, most first (ties by ASN), with their number of links. */
export function busiestAsns(
  handle: DatabaseHandle,
  date: string,
  count: number,
): Promise<{ asn: number | string; degree_total: number | string }[]> {
  return handle.db
    .selectFrom('asns')
    .select(['asn', 'degree_total'])
    .where('date', '=', date)
    .orderBy('degree_total', 'desc')
    .orderBy('asn')
    .limit(count)
    .execute();
}

/** The `count` least ASNs of month `date` with a single link. */
export async function singleLinkAsns(handle: DatabaseHandle, date: string, count: number): Promise<number[]> {
  const rows = await handle.db
    .selectFrom('asns')
    .select('asn')
    .where('date', '=', date)
    .where('number_asn_links', '=', 1)
    .orderBy('asn')
    .limit(count)
    .execute();
  return rows.map((row) => Number(row.asn));
}

/**
 * Runs a query the way the GraphQL service does: the shared schema and a fresh per-request context (over `facts`, the
 * process-wide caches, when given).
 */
export async function runQuery<T = Record<string, unknown>>(
  handle: DatabaseHandle,
  source: string,
  variableValues?: Record<string, unknown>,
  facts?: StoreFacts,
): Promise<ExecutionResult<T>> {
  return (await graphql({
    schema: createSchema(),
    source,
    contextValue: createContext(handle, facts ? { facts } : undefined),
    variableValues,
  })) as ExecutionResult<T>;
}

/** Runs a query that must succeed and returns its data. */
export async function queryData<T = Record<string, unknown>>(
  handle: DatabaseHandle,
  source: string,
  variableValues?: Record<string, unknown>,
  facts?: StoreFacts,
): Promise<T> {
  const result = await runQuery<T>(handle, source, variableValues, facts);
  if (result.errors?.length)
    throw new Error(`query failed: ${result.errors.map((error) => error.message).join('; ')}`);
  return result.data as T;
}

/** Message of the single error a query must fail with. */
export async function queryError(
  handle: DatabaseHandle,
  source: string,
  variableValues?: Record<string, unknown>,
): Promise<string> {
  const result = await runQuery(handle, source, variableValues);
  if (!result.errors?.length) throw new Error(`expected an error from: ${source}`);
  return result.errors.map((error) => error.message).join('; ');
}

/** Loading the sample through the real ingest takes seconds (more on a busy CI machine with PostgreSQL). */
export const LOAD_TIMEOUT_MS = 180_000;

/**
 * A describe block's sample store of `kind`: opened (and handed to `opened`) before its tests, closed after them; after
 * each test the `tunings` (modules' tuning objects, which tests switch to compare paths) are put back as they were.
 */
export function withLoadedStore(
  kind: 'sqlite' | 'postgres',
  opened: (store: LoadedStore) => unknown,
  ...tunings: object[]
): void {
  let store: LoadedStore | undefined;
  const defaults = tunings.map((tuning) => ({ ...tuning }));
  beforeAll(async () => {
    store = await openLoadedStore(kind);
    await opened(store);
  }, LOAD_TIMEOUT_MS);
  afterAll(() => store?.close());
  if (tunings.length > 0)
    afterEach(() => tunings.forEach((tuning, index) => Object.assign(tuning, defaults[index])));
}

/**
 * Reloads the sample's month `date` into `handle` with every third line (comments kept) of the chosen inputs left
 * out: links (degrees fall) and prefix lines (cones hold fewer prefixes). Tests use it to see that nothing read from
 * the month before is served after.
 */
export async function reloadThinned(
  handle: DatabaseHandle,
  date: string,
  inputs: readonly ('asRel' | 'pfx2as')[],
): Promise<void> {
  const month = readManifest(await sampleDir()).find((entry) => entry.date === date);
  if (!month) throw new Error(`the sample has no month ${date}`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'asrank-reload-'));
  try {
    const thinned = (file: string) => {
      const target = path.join(tmp, path.basename(file));
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      fs.writeFileSync(
        target,
        lines.filter((line, index) => line.startsWith('#') || index % 3 !== 1).join('\n'),
      );
      return target;
    };
    const options = { ...month.options };
    if (inputs.includes('asRel')) options.asRel = thinned(month.options.asRel!);
    if (inputs.includes('pfx2as')) {
      const files = month.options.pfx2as ?? [];
      options.pfx2as = (Array.isArray(files) ? files : [files]).map(thinned);
    }
    await ingestMonth(handle, options);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Writes each month's kept totals of its links' parts (datasets.listed_links_*: by relationship, with a path count,
 * with a correction) from the rows, as a load writes them with the month: for tests that change links' values in place,
 * which no load does.
 */
export async function keepListedLinkParts(handle: DatabaseHandle): Promise<void> {
  const parts = await handle.db
    .selectFrom('asn_links')
    .select((eb) => [
      'date',
      ...LINK_RELATIONSHIPS.map((relationship) =>
        eb.fn
          .sum<number>(eb.case().when('relationship', '=', relationship).then(1).else(0).end())
          .as(relationship),
      ),
      eb.fn.count<number>('number_paths').as('with_paths'),
      eb.fn.count<number>('corrected_by').as('corrected'),
    ])
    .where('canonical', '=', 1)
    .groupBy('date')
    .execute();
  for (const row of parts)
    await handle.db
      .updateTable('datasets')
      .set({
        listed_links_customer: Number(row.customer),
        listed_links_peer: Number(row.peer),
        listed_links_provider: Number(row.provider),
        listed_links_sibling: Number(row.sibling),
        listed_links_with_paths: Number(row.with_paths),
        listed_links_corrected: Number(row.corrected),
      })
      .where('date', '=', row.date)
      .execute();
}
