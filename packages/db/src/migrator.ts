// Numbered migrations (src/migrations/NNN_name.ts), applied in order with Kysely's Migrator.
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { DialectName } from './dialect';
import * as m001 from './migrations/001_initial';
import * as m002 from './migrations/002_query_indexes';
import * as m003 from './migrations/003_descending_sort_indexes';
import * as m004 from './migrations/004_rank_key_indexes';
import * as m005 from './migrations/005_neighbour_rank_index';
import * as m006 from './migrations/006_name_search';
import * as m007 from './migrations/007_seen_rank_indexes';
import * as m008 from './migrations/008_location_population_desc';
import * as m009 from './migrations/009_postgres_byte_order_text';
import * as m010 from './migrations/010_link_sort_indexes';
import * as m011 from './migrations/011_asn_history_index';
import * as m012 from './migrations/012_asn_organization_copy';
import * as m013 from './migrations/013_list_order_covering';
import * as m014 from './migrations/014_postgres_month_name_search';
import * as m015 from './migrations/015_asn_summary_index';
import * as m016 from './migrations/016_search_text_separator';
import * as m017 from './migrations/017_organization_link_counts';
import * as m018 from './migrations/018_source_desc_index';
import * as m019 from './migrations/019_dataset_listed_totals';
import * as m020 from './migrations/020_asn_link_counts';
import * as m021 from './migrations/021_cone_member_counts';
import * as m022 from './migrations/022_asn_relationship_link_counts';
import * as m023 from './migrations/023_dataset_link_part_totals';
import * as m024 from './migrations/024_asn_canonical_link_counts';

type DialectMigration = { up(db: Kysely<unknown>, dialect: DialectName): Promise<void> };

// Listed explicitly (not read from disk) so the compiled package and the jest run see the same set.
const MIGRATIONS: Record<string, DialectMigration> = {
  '001_initial': m001,
  '002_query_indexes': m002,
  '003_descending_sort_indexes': m003,
  '004_rank_key_indexes': m004,
  '005_neighbour_rank_index': m005,
  '006_name_search': m006,
  '007_seen_rank_indexes': m007,
  '008_location_population_desc': m008,
  '009_postgres_byte_order_text': m009,
  '010_link_sort_indexes': m010,
  '011_asn_history_index': m011,
  '012_asn_organization_copy': m012,
  '013_list_order_covering': m013,
  '014_postgres_month_name_search': m014,
  '015_asn_summary_index': m015,
  '016_search_text_separator': m016,
  '017_organization_link_counts': m017,
  '018_source_desc_index': m018,
  '019_dataset_listed_totals': m019,
  '020_asn_link_counts': m020,
  '021_cone_member_counts': m021,
  '022_asn_relationship_link_counts': m022,
  '023_dataset_link_part_totals': m023,
  '024_asn_canonical_link_counts': m024,
};

export const LATEST_MIGRATION = Object.keys(MIGRATIONS).sort().at(-1)!;

class StaticProvider implements MigrationProvider {
  constructor(private readonly dialect: DialectName) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return Object.fromEntries(
      Object.entries(MIGRATIONS).map(([name, migration]) => [
        name,
        { up: (db: Kysely<unknown>) => migration.up(db, this.dialect) },
      ]),
    );
  }
}

// Accepts any Kysely instance (callers hold a Kysely<Database>, which is not assignable to Kysely<unknown>).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyKysely = Kysely<any>;

export function migrator(db: AnyKysely, dialect: DialectName): Migrator {
  return new Migrator({ db, provider: new StaticProvider(dialect) });
}

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(db: AnyKysely, dialect: DialectName): Promise<void> {
  const { error, results } = await migrator(db, dialect).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    // No failed migration means the database could not be reached or read at all (refused, missing, no rights).
    throw new Error(
      failed ? `database migration ${failed} failed: ${reason}` : `database unavailable: ${reason}`,
    );
  }
}

/** Names of migrations not yet applied (the services refuse to start while any is pending). */
export async function pendingMigrations(db: AnyKysely, dialect: DialectName): Promise<string[]> {
  const all = await migrator(db, dialect).getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
