// Shared test helpers: temporary directories, PostgreSQL databases of their own, CAIDA data location, table dumps.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import {
  NAME_SEARCH_KEYS,
  nameSearchIndex,
  openDatabase,
  parseNameSearchIndex,
  type DatabaseHandle,
} from '@asrank/db';
import { generateDataset, type GeneratedFiles, type GeneratedMonth } from '../src/generate';
import type { IngestOptions } from '../src';

export const PG_URL = process.env.DATABASE_URL_PG;
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const CAIDA_DIR =
  process.env.ASRANK_SHARED_DATA ?? path.resolve(REPO_ROOT, '..', 'shared', 'data', 'caida');
export const HAVE_CAIDA = fs.existsSync(path.join(CAIDA_DIR, 'as-rel'));

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `asrank-${prefix}-`));
}

/** Creates a uniquely named database on the shared server (other packages' tests run there concurrently). */
export async function createPgDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `asrank_cli_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_URL!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

let generatedDir: string | null = null;
let generated: Promise<GeneratedFiles> | null = null;
/** One small generated dataset per test file (3 months, a few hundred ASNs); removeSmallDataset deletes it. */
export function smallDataset(): Promise<GeneratedFiles> {
  generatedDir ??= tempDir('gen');
  generated ??= generateDataset({ outDir: generatedDir, seed: 7, asns: 300, months: 3 });
  return generated;
}

/** For a test file's afterAll: deletes the files smallDataset generated, if it was called. */
export async function removeSmallDataset(): Promise<void> {
  // The generator may still be writing when a failed test file ends early.
  await generated?.catch(() => undefined);
  if (generatedDir) fs.rmSync(generatedDir, { recursive: true, force: true });
  generatedDir = null;
  generated = null;
}

export { ALL_TABLES } from '@asrank/db';

/** Every row of a table in a canonical order, values normalised (numbers as numbers) so two stores compare equal. */
export async function dumpTable(handle: DatabaseHandle, table: string): Promise<Record<string, unknown>[]> {
  const columns = (await handle.db.introspection.getTables())
    .find((t) => t.name === table)!
    .columns.map((c) => c.name)
    .sort();
  const order = sql.join(columns.map((c) => sql.ref(c)));
  const result = await sql<
    Record<string, unknown>
  >`select * from ${sql.table(table)} order by ${order}`.execute(handle.db);
  return result.rows.map((row) =>
    Object.fromEntries(columns.map((c) => [c, typeof row[c] === 'bigint' ? Number(row[c]) : row[c]])),
  );
}

export async function withSqlite<T>(file: string, work: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const handle = openDatabase(file);
  try {
    return await work(handle);
  } finally {
    await handle.close();
  }
}

/**
 * A PostgreSQL store's per-month trigram indexes as `table|date` lines (read from each index's name), each checked
 * to cover the rows of its own date and no other.
 */
export async function postgresNameSearchIndexes(handle: DatabaseHandle): Promise<string[]> {
  const { rows } = await sql<{ indexname: string; indexdef: string }>`
    select indexname, indexdef from pg_indexes where indexname like '%name_search%'`.execute(handle.db);
  return rows
    .map((row) => {
      const index = parseNameSearchIndex(row.indexname);
      expect(index).not.toBeNull();
      expect(row.indexdef).toMatch(new RegExp(`WHERE \\(date = '${index!.date}'::text\\)$`));
      return `${index!.table}|${index!.date}`;
    })
    .sort();
}

/**
 * A SQLite store's name search indexes as `table|date|key|search_text` lines (table and date read from each index's
 * name), beside the same lines made from the tables' rows: the two lists are equal when every month has its indexes,
 * holding each of its records exactly once, and no index outlives its month.
 */
export function nameSearchContents(handle: DatabaseHandle): { indexed: string[]; stored: string[] } {
  const sqlite = handle.sqlite!;
  const indexed: string[] = [];
  const stored: string[] = [];
  const names = sqlite
    .prepare(`select name from sqlite_master where type = 'table'`)
    .pluck()
    .all() as string[];
  for (const name of names) {
    const index = parseNameSearchIndex(name);
    if (!index) continue;
    expect(nameSearchIndex(index.table, index.date)).toBe(name);
    for (const row of sqlite.prepare(`select key, search_text from ${name}`).all() as {
      key: unknown;
      search_text: string;
    }[])
      indexed.push(`${index.table}|${index.date}|${String(row.key)}|${row.search_text}`);
  }
  for (const [table, key] of Object.entries(NAME_SEARCH_KEYS))
    for (const row of sqlite.prepare(`select date, ${key} as key, search_text from ${table}`).all() as {
      date: string;
      key: unknown;
      search_text: string;
    }[])
      stored.push(`${table}|${row.date}|${String(row.key)}|${row.search_text}`);
  return { indexed: indexed.sort(), stored: stored.sort() };
}

/** Every input file of a generated month, as ingestMonth takes them (under `date`, the month's own by default). */
export function ingestOptionsFor(month: GeneratedMonth, date = month.date): IngestOptions {
  return {
    date,
    asRel: month.asRel,
    asOrg: month.asOrg,
    pfx2as: month.pfx2as,
    ppdcAses: month.ppdcAses,
    linkGeo: { asRelGeo: month.asRelGeo, locations: month.locations },
  };
}
