// Writes one month atomically: in ONE transaction the month's old rows are deleted, the new ones inserted, the
// country table refreshed and meta.data_version bumped. Readers (WAL on SQLite, MVCC on PostgreSQL) see either the
// old month or the new one, never half; a crash or SIGKILL mid-load rolls back and leaves the previous data intact.
import { CompiledQuery, sql, type Kysely } from 'kysely';
import {
  ASN_ORGANIZATION_COPY,
  ASN_RELATIONSHIP_LINK_COUNTS,
  beginImmediateWhenFree,
  DATASET_LISTED_TOTALS,
  fillMonthNameSearchStatements,
  fillPostgresMonthNameSearchIndexes,
  lockMonthWrites,
  MONTH_TABLES,
  ASN_LINK_COLUMNS,
  ORGANIZATION_COLUMNS,
  ORGANIZATION_LINK_COUNTS,
  runOnSqlite,
  type AsnRecord,
  type Database,
  type DatasetListedTotals,
  type DatabaseHandle,
  type MonthTable,
  type OrganizationRecord,
} from '@asrank/db';
import { countOrgLinks, type OrgLinkCounts } from '@asrank/domain';
import type { CountryRow, MonthData, RowCounts } from './month';
import type { Progress } from '../progress';

type Cell = string | number | null;

interface TableSource {
  table: MonthTable | 'countries';
  columns: readonly string[];
  count: number;
  rows: () => Iterable<Cell[]>;
}

function objectRows<T extends object>(
  rows: readonly T[],
  columns: readonly (keyof T & string)[],
): () => Iterable<Cell[]> {
  return function* () {
    for (const row of rows) yield columns.map((column) => row[column] as Cell);
  };
}

function tableSource<T extends object>(
  table: MonthTable | 'countries',
  rows: readonly T[],
  columns: readonly (keyof T & string)[],
): TableSource {
  return { table, columns, count: rows.length, rows: objectRows(rows, columns) };
}

function coneSource(month: MonthData): TableSource {
  let count = 0;
  for (const members of month.coneMembers.values()) count += members.length;
  const owners = [...month.coneMembers.keys()].sort((a, b) => a - b);
  return {
    table: 'cone_members',
    columns: ['date', 'asn', 'member_asn'],
    count,
    rows: function* () {
      for (const asn of owners) {
        for (const member of month.coneMembers.get(asn)!) yield [month.date, asn, member];
      }
    },
  };
}

/**
 * The month's ASN rows with their organizations' name and rank copied in (AsnsTable's org_name and org_rank): null
 * where the ASN has no organization row that month, as the join the copies stand for would read; with their links
 * counted (number_asn_links), as the API's `asnLinks(asn)` counts them, by relationship (number_customer_links and
 * its kin) and the canonical ones (number_canonical_links); and with their cones' members counted
 * (number_cone_members), as coneSource writes them.
 */
function asnSource(month: MonthData, columns: readonly (keyof AsnRecord & string)[]): TableSource {
  const organizations = new Map(
    month.organizations.map((organization) => [organization.org_id, organization]),
  );
  const copies = Object.entries(ASN_ORGANIZATION_COPY) as [string, keyof OrganizationRecord][];
  const relationships = Object.keys(
    ASN_RELATIONSHIP_LINK_COUNTS,
  ) as (keyof typeof ASN_RELATIONSHIP_LINK_COUNTS)[];
  // Each ASN's links by relationship, in the order of `relationships`, and its canonical ones (asn0 < asn1).
  const linksOf = new Map<number, number[]>();
  const canonicalOf = new Map<number, number>();
  for (const { asn0, relationship, canonical } of month.asnLinks) {
    let counts = linksOf.get(asn0);
    if (!counts) linksOf.set(asn0, (counts = relationships.map(() => 0)));
    const at = relationships.indexOf(relationship as (typeof relationships)[number]);
    if (at >= 0) counts[at]! += 1;
    if (canonical === 1) canonicalOf.set(asn0, (canonicalOf.get(asn0) ?? 0) + 1);
  }
  const noLinks = relationships.map(() => 0);
  return {
    table: 'asns',
    columns: [
      ...columns,
      ...copies.map(([column]) => column),
      'number_asn_links',
      'number_cone_members',
      ...relationships.map((relationship) => ASN_RELATIONSHIP_LINK_COUNTS[relationship]),
      'number_canonical_links',
    ],
    count: month.asns.length,
    rows: function* () {
      for (const row of month.asns) {
        const organization = row.org_id === null ? undefined : organizations.get(row.org_id);
        const cells = columns.map((column) => row[column] as Cell);
        for (const [, copied] of copies) cells.push(organization ? (organization[copied] as Cell) : null);
        const links = linksOf.get(row.asn) ?? noLinks;
        cells.push(links.reduce((sum, count) => sum + count, 0));
        cells.push(month.coneMembers.get(row.asn)?.length ?? 0);
        cells.push(...links);
        cells.push(canonicalOf.get(row.asn) ?? 0);
        yield cells;
      }
    },
  };
}

/**
 * The month's organization rows with their link counts (OrganizationsTable's number_asn_links and number_neighbors)
 * counted from the month's links, as the API's `asnLinks` and `neighbors` of an organization would count them.
 */
function organizationSource(month: MonthData): TableSource {
  const orgOfAsn = new Map(month.asns.map((row) => [row.asn, row.org_id]));
  const linkCounts = countOrgLinks(month.asnLinks, (asn) => orgOfAsn.get(asn));
  const countOf: Partial<Record<string, keyof OrgLinkCounts>> = ORGANIZATION_LINK_COUNTS;
  return {
    table: 'organizations',
    columns: ORGANIZATION_COLUMNS,
    count: month.organizations.length,
    rows: function* () {
      for (const row of month.organizations) {
        const counts = linkCounts.get(row.org_id);
        yield ORGANIZATION_COLUMNS.map((column) => {
          const counted = countOf[column];
          return counted ? (counts?.[counted] ?? 0) : (row[column as keyof typeof row] as Cell);
        });
      }
    },
  };
}

/** The number of rows of the month's lists, as the API's lists count them (DatasetListedTotals). */
function listedTotalsOf(month: MonthData): DatasetListedTotals {
  let seenAsns = 0;
  for (const row of month.asns) if (row.seen === 1) seenAsns += 1;
  let seenOrganizations = 0;
  for (const row of month.organizations) if (row.seen === 1) seenOrganizations += 1;
  // Each pair once, on its canonical row, and the parts of them a walk over months skips whole.
  let links = 0;
  const byRelationship = { customer: 0, peer: 0, provider: 0, sibling: 0 };
  let withPaths = 0;
  let corrected = 0;
  for (const row of month.asnLinks) {
    if (row.canonical !== 1) continue;
    links += 1;
    byRelationship[row.relationship] += 1;
    if (row.number_paths !== null) withPaths += 1;
    if (row.corrected_by !== null) corrected += 1;
  }
  return {
    listed_asns: month.asns.length,
    listed_asns_seen: seenAsns,
    listed_organizations: month.organizations.length,
    listed_organizations_seen: seenOrganizations,
    listed_links: links,
    listed_links_customer: byRelationship.customer,
    listed_links_peer: byRelationship.peer,
    listed_links_provider: byRelationship.provider,
    listed_links_sibling: byRelationship.sibling,
    listed_links_with_paths: withPaths,
    listed_links_corrected: corrected,
  };
}

function originSource(month: MonthData): TableSource {
  let count = 0;
  for (const ids of month.prefixOrigins.values()) count += ids.length;
  const origins = [...month.prefixOrigins.keys()].sort((a, b) => a - b);
  return {
    table: 'prefix_origins',
    columns: ['date', 'asn', 'prefix_id'],
    count,
    rows: function* () {
      for (const asn of origins) for (const id of month.prefixOrigins.get(asn)!) yield [month.date, asn, id];
    },
  };
}

function sources(month: MonthData, countries: readonly CountryRow[]): TableSource[] {
  return [
    tableSource('countries', countries, [
      'iso',
      'name',
      'capital',
      'continent',
      'languages',
      'population',
      'area',
    ]),
    tableSource(
      'datasets',
      [{ ...month.dataset, ...listedTotalsOf(month) }],
      [
        'date',
        'dataset_id',
        'ip_version',
        'modified_at',
        'country_iso',
        'clique',
        'asn_ixs',
        'asn_reserved_ranges',
        'asn_assigned_ranges',
        'sources',
        'number_addresses',
        'number_prefixes',
        'number_asns',
        'number_asns_seen',
        'number_organizations',
        'number_organizations_seen',
        'number_links',
        ...DATASET_LISTED_TOTALS,
      ],
    ),
    asnSource(month, [
      'date',
      'asn',
      'asn_name',
      'org_id',
      'country_iso',
      'source',
      'latitude',
      'longitude',
      'rank',
      'seen',
      'clique_member',
      'ixp',
      'cone_asns',
      'cone_prefixes',
      'cone_addresses',
      'announcing_prefixes',
      'announcing_addresses',
      'degree_provider',
      'degree_peer',
      'degree_customer',
      'degree_sibling',
      'degree_transit',
      'degree_total',
      'search_text',
    ]),
    organizationSource(month),
    tableSource('asn_links', month.asnLinks, ASN_LINK_COLUMNS),
    tableSource('locations', month.locations, [
      'date',
      'loc_id',
      'city',
      'region',
      'country_iso',
      'continent',
      'latitude',
      'longitude',
      'population',
    ]),
    tableSource('link_locations', month.linkLocations, ['date', 'asn0', 'asn1', 'loc_id']),
    coneSource(month),
    tableSource('prefixes', month.prefixes, [
      'date',
      'prefix_id',
      'network',
      'length',
      'ip_version',
      'origin_count',
    ]),
    originSource(month),
  ];
}

function nextDataVersion(current: string | undefined): string {
  const value = Number(current ?? '0');
  return String(Number.isFinite(value) ? value + 1 : 1);
}

/**
 * When this load brings at least as many rows as the table already holds (other months), inserting into a dozen
 * secondary B-trees row by row costs more than sorting once: the table's secondary indexes are dropped and recreated
 * from their stored definitions after the insert, inside the same transaction (readers still see the old snapshot).
 * Returns the function that recreates them (a no-op when they were kept).
 */
function deferredIndexes(
  sqlite: NonNullable<DatabaseHandle['sqlite']>,
  table: string,
  incomingRows: number,
): () => void {
  const existing = (sqlite.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
  if (incomingRows < 10000 || incomingRows < existing) return () => undefined;
  const indexes = sqlite
    .prepare(`select name, sql from sqlite_master where type = 'index' and tbl_name = ? and sql is not null`)
    .all(table) as { name: string; sql: string }[];
  for (const index of indexes) sqlite.exec(`drop index ${index.name}`);
  return () => {
    for (const index of indexes) sqlite.exec(index.sql);
  };
}

/** Rows per statement on SQLite: multi-row VALUES amortise the per-statement cost (limit 32766 parameters). */
const SQLITE_ROWS_PER_STATEMENT = 64;

/**
 * SQLite bulk path: better-sqlite3 directly (not Kysely), because a prepared multi-row INSERT run synchronously
 * inside one transaction loads millions of rows in seconds, while building a Kysely query per batch costs more than
 * the insert itself. Runs in the immediate transaction the caller began, and ends it.
 */
function writeSqlite(
  handle: DatabaseHandle,
  month: MonthData,
  countries: readonly CountryRow[],
  progress: Progress,
): RowCounts {
  const sqlite = handle.sqlite!;
  const counts = {} as RowCounts;
  // A month is millions of rows in one transaction: with SQLite's default 2 MB page cache the B-trees spill and are
  // re-read over and over. 64 MB keeps the hot pages in memory for the load (rows arrive in key order, and secondary indexes of month-sized loads are built afterwards by sorting); restored afterwards.
  const previousCacheSize = sqlite.pragma('cache_size', { simple: true }) as number;
  sqlite.pragma('cache_size = -65536');
  try {
    for (const table of MONTH_TABLES) sqlite.prepare(`delete from ${table} where date = ?`).run(month.date);
    sqlite.exec('delete from countries');
    for (const source of sources(month, countries)) {
      const rebuild = deferredIndexes(sqlite, source.table, source.count);
      const placeholders = `(${source.columns.map(() => '?').join(', ')})`;
      const head = `insert into ${source.table} (${source.columns.join(', ')}) values `;
      const many = sqlite.prepare(
        head + Array.from({ length: SQLITE_ROWS_PER_STATEMENT }, () => placeholders).join(', '),
      );
      const one = sqlite.prepare(head + placeholders);
      const bar = progress.start(`write ${source.table}`, source.count);
      let batch: Cell[] = [];
      let batchRows = 0;
      let written = 0;
      for (const row of source.rows()) {
        for (const cell of row) batch.push(cell);
        batchRows += 1;
        if (batchRows === SQLITE_ROWS_PER_STATEMENT) {
          many.run(batch);
          written += batchRows;
          batch = [];
          batchRows = 0;
          if (written % 65536 === 0) bar.update(written);
        }
      }
      for (let i = 0; i < batchRows; i += 1)
        one.run(batch.slice(i * source.columns.length, (i + 1) * source.columns.length));
      written += batchRows;
      rebuild();
      bar.finish(written);
      if (source.table !== 'countries') counts[source.table] = written;
    }
    const named = (counts.asns ?? 0) + (counts.organizations ?? 0);
    const indexBar = progress.start('index names', named);
    runOnSqlite(sqlite, fillMonthNameSearchStatements(month.date));
    indexBar.finish(named);
    const current = sqlite.prepare(`select value from meta where key = 'data_version'`).get() as
      { value: string } | undefined;
    sqlite
      .prepare(
        `insert into meta (key, value) values ('data_version', ?) on conflict (key) do update set value = excluded.value`,
      )
      .run(nextDataVersion(current?.value));
    sqlite.exec('commit');
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('rollback');
    throw error;
  } finally {
    sqlite.pragma(`cache_size = ${Number(previousCacheSize)}`);
  }
  return counts;
}

/** PostgreSQL allows 65535 bind parameters per statement. */
const PG_MAX_PARAMETERS = 60000;

async function writePostgres(
  handle: DatabaseHandle,
  month: MonthData,
  countries: readonly CountryRow[],
  progress: Progress,
): Promise<RowCounts> {
  const counts = {} as RowCounts;
  await handle.db.transaction().execute(async (trx) => {
    await lockMonthWrites(trx);
    for (const table of MONTH_TABLES)
      await sql`delete from ${sql.table(table)} where date = ${month.date}`.execute(trx);
    await sql`delete from countries`.execute(trx);
    for (const source of sources(month, countries)) {
      const rowsPerStatement = Math.max(1, Math.floor(PG_MAX_PARAMETERS / source.columns.length));
      const bar = progress.start(`write ${source.table}`, source.count);
      let batch: Cell[][] = [];
      let written = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        await insertRows(trx, source.table, source.columns, batch);
        written += batch.length;
        batch = [];
        bar.update(written);
      };
      for (const row of source.rows()) {
        batch.push(row);
        if (batch.length === rowsPerStatement) await flush();
      }
      await flush();
      bar.finish(written);
      if (source.table !== 'countries') counts[source.table] = written;
    }
    const named = (counts.asns ?? 0) + (counts.organizations ?? 0);
    const indexBar = progress.start('index names', named);
    await fillPostgresMonthNameSearchIndexes(trx, month.date);
    indexBar.finish(named);
    const current = await trx
      .selectFrom('meta')
      .select('value')
      .where('key', '=', 'data_version')
      .executeTakeFirst();
    await trx
      .insertInto('meta')
      .values({ key: 'data_version', value: nextDataVersion(current?.value) })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: (eb) => eb.ref('excluded.value') }))
      .execute();
  });
  // Statistics are gathered by the caller (storeMonth -> refreshStatistics) on both dialects: without them
  // PostgreSQL planned joins over a just-loaded month as if the tables were empty (minutes until autovacuum ran).
  return counts;
}

/**
 * One multi-row INSERT, compiled by hand ($1..$n placeholders) and run through Kysely's executeQuery: building a
 * Kysely AST of 60,000 value nodes per statement cost more than PostgreSQL's work.
 */
async function insertRows(
  db: Kysely<Database>,
  table: string,
  columns: readonly string[],
  rows: Cell[][],
): Promise<void> {
  const parameters: Cell[] = [];
  const tuples: string[] = [];
  for (const row of rows) {
    const placeholders: string[] = [];
    for (const cell of row) {
      parameters.push(cell);
      placeholders.push(`$${parameters.length}`);
    }
    tuples.push(`(${placeholders.join(',')})`);
  }
  const text = `insert into ${table} (${columns.map((c) => `"${c}"`).join(',')}) values ${tuples.join(',')}`;
  await db.executeQuery(CompiledQuery.raw(text, parameters));
}

/** Replaces `month.date` with `month` in one transaction; returns the rows written per table. */
export async function replaceMonth(
  handle: DatabaseHandle,
  month: MonthData,
  countries: readonly CountryRow[],
  progress: Progress,
): Promise<RowCounts> {
  if (handle.dialect !== 'sqlite') return writePostgres(handle, month, countries, progress);
  await beginImmediateWhenFree(handle.sqlite!, {
    onWait: () => progress.log('another process is writing to this database; waiting for it to finish'),
  });
  return writeSqlite(handle, month, countries, progress);
}
