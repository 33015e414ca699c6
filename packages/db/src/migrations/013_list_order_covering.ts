import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// A page of a month's ASNs in the default order (rank) or by customer cone (`-cone.numberAsns`, how AS Rank ranks)
// read its 100 keys from the order's index and then each row by the table's clustered key: on the generated 12
// months' latest month, 17 µs for the keys and 90 µs for the whole page (better-sqlite3, a loop over bookmarked
// offsets). These two indexes now also carry the columns such a ranking table shows (name, organization, country,
// and the other order's value), so a page that shows only those reads the index alone: 30 µs (docs/performance.md,
// forty-fourth round). Same names and keys as before (004, 003): every plan that used them still does.
// PostgreSQL carries them as INCLUDE (not part of the key, only read by index-only scans).
export const LIST_ORDER_INDEXES = [
  { name: 'asns_date_rank_asn', keys: ['date', 'rank', 'asn'], carried: 'cone_asns' },
  { name: 'asns_date_cone_asns_desc', keys: ['date', 'cone_asns desc', 'asn'], carried: 'rank' },
] as const;

/**
 * The columns both indexes carry besides their keys (with the other order's value). Written out, not derived from
 * the table's interface: a migration must build the same indexes whatever columns later migrations add.
 */
export const LIST_ORDER_CARRIED_COLUMNS = [
  'asn_name',
  'org_id',
  'org_name',
  'org_rank',
  'country_iso',
] as const;

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  for (const index of LIST_ORDER_INDEXES) {
    const carried = [index.carried, ...LIST_ORDER_CARRIED_COLUMNS];
    // Dropped first, then made under the same name: `if (not) exists`, so a store upgraded by an interrupted run
    // (SQLite DDL outside a transaction) can be migrated again.
    await db.schema.dropIndex(index.name).ifExists().execute();
    if (dialect === 'postgres') {
      const keys = index.keys.map((key) => {
        const [column, direction] = key.split(' ');
        return direction ? sql`${sql.id(column!)} desc` : sql.id(column!);
      });
      await sql`create index if not exists ${sql.id(index.name)} on asns (${sql.join(keys)})
        include (${sql.join(carried.map((column) => sql.id(column)))})`.execute(db);
    } else {
      await db.schema
        .createIndex(index.name)
        .ifNotExists()
        .on('asns')
        .columns([...index.keys, ...carried])
        .execute();
    }
  }
}
