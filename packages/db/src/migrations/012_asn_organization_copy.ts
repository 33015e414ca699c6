import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';

// The most frequent query shows an ASN with `organization { orgId orgName rank }`, and a list page its organizations'
// names: each read the organization through a second descent of the clustered key, of `organizations`. The ASN's row
// now carries its organization's name and rank for the month (the loads fill them: asrank ingest/write.ts), so such
// a lookup reads one row: the point lookup's statement took 8.3-9.6 µs against 5.8-6.6 in a loop on the generated
// 12 months (docs/performance.md, forty-third round). Written out here, not taken from the table interfaces: a
// migration must do the same whatever later ones change.
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  // PostgreSQL's org_id and org_name are byte-ordered (009); the copy of the name is, as the original.
  const nameType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  await db.schema.alterTable('asns').addColumn('org_name', nameType).execute();
  await db.schema.alterTable('asns').addColumn('org_rank', 'bigint').execute();
  // The months already loaded: every ASN whose organization has a row gets that row's name and rank.
  await sql`update asns set org_name = o.org_name, org_rank = o.rank
    from organizations as o where o.date = asns.date and o.org_id = asns.org_id`.execute(db);
}
