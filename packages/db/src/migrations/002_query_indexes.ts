import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';
import { trigramOperatorClass } from '../name-search';

// Indexes for every query the API serves (reasoning per index in docs/data-model.md). Sort indexes end with the
// table's key so "order by <key>, <pk> limit/offset" within one month is a single index walk with a stable order.
const ASN_SORT_COLUMNS = [
  'asn_name',
  'source',
  'cone_asns',
  'cone_prefixes',
  'cone_addresses',
  'degree_peer',
  'degree_customer',
  'degree_transit',
  'degree_sibling',
  'degree_total',
] as const;

const ORG_SORT_COLUMNS = [
  'org_name',
  'cone_asns',
  'cone_prefixes',
  'cone_addresses',
  'degree_provider',
  'degree_peer',
  'degree_customer',
  'degree_transit',
  'degree_sibling',
  'degree_total',
] as const;

const LINK_SORT_COLUMNS = ['number_paths', 'relationship', 'corrected_by'] as const;

const LOCATION_SORT_COLUMNS = ['city', 'region', 'country_iso', 'continent', 'population'] as const;

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  for (const column of ASN_SORT_COLUMNS) {
    await db.schema.createIndex(`asns_date_${column}`).on('asns').columns(['date', column, 'asn']).execute();
  }
  for (const column of ORG_SORT_COLUMNS) {
    await db.schema
      .createIndex(`organizations_date_${column}`)
      .on('organizations')
      .columns(['date', column, 'org_id'])
      .execute();
  }
  for (const column of LINK_SORT_COLUMNS) {
    await db.schema
      .createIndex(`asn_links_date_canonical_${column}`)
      .on('asn_links')
      .columns(['date', 'canonical', column, 'asn0', 'asn1'])
      .execute();
  }
  for (const column of LOCATION_SORT_COLUMNS) {
    await db.schema
      .createIndex(`locations_date_${column}`)
      .on('locations')
      .columns(['date', column, 'loc_id'])
      .execute();
  }
  // Links of one ASN sorted by paths (asnLinks(asn) default order and Asn.asnLinks).
  await db.schema
    .createIndex('asn_links_date_asn0_paths')
    .on('asn_links')
    .columns(['date', 'asn0', 'number_paths'])
    .execute();
  // Locations of one link, and links observed at one location.
  await db.schema
    .createIndex('link_locations_loc')
    .on('link_locations')
    .columns(['date', 'loc_id'])
    .execute();
  // Organizations listed by country.
  await db.schema
    .createIndex('organizations_date_country')
    .on('organizations')
    .columns(['date', 'country_iso'])
    .execute();
  await db.schema.createIndex('asns_date_country').on('asns').columns(['date', 'country_iso']).execute();

  if (dialect === 'postgres') {
    // Substring search (`name` filter, `/asns/name/:name`): a trigram GIN index serves `like '%x%'` on PostgreSQL.
    // SQLite has FTS5 trigram indexes for the same filter since 006 (name-search.ts).
    // The extension is database-wide: it is created once in `public` (never in a per-test schema that may be
    // dropped), concurrent migrations are serialised by an advisory lock, the operator class is named with its
    // schema, and any failure (no pg_trgm, no rights) only skips these two optional indexes (savepoint).
    const available = await sql<{
      name: string;
    }>`select name from pg_available_extensions where name = 'pg_trgm'`.execute(db);
    if (available.rows.length > 0) {
      await sql`savepoint asrank_trgm`.execute(db);
      try {
        await sql`select pg_advisory_xact_lock(hashtext('asrank pg_trgm'))`.execute(db);
        const hasPublic = await sql<{
          n: string;
        }>`select nspname as n from pg_namespace where nspname = 'public'`.execute(db);
        if (hasPublic.rows.length > 0)
          await sql`create extension if not exists pg_trgm schema public`.execute(db);
        else await sql`create extension if not exists pg_trgm`.execute(db);
        const opclass = await trigramOperatorClass(db);
        if (opclass === null) throw new Error('pg_trgm is not installed');
        await sql`create index asns_search_trgm on asns using gin (search_text ${opclass})`.execute(db);
        await sql`create index organizations_search_trgm on organizations using gin (search_text ${opclass})`.execute(
          db,
        );
        await sql`release savepoint asrank_trgm`.execute(db);
      } catch {
        await sql`rollback to savepoint asrank_trgm`.execute(db);
      }
    }
  }
}
