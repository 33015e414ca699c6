// An ASN's organization read in the ASN's own statement (a left join on (date, org_id), only the columns its selection
// reads) when the selection shows it. Through the organization loader, `asn(asn) { organization { orgId orgName rank } }` paid a second statement,
// a loader batch and its promises: ~55 µs of a ~265 µs point lookup in-process, and a page of 100 ASNs with
// `organization { orgId orgName }` ~700 µs of ~1.85 ms (docs/performance.md). When the selection reads only what the
// ASN's row carries a copy of (its organization's name and rank, migration 012), there is no join at all: the ASN's
// columns include the copies (asnColumns.ts) and Asn.organization answers from them (organizationFromCopies). The
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

/** The asns column copying each organization column an ASN row carries a copy of (migration 012). */
const COPY_OF = new Map(
  Object.entries(ASN_ORGANIZATION_COPY).map(([copy, column]) => [
    column as OrganizationColumn,
    copy as AsnColumn,
  ]),
);

/** The organization's key, which the ASN's row holds as its own (`date`, `org_id`). */
const isKeyColumn = (column: OrganizationColumn) => column === 'date' || column === 'org_id';

/** Whether `columns` of the organization must be read from it, not from the ASN row's key and copies. */
function joinsOrganization(columns: readonly OrganizationColumn[]): boolean {
  return !columns.every((column) => isKeyColumn(column) || COPY_OF.has(column));
}

/**
 * The organization columns an ASN lookup joins, from those its selection shows (selectedOrganizationColumnsAt):
 * undefined when nothing is shown, whole rows are read, or the ASN row's copies answer them.
 */
export function joinedOrganizationColumns(
  columns: readonly OrganizationColumn[] | null | undefined,
): readonly OrganizationColumn[] | undefined {
  return columns && joinsOrganization(columns) ? columns : undefined;
}

/**
 * The organization's `columns` from the copies in the ASN's row (null: it has none that month), or undefined when
 * the row was read without the copies they need (asnColumns.ts reads them when the selection shows only the
 * organization's id, name and rank). The name's copy is null exactly when the month has no such organization row,
 * so it is read whatever the selection.
 */
export function organizationFromCopies(
  row: AsnRow,
  columns: readonly OrganizationColumn[],
): OrganizationRow | null | undefined {
  if (row.org_name === undefined) return undefined;
  const record: Record<string, unknown> = { date: row.date, org_id: row.org_id };
  for (const column of columns) {
    if (isKeyColumn(column)) continue;
    const copy = COPY_OF.get(column);
    if (copy === undefined || row[copy] === undefined) return undefined;
    record[column] = row[copy];
  }
  return row.org_name === null ? null : (record as unknown as OrganizationRow);
}

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
    if (row[ORG_ID_ALIAS] != null) {
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
  return rows
    .leftJoin('organizations as o', (join) =>
      join.onRef('o.date', '=', 'asns.date').onRef('o.org_id', '=', 'asns.org_id'),
    )
    .select(columns.map((column) => `asns.${column}` as const))
    .select(organizationColumnsAlongside(organization));
}
