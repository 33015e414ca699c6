import { sql, type Kysely } from 'kysely';
import { clusteredByPrimaryKey, type DialectName } from '../dialect';

// Column types are chosen to mean the same on both dialects: `bigint` (ASNs up to 2^32-1, address counts)
// has integer affinity on SQLite; `double precision` is REAL on SQLite and float8 on PostgreSQL.
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('countries')
    .addColumn('iso', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('capital', 'text')
    .addColumn('continent', 'text')
    .addColumn('languages', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('population', 'bigint')
    .addColumn('area', 'double precision')
    .execute();

  await db.schema
    .createTable('datasets')
    .addColumn('date', 'text', (c) => c.primaryKey())
    .addColumn('dataset_id', 'text', (c) => c.notNull())
    .addColumn('ip_version', 'integer', (c) => c.notNull().defaultTo(4))
    .addColumn('modified_at', 'text', (c) => c.notNull())
    .addColumn('country_iso', 'text')
    .addColumn('clique', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('asn_ixs', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('asn_reserved_ranges', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('asn_assigned_ranges', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('sources', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('number_addresses', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('number_prefixes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('number_asns', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('number_asns_seen', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('number_organizations', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('number_organizations_seen', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('number_links', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await clusteredByPrimaryKey(
    dialect,
    db.schema
      .createTable('asns')
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('asn', 'bigint', (c) => c.notNull())
      .addColumn('asn_name', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('org_id', 'text')
      .addColumn('country_iso', 'text')
      .addColumn('source', 'text')
      .addColumn('latitude', 'double precision')
      .addColumn('longitude', 'double precision')
      .addColumn('rank', 'bigint')
      .addColumn('seen', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('clique_member', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('ixp', 'integer')
      .addColumn('cone_asns', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('cone_prefixes', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('cone_addresses', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('announcing_prefixes', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('announcing_addresses', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('degree_provider', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('degree_peer', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('degree_customer', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('degree_sibling', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('degree_transit', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('degree_total', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('search_text', 'text', (c) => c.notNull().defaultTo(''))
      .addPrimaryKeyConstraint('asns_pk', ['date', 'asn']),
  ).execute();
  await db.schema.createIndex('asns_asn_date').on('asns').columns(['asn', 'date']).execute();
  await db.schema.createIndex('asns_date_rank').on('asns').columns(['date', 'rank']).execute();
  await db.schema.createIndex('asns_date_org').on('asns').columns(['date', 'org_id']).execute();

  await clusteredByPrimaryKey(
    dialect,
    db.schema
      .createTable('organizations')
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('org_name', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('country_iso', 'text')
      .addColumn('rank', 'bigint')
      .addColumn('seen', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('number_asns', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('number_asns_seen', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('cone_asns', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('cone_prefixes', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('cone_addresses', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('degree_provider', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('degree_peer', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('degree_customer', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('degree_sibling', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('degree_transit', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('degree_total', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('org_degree_total', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('org_degree_transit', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('search_text', 'text', (c) => c.notNull().defaultTo(''))
      .addPrimaryKeyConstraint('organizations_pk', ['date', 'org_id']),
  ).execute();
  await db.schema
    .createIndex('organizations_org_date')
    .on('organizations')
    .columns(['org_id', 'date'])
    .execute();
  await db.schema
    .createIndex('organizations_date_rank')
    .on('organizations')
    .columns(['date', 'rank'])
    .execute();

  await clusteredByPrimaryKey(
    dialect,
    db.schema
      .createTable('asn_links')
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('asn0', 'bigint', (c) => c.notNull())
      .addColumn('asn1', 'bigint', (c) => c.notNull())
      .addColumn('relationship', 'text', (c) => c.notNull())
      .addColumn('canonical', 'integer', (c) => c.notNull())
      .addColumn('number_paths', 'bigint')
      .addColumn('rank', 'bigint')
      .addColumn('corrected_by', 'bigint')
      .addPrimaryKeyConstraint('asn_links_pk', ['date', 'asn0', 'asn1']),
  ).execute();
  await db.schema
    .createIndex('asn_links_pair_date')
    .on('asn_links')
    .columns(['asn0', 'asn1', 'date'])
    .execute();
  await db.schema
    .createIndex('asn_links_date_canonical_rank')
    .on('asn_links')
    .columns(['date', 'canonical', 'rank'])
    .execute();

  await clusteredByPrimaryKey(
    dialect,
    db.schema
      .createTable('locations')
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('loc_id', 'text', (c) => c.notNull())
      .addColumn('city', 'text')
      .addColumn('region', 'text')
      .addColumn('country_iso', 'text')
      .addColumn('continent', 'text')
      .addColumn('latitude', 'double precision')
      .addColumn('longitude', 'double precision')
      .addColumn('population', 'bigint')
      .addPrimaryKeyConstraint('locations_pk', ['date', 'loc_id']),
  ).execute();

  await clusteredByPrimaryKey(
    dialect,
    db.schema
      .createTable('link_locations')
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('asn0', 'bigint', (c) => c.notNull())
      .addColumn('asn1', 'bigint', (c) => c.notNull())
      .addColumn('loc_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('link_locations_pk', ['date', 'asn0', 'asn1', 'loc_id']),
  ).execute();

  await clusteredByPrimaryKey(
    dialect,
    db.schema
      .createTable('cone_members')
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('asn', 'bigint', (c) => c.notNull())
      .addColumn('member_asn', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('cone_members_pk', ['date', 'asn', 'member_asn']),
  ).execute();
  await db.schema
    .createIndex('cone_members_member')
    .on('cone_members')
    .columns(['date', 'member_asn'])
    .execute();

  await clusteredByPrimaryKey(
    dialect,
    db.schema
      .createTable('prefixes')
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('prefix_id', 'bigint', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('length', 'integer', (c) => c.notNull())
      .addColumn('ip_version', 'integer', (c) => c.notNull())
      .addColumn('origin_count', 'integer', (c) => c.notNull().defaultTo(1))
      .addPrimaryKeyConstraint('prefixes_pk', ['date', 'prefix_id']),
  ).execute();
  await db.schema
    .createIndex('prefixes_network')
    .on('prefixes')
    .columns(['date', 'network', 'length'])
    .execute();

  await clusteredByPrimaryKey(
    dialect,
    db.schema
      .createTable('prefix_origins')
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('asn', 'bigint', (c) => c.notNull())
      .addColumn('prefix_id', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('prefix_origins_pk', ['date', 'asn', 'prefix_id']),
  ).execute();
  await db.schema
    .createIndex('prefix_origins_prefix')
    .on('prefix_origins')
    .columns(['date', 'prefix_id'])
    .execute();

  await sql`insert into meta (key, value) values ('data_version', '0')`.execute(db);
}
