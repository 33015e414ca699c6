// An ASN's organization read in the ASN's own statement (a left join on (date, org_id)) when the selection shows
// it. Through the organization loader, `asn(asn) { organization { orgId orgName rank } }` paid a second statement,
// a loader batch and its promises: ~55 µs of a ~265 µs point lookup in-process (docs/performance.md).
import { sql } from 'kysely';
import { ORGANIZATION_COLUMNS } from '@asrank/db';
import type { AsnRow, OrganizationRow } from './context';

/** The organization read with an ASN row (null: the ASN has none in that month). */
export const JOINED_ORGANIZATION = Symbol('organization read with the ASN');

export type AsnRowWithOrganization = AsnRow & { [JOINED_ORGANIZATION]?: OrganizationRow | null };

/** Prefix of the organization's columns in a joined row (no asns column starts with it). */
const PREFIX = 'org__';
const ALIASED_COLUMNS = ORGANIZATION_COLUMNS.map((column) => [column, `${PREFIX}${column}`] as const);

/** Every column of the organization joined as `o`, aliased so they cannot collide with the ASN's own. */
export function organizationColumnsAlongside() {
  return ALIASED_COLUMNS.map(([column, alias]) => sql.ref(`o.${column}`).as(alias));
}

/** Files each joined row's organization under JOINED_ORGANIZATION (the aliased columns stay, never read). */
export function withJoinedOrganizations(rows: readonly Record<string, unknown>[]): AsnRow[] {
  for (const row of rows) {
    let organization: Record<string, unknown> | null = null;
    if (row[`${PREFIX}org_id`] != null) {
      organization = {};
      for (const [column, alias] of ALIASED_COLUMNS) organization[column] = row[alias];
    }
    (row as unknown as AsnRowWithOrganization)[JOINED_ORGANIZATION] = organization as OrganizationRow | null;
  }
  return rows as unknown as AsnRow[];
}
