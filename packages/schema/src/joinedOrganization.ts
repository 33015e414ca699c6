// An ASN's organization read in the ASN's own statement (a left join on (date, org_id), only the columns its selection
// reads) when the selection shows it. Through the organization loader, `asn(asn) { organization { orgId orgName rank } }` paid a second statement,
// a loader batch and its promises: ~55 µs of a ~265 µs point lookup in-process, and a page of 100 ASNs with
// `organization { orgId orgName }` ~700 µs of ~1.85 ms (docs/performance.md). When the selection reads only what the
// ASN's row carries a copy of (its organization's name and rank, migration 012), there is no join at all: the
// organization's B-tree descent was a third of the point lookup's SQLite time (forty-third round).
import { sql, type SelectQueryBuilder } from 'kysely';
import { ASN_ORGANIZATION_COPY, type Database } from '@asrank/db';
import type { AsnRow, OrganizationRow } from './context';
import type { AsnColumn, OrganizationColumn } from './asnColumns';

/** The organization read with an ASN row and the columns read (record null: the ASN has none in that month). */
export const JOINED_ORGANIZATION = Symbol('organization read with the ASN');

export interface JoinedOrganization {
  columns: readonly OrganizationColumn[];
  record: OrganizationRow | null;
}

export type AsnRowWithOrganization = AsnRow & { [JOINED_ORGANIZATION]?: JoinedOrganization };

/** Prefix of the organization's columns in a joined row (no asns column starts with it). */
const PREFIX = 'org__';

/** The alias of the organization's key, whose absence means the ASN has no organization that month. */
const ORG_ID_ALIAS = `${PREFIX}org_id`;

type AliasedColumns = readonly (readonly [OrganizationColumn, string])[];

/** Kept by the columns array: the selection helpers (asnColumns.ts) return one array per field position. */
const aliasedByColumns = new WeakMap<readonly OrganizationColumn[], AliasedColumns>();

/** The organization's columns read by the join: its date is the ASN's own, so it is not read twice. */
function aliased(columns: readonly OrganizationColumn[]): AliasedColumns {
  let pairs = aliasedByColumns.get(columns);
  if (!pairs) {
    pairs = columns
      .filter((column) => column !== 'date')
      .map((column) => [column, `${PREFIX}${column}`] as const);
    aliasedByColumns.set(columns, pairs);
  }
  return pairs;
}

/** The asns column holding each organization column an ASN row answers itself: its key, and the copies. */
const CARRIED_BY_ASN_ROW: ReadonlyMap<OrganizationColumn, AsnColumn> = new Map<OrganizationColumn, AsnColumn>(
  [
    ['date', 'date'],
    ['org_id', 'org_id'],
    ...Object.entries(ASN_ORGANIZATION_COPY).map(
      ([copy, column]) => [column, copy] as [OrganizationColumn, AsnColumn],
    ),
  ],
);

/** Alias of the copied name in a row read without the join: null exactly when the ASN has no organization row. */
const NAME_COPY_ALIAS = `${PREFIX}org_name`;

/** Whether `columns` of the organization must be joined, not read from the ASN row's copies. */
export function joinsOrganization(columns: readonly OrganizationColumn[]): boolean {
  return !columns.every((column) => CARRIED_BY_ASN_ROW.has(column));
}

/**
 * `columns` of the organization, aliased apart from the ASN's own: from the organization joined as `o`, or from the
 * copies in the ASN's row (`asnTable`) when those answer them (joinsOrganization false).
 */
export function organizationColumnsAlongside(columns: readonly OrganizationColumn[], asnTable: string) {
  if (joinsOrganization(columns))
    return aliased(columns).map(([column, alias]) => sql.ref(`o.${column}`).as(alias));
  const copies = aliased(columns).map(([column, alias]) =>
    sql.ref(`${asnTable}.${CARRIED_BY_ASN_ROW.get(column)!}`).as(alias),
  );
  // The name's copy tells whether there is an organization at all, so it is read even when not shown.
  if (!columns.includes('org_name')) copies.push(sql.ref(`${asnTable}.org_name`).as(NAME_COPY_ALIAS));
  return copies;
}

/** Files each joined row's organization under JOINED_ORGANIZATION (the aliased columns stay, never read). */
export function withJoinedOrganizations(
  rows: readonly Record<string, unknown>[],
  columns: readonly OrganizationColumn[],
): AsnRow[] {
  const pairs = aliased(columns);
  // Joined, the organization's key is null when no row matched; copied, the name is (the load copies it from there).
  const presence = joinsOrganization(columns) ? ORG_ID_ALIAS : NAME_COPY_ALIAS;
  for (const row of rows) {
    let record: Record<string, unknown> | null = null;
    if (row[presence] != null) {
      record = { date: row.date };
      for (const [column, alias] of pairs) record[column] = row[alias];
    }
    (row as unknown as AsnRowWithOrganization)[JOINED_ORGANIZATION] = {
      columns,
      record: record as OrganizationRow | null,
    };
  }
  return rows as unknown as AsnRow[];
}

/**
 * `rows`, a query over `asns` whose own references name the table (`asns.date`), reading `columns` of each ASN and
 * `organization` of its organization in the same statement (unrun: listPage runs or compiles it, and
 * withJoinedOrganizations files its result).
 */
export function asnRowsWithOrganizationsQuery(
  rows: SelectQueryBuilder<Database, 'asns', object>,
  columns: readonly AsnColumn[],
  organization: readonly OrganizationColumn[],
) {
  const joined = joinsOrganization(organization)
    ? rows.leftJoin('organizations as o', (join) =>
        join.onRef('o.date', '=', 'asns.date').onRef('o.org_id', '=', 'asns.org_id'),
      )
    : rows;
  return joined
    .select(columns.map((column) => `asns.${column}` as const))
    .select(organizationColumnsAlongside(organization, 'asns'));
}
