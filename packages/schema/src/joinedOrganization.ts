// An ASN's organization read in the ASN's own statement (a left join on (date, org_id), only the columns its selection
// reads) when the selection shows it. Through the organization loader, `asn(asn) { organization { orgId orgName rank } }` paid a second statement,
// a loader batch and its promises: ~55 µs of a ~265 µs point lookup in-process (docs/performance.md).
import { sql } from 'kysely';
import type { AsnRow, OrganizationRow } from './context';
import type { OrganizationColumn } from './asnColumns';

/** The organization read with an ASN row and the columns read (record null: the ASN has none in that month). */
export const JOINED_ORGANIZATION = Symbol('organization read with the ASN');

export interface JoinedOrganization {
  columns: readonly OrganizationColumn[];
  record: OrganizationRow | null;
}

export type AsnRowWithOrganization = AsnRow & { [JOINED_ORGANIZATION]?: JoinedOrganization };

/** Prefix of the organization's columns in a joined row (no asns column starts with it). */
const PREFIX = 'org__';

const aliased = (columns: readonly OrganizationColumn[]) =>
  columns.map((column) => [column, `${PREFIX}${column}`] as const);

/** `columns` of the organization joined as `o`, aliased apart from the ASN's own. */
export function organizationColumnsAlongside(columns: readonly OrganizationColumn[]) {
  return aliased(columns).map(([column, alias]) => sql.ref(`o.${column}`).as(alias));
}

/** Files each joined row's organization under JOINED_ORGANIZATION (the aliased columns stay, never read). */
export function withJoinedOrganizations(
  rows: readonly Record<string, unknown>[],
  columns: readonly OrganizationColumn[],
): AsnRow[] {
  const pairs = aliased(columns);
  for (const row of rows) {
    let record: Record<string, unknown> | null = null;
    if (row[`${PREFIX}org_id`] != null) {
      record = {};
      for (const [column, alias] of pairs) record[column] = row[alias];
    }
    (row as unknown as AsnRowWithOrganization)[JOINED_ORGANIZATION] = {
      columns,
      record: record as OrganizationRow | null,
    };
  }
  return rows as unknown as AsnRow[];
}
