// Listing and dropping loaded months.
import { sql } from 'kysely';
import { parseDateArgument } from '@asrank/domain';
import {
  clearMonthNameSearchStatements,
  clearPostgresMonthNameSearchIndexes,
  lockMonthWrites,
  MONTH_TABLES,
  toCount,
  migrateToLatest,
  pendingMigrations,
  refreshStatistics,
  type DatabaseHandle,
} from '@asrank/db';

export interface DatasetListing {
  date: string;
  numberAsns: number;
  numberAsnsSeen: number;
  numberOrganizations: number;
  numberLinks: number;
  numberPrefixes: number;
}

export async function listDatasets(handle: DatabaseHandle): Promise<DatasetListing[]> {
  await migrateToLatest(handle.db, handle.dialect);
  const rows = await handle.db
    .selectFrom('datasets')
    .select(['date', 'number_asns', 'number_asns_seen', 'number_organizations', 'number_links'])
    .orderBy('date')
    .execute();
  // The dataset's number_prefixes is CAIDA's IPv4 figure; the listing counts every stored prefix.
  const prefixCounts = await handle.db
    .selectFrom('prefixes')
    .select(['date', (eb) => eb.fn.countAll<number | string>().as('count')])
    .groupBy('date')
    .execute();
  const prefixesByDate = new Map(prefixCounts.map((r) => [r.date, toCount(r.count)]));
  return rows.map((row) => ({
    date: row.date,
    numberAsns: toCount(row.number_asns),
    numberAsnsSeen: toCount(row.number_asns_seen),
    numberOrganizations: toCount(row.number_organizations),
    numberLinks: toCount(row.number_links),
    numberPrefixes: prefixesByDate.get(row.date) ?? 0,
  }));
}

/**
 * Removes one month in one transaction, bumps data_version and refreshes the planner statistics (the tables lost a
 * month's rows); returns false when the month was not loaded.
 */
export async function dropMonth(handle: DatabaseHandle, dateArgument: string): Promise<boolean> {
  const date = parseDateArgument(dateArgument, 'date');
  await migrateToLatest(handle.db, handle.dialect);
  const dropped = await handle.db.transaction().execute(async (trx) => {
    if (handle.dialect === 'postgres') await lockMonthWrites(trx);
    const existing = await trx
      .selectFrom('datasets')
      .select('date')
      .where('date', '=', date)
      .executeTakeFirst();
    if (!existing) return false;
    for (const table of MONTH_TABLES)
      await sql`delete from ${sql.table(table)} where date = ${date}`.execute(trx);
    if (handle.dialect === 'sqlite')
      for (const statement of clearMonthNameSearchStatements(date)) await trx.executeQuery(statement);
    else await clearPostgresMonthNameSearchIndexes(trx, date);
    const current = await trx
      .selectFrom('meta')
      .select('value')
      .where('key', '=', 'data_version')
      .executeTakeFirst();
    const next = String((Number(current?.value ?? '0') || 0) + 1);
    await trx
      .insertInto('meta')
      .values({ key: 'data_version', value: next })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: next }))
      .execute();
    return true;
  });
  if (dropped) await refreshStatistics(handle);
  return dropped;
}

/**
 * Upgrades a store loaded by an older version in place: applies the pending migrations (new indexes are built from
 * the stored rows) and gathers fresh planner statistics, which stores loaded before the statistics step lack.
 * Returns the migrations applied.
 */
export async function upgradeStore(handle: DatabaseHandle): Promise<string[]> {
  const pending = await pendingMigrations(handle.db, handle.dialect);
  await migrateToLatest(handle.db, handle.dialect);
  await refreshStatistics(handle);
  return pending;
}
