// Builds (once) and caches the benchmark databases under tools/bench/.cache/, keyed by seed and size, so a
// re-run of the suite starts measuring at once:
//   - generated: `months` months of a synthetic Internet (files from generateDataset), loaded with ingestMonth
//     into one SQLite file and, when a PostgreSQL server is given, into one PostgreSQL database named after the key;
//   - real: the CAIDA December 2017 month read in place from ../shared/data/caida (never copied), when present.
// A store counts as built only once a marker file says every month was loaded, so an interrupted build is
// redone from scratch instead of being measured half-loaded. A store built by an older version is brought up to
// date in place (pending migrations, then fresh planner statistics) instead of being reloaded; the marker records
// the migration it reached, so the upgrade runs once and an interrupted one is simply run again.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateDataset, ingestMonth, upgradeStore, type IngestOptions } from '@asrank/cli';
import { LATEST_MIGRATION, openDatabase } from '@asrank/db';
import pg from 'pg';

export const BENCH_ROOT = path.resolve(__dirname, '..');
export const REPO_ROOT = path.resolve(BENCH_ROOT, '..', '..');
export const CACHE_DIR = path.join(BENCH_ROOT, '.cache');

export interface GeneratedSpec {
  seed: number;
  asns: number;
  links: number;
  prefixes: number;
  months: number;
}

export interface PreparedStores {
  label: string;
  key: string;
  /** Months loaded, oldest first. */
  dates: string[];
  sqliteFile: string;
  /** PostgreSQL URL of the loaded database, or null when no server was given. */
  postgresUrl: string | null;
}

export function sharedCaidaDir(): string {
  return process.env.ASRANK_SHARED_DATA ?? path.resolve(REPO_ROOT, '..', 'shared', 'data', 'caida');
}

export function generatedKey(spec: GeneratedSpec): string {
  return `gen-s${spec.seed}-a${spec.asns}-l${spec.links}-p${spec.prefixes}-m${spec.months}`;
}

function log(message: string): void {
  console.log(`[prepare] ${message}`);
}

function seconds(since: bigint): string {
  return `${(Number(process.hrtime.bigint() - since) / 1e9).toFixed(1)} s`;
}

export interface Marker {
  dates: string[];
  /** Latest migration applied, with statistics gathered after it; absent in markers of older builds. */
  migration?: string;
  /** PostgreSQL: the server the database lives on, by the URL it was reached at. */
  server?: string;
  /** PostgreSQL: that server's `system_identifier` (pg_control_system); absent in markers of older builds. */
  serverId?: string;
}

/**
 * Whether a marker's PostgreSQL database is the one on the server now given. By the server's own identifier when both
 * are known: the same server reached another way (its Unix socket instead of TCP, another host name) must not drop
 * and reload a store that takes a quarter of an hour to load. By the URL for markers written before the identifier.
 */
export function markerOnServer(marker: Marker, serverUrl: string, serverId: string | null): boolean {
  if (marker.serverId !== undefined && serverId !== null) return marker.serverId === serverId;
  return marker.server === serverUrl;
}

/** The connected PostgreSQL server's `system_identifier`, or null where it cannot be read. */
async function pgServerId(client: pg.Client): Promise<string | null> {
  try {
    const result = await client.query<{ id: string }>(
      'select system_identifier::text as id from pg_control_system()',
    );
    return result.rows[0]?.id ?? null;
  } catch {
    return null;
  }
}

/** Writes the marker whole or not at all (a crash mid-write must not leave a marker that parses as complete). */
function writeMarker(file: string, marker: Marker): void {
  writeFileSync(`${file}.tmp`, JSON.stringify(marker));
  renameSync(`${file}.tmp`, file);
}

/**
 * Brings a cached store to the latest migration and refreshes its statistics (`asrank migrate`), unless its marker
 * says that was done. Both steps are idempotent (migrations are recorded by Kysely, 003 creates its indexes
 * `if not exists`).
 */
async function upgradeCachedStore(
  target: string,
  markerFile: string,
  marker: Marker,
  what: string,
): Promise<void> {
  if (marker.migration === LATEST_MIGRATION) {
    log(`${what}: cached, up to date (${target.includes('://') ? 'database' : target})`);
    return;
  }
  const started = process.hrtime.bigint();
  const handle = openDatabase(target);
  try {
    const pending = await upgradeStore(handle);
    log(
      `${what}: cached store upgraded (${pending.length > 0 ? `migrations ${pending.join(', ')}` : 'no migration pending'}; statistics refreshed) in ${seconds(started)}`,
    );
  } finally {
    await handle.close();
  }
  writeMarker(markerFile, { ...marker, migration: LATEST_MIGRATION });
}

function readMarker(file: string): Marker | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Marker;
  } catch {
    return null;
  }
}

async function loadMonths(target: string, months: readonly IngestOptions[], what: string): Promise<void> {
  const handle = openDatabase(target);
  try {
    for (const month of months) {
      const started = process.hrtime.bigint();
      await ingestMonth(handle, month);
      log(`${what}: loaded ${month.date} in ${seconds(started)}`);
    }
  } finally {
    await handle.close();
  }
}

function pgDatabaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function pgAdmin<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** PostgreSQL database names: lower case, digits and `_` only, at most 63 bytes. */
function pgName(key: string): string {
  return `asrankbench_${key.replace(/[^a-z0-9]+/gi, '_').toLowerCase()}`.slice(0, 63);
}

/** Which stores to build: both, or one (so two processes can load SQLite and PostgreSQL side by side). */
export type StoreChoice = 'both' | 'sqlite' | 'postgres';

async function prepareStores(
  key: string,
  label: string,
  months: readonly IngestOptions[],
  pgServer: string | null,
  stores: StoreChoice,
): Promise<PreparedStores> {
  const dir = path.join(CACHE_DIR, key);
  mkdirSync(dir, { recursive: true });
  const dates = months.map((month) => month.date);

  const sqliteFile = path.join(dir, 'asrank.db');
  const sqliteMarker = path.join(dir, 'sqlite.done.json');
  const sqliteBuilt = readMarker(sqliteMarker);
  if (stores === 'postgres') {
    log(`${label} -> SQLite: not built by this process`);
  } else if (sqliteBuilt?.dates.join() !== dates.join()) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(sqliteFile + suffix, { force: true });
    const started = process.hrtime.bigint();
    // ingestMonth migrates and gathers statistics itself.
    await loadMonths(sqliteFile, months, `${label} -> SQLite`);
    writeMarker(sqliteMarker, { dates, migration: LATEST_MIGRATION });
    log(`${label} -> SQLite: ${dates.length} month(s) in ${seconds(started)}`);
  } else {
    await upgradeCachedStore(sqliteFile, sqliteMarker, sqliteBuilt, `${label} -> SQLite`);
  }

  let postgresUrl: string | null = null;
  if (pgServer && stores !== 'sqlite') {
    const name = pgName(key);
    postgresUrl = pgDatabaseUrl(pgServer, name);
    const pgMarker = path.join(dir, 'postgres.done.json');
    const marker = readMarker(pgMarker);
    const { exists, serverId } = await pgAdmin(pgServer, async (client) => {
      const result = await client.query('select 1 from pg_database where datname = $1', [name]);
      return { exists: (result.rowCount ?? 0) > 0, serverId: await pgServerId(client) };
    });
    if (!exists || marker?.dates.join() !== dates.join() || !markerOnServer(marker, pgServer, serverId)) {
      await pgAdmin(pgServer, async (client) => {
        await client.query(`drop database if exists ${name} with (force)`);
        await client.query(`create database ${name}`);
      });
      const started = process.hrtime.bigint();
      await loadMonths(postgresUrl, months, `${label} -> PostgreSQL`);
      // Fresh statistics, so the planner sees the loaded sizes (autovacuum may not have run yet).
      await pgAdmin(postgresUrl, (client) => client.query('vacuum analyze'));
      writeMarker(pgMarker, {
        dates,
        server: pgServer,
        ...(serverId === null ? {} : { serverId }),
        migration: LATEST_MIGRATION,
      });
      log(`${label} -> PostgreSQL: ${dates.length} month(s) in ${seconds(started)}`);
    } else {
      await upgradeCachedStore(postgresUrl, pgMarker, marker, `${label} -> PostgreSQL (database ${name})`);
    }
  }
  return { label, key, dates, sqliteFile, postgresUrl };
}

/** Generates (cached) the synthetic months and loads them into the stores. */
export async function prepareGenerated(
  spec: GeneratedSpec,
  pgServer: string | null,
  stores: StoreChoice = 'both',
): Promise<PreparedStores> {
  const key = generatedKey(spec);
  const label = `generated ${spec.asns} ASNs / ${spec.links} links / ${spec.prefixes} prefixes x ${spec.months} months`;
  const filesDir = path.join(CACHE_DIR, key, 'files');
  const filesMarker = path.join(CACHE_DIR, key, 'files.done.json');
  let months: IngestOptions[];
  const cached = existsSync(filesMarker)
    ? (JSON.parse(readFileSync(filesMarker, 'utf8')) as { months: IngestOptions[] })
    : null;
  if (cached) {
    months = cached.months;
    log(`${label}: input files cached`);
  } else {
    rmSync(filesDir, { recursive: true, force: true });
    const started = process.hrtime.bigint();
    const files = await generateDataset({ outDir: filesDir, ...spec });
    months = files.months.map((month) => ({
      date: month.date,
      asRel: month.asRel,
      ppdcAses: month.ppdcAses,
      asOrg: month.asOrg,
      pfx2as: month.pfx2as,
      linkGeo: { asRelGeo: month.asRelGeo, locations: month.locations },
    }));
    mkdirSync(path.dirname(filesMarker), { recursive: true });
    writeFileSync(filesMarker, JSON.stringify({ months }));
    log(`${label}: generated input files in ${seconds(started)}`);
  }
  return prepareStores(key, label, months, pgServer, stores);
}

/** The real CAIDA December 2017 month, or null (with a message) when the shared data is absent. */
export async function prepareReal(
  pgServer: string | null,
  stores: StoreChoice = 'both',
): Promise<PreparedStores | null> {
  const caida = sharedCaidaDir();
  const files = {
    asRel: path.join(caida, 'as-rel', '20171201.as-rel.txt.bz2'),
    asrankCounts: path.join(caida, 'asrank', '20171201'),
    asOrg: path.join(caida, 'as-org2info', '20170401.as-org2info.txt.gz'),
    pfx2as: path.join(caida, 'pfx2as', 'routeviews-rv2-20170329-0200.pfx2as.gz'),
  };
  const missing = Object.values(files).filter((file) => !existsSync(file));
  if (missing.length > 0) {
    log(
      `skipping the real December 2017 month: ${missing.join(', ')} not found (set ASRANK_SHARED_DATA to the caida folder)`,
    );
    return null;
  }
  return prepareStores(
    'caida-20171201',
    'CAIDA 2017-12-01 (real)',
    [{ date: '2017-12-01', ...files }],
    pgServer,
    stores,
  );
}
