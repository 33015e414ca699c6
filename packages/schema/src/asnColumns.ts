// Which columns a selection of Asn fields reads (of `asns`; likewise Organization of `organizations` and AsnLink of
// `asn_links`), so resolvers that load many records (a page of neighbours, a list) read only those columns. Turning a SQLite value into a JS value is most of what reading a row
// costs (about 0.25 µs per value here): a 500-neighbour page that asks for name, rank and cone read 25 columns per
// neighbour for 4 used ones.
import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import type { AsnLinksTable, AsnsTable, OrganizationsTable } from '@asrank/db';

export type AsnColumn = keyof AsnsTable;

/** Every loaded row carries its key, whatever was selected (loaders and nested fields key on it). */
const KEY_COLUMNS: readonly AsnColumn[] = ['date', 'asn'];

/**
 * The columns of an object field whose type only repackages columns of the record (stats.ts), by its own field: only
 * the sub-fields selected are read (`cone { numberAsns }` reads one column, not three). The same for an ASN row and
 * an organization row, whose cone and degree columns have the same names.
 */
type SubFieldColumns<Column extends string> = Readonly<Record<string, readonly Column[]>>;

/**
 * The columns each field of a record type reads, or for an object field of columns alone, each of its sub-fields'
 * columns; a field (or sub-field) that is not listed needs whole rows, unless its object lists OTHER_SUB_FIELDS: the
 * columns any sub-field it does not list reads.
 */
type FieldColumns<Column extends string> = Readonly<
  Record<string, readonly Column[] | SubFieldColumns<Column>>
>;

/** In an object field's SubFieldColumns, the columns of every sub-field not listed. */
const OTHER_SUB_FIELDS = '*';

const CONE_COLUMNS = {
  __typename: [],
  numberAsns: ['cone_asns'],
  numberPrefixes: ['cone_prefixes'],
  numberAddresses: ['cone_addresses'],
} as const;
const DEGREE_COLUMNS = {
  __typename: [],
  provider: ['degree_provider'],
  peer: ['degree_peer'],
  customer: ['degree_customer'],
  sibling: ['degree_sibling'],
  transit: ['degree_transit'],
  total: ['degree_total'],
} as const;

/**
 * Columns each Asn field's resolver reads (types/asn.ts and stats.ts). A field that is not listed makes the
 * selection read whole rows, so a new field is safe before it is listed here; a listed field that reads more than
 * its columns would answer wrongly, which asnColumns.test.ts checks for every field of the type.
 */
export const ASN_FIELD_COLUMNS: FieldColumns<AsnColumn> = {
  __typename: [],
  asn: [],
  date: [],
  asnName: ['asn_name'],
  rank: ['rank'],
  source: ['source'],
  cliqueMember: ['clique_member'],
  seen: ['seen'],
  ixp: ['ixp'],
  longitude: ['longitude'],
  latitude: ['latitude'],
  country: ['country_iso'],
  // Its id, name and rank are the row's own copies (migration 012; Asn.organization answers from them), the name's
  // always, since it tells whether the organization exists; any other field of it reads the organization by its key.
  organization: {
    [OTHER_SUB_FIELDS]: ['org_id'],
    orgId: ['org_id', 'org_name'],
    orgName: ['org_id', 'org_name'],
    rank: ['org_id', 'org_name', 'org_rank'],
  },
  cone: CONE_COLUMNS,
  asnDegree: DEGREE_COLUMNS,
  announcing: {
    __typename: [],
    numberPrefixes: ['announcing_prefixes'],
    numberAddresses: ['announcing_addresses'],
  },
  asnLinks: [],
};

export type OrganizationColumn = keyof OrganizationsTable;

const ORGANIZATION_KEY_COLUMNS: readonly OrganizationColumn[] = ['date', 'org_id'];

/** Columns each Organization field's resolver reads (types/organization.ts and stats.ts), as ASN_FIELD_COLUMNS. */
export const ORGANIZATION_FIELD_COLUMNS: FieldColumns<OrganizationColumn> = {
  __typename: [],
  orgId: [],
  date: [],
  orgName: ['org_name'],
  rank: ['rank'],
  seen: ['seen'],
  country: ['country_iso'],
  // Members answers from the organization row itself: its counts, and the key for its ASN page.
  members: ['number_asns', 'number_asns_seen'],
  // Their totals alone are the counts the row keeps (migration 017); their nodes read no column of it.
  asnLinks: { [OTHER_SUB_FIELDS]: [], totalCount: ['number_asn_links'] },
  neighbors: { [OTHER_SUB_FIELDS]: [], totalCount: ['number_neighbors'] },
  cone: CONE_COLUMNS,
  asnDegree: DEGREE_COLUMNS,
  orgDegree: { __typename: [], total: ['org_degree_total'], transit: ['org_degree_transit'] },
};

export type AsnLinkColumn = keyof AsnLinksTable;

const ASN_LINK_KEY_COLUMNS: readonly AsnLinkColumn[] = ['date', 'asn0', 'asn1'];

/**
 * Columns each AsnLink field's resolver reads (types/asnLink.ts), as ASN_FIELD_COLUMNS: a neighbour page that shows
 * relationship and paths then reads the columns the neighbour index (migration 005) holds, and no row behind it.
 */
export const ASN_LINK_FIELD_COLUMNS: FieldColumns<AsnLinkColumn> = {
  __typename: [],
  asn0: [],
  asn1: [],
  date: [],
  relationship: ['relationship'],
  numberPaths: ['number_paths'],
  correctedBy: ['corrected_by'],
  rank: ['rank'],
  locations: [],
};

/** Lets tests compare pruned answers (and records read with their parents) with whole-row answers by loaders. */
export const asnColumnTuning = { prune: true };

function isColumnList<Column extends string>(
  read: readonly Column[] | SubFieldColumns<Column>,
): read is readonly Column[] {
  return Array.isArray(read);
}

function collect<Column extends string>(
  fieldColumns: FieldColumns<Column>,
  selectionSet: SelectionSetNode | undefined,
  info: GraphQLResolveInfo,
  columns: Set<Column>,
  visitedFragments: Set<string>,
): boolean {
  if (!selectionSet) return true;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const read = fieldColumns[selection.name.value] ?? fieldColumns[OTHER_SUB_FIELDS];
      if (!read) return false;
      if (isColumnList(read)) for (const column of read) columns.add(column);
      else if (!collect(read, selection.selectionSet, info, columns, visitedFragments)) return false;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      if (!collect(fieldColumns, selection.selectionSet, info, columns, visitedFragments)) return false;
    } else {
      const name = selection.name.value;
      if (visitedFragments.has(name)) continue;
      visitedFragments.add(name);
      const fragment = info.fragments[name];
      if (!fragment || !collect(fieldColumns, fragment.selectionSet, info, columns, visitedFragments))
        return false;
    }
  }
  return true;
}

/**
 * Answers per field position of a document: a page of 500 neighbours resolves `asn1` 500 times over the same
 * field nodes, and every request of a cached document asks its root field again. Keyed by the first field node (an
 * AST object, shared by every execution of a cached document) and checked against the whole list, which
 * @include/@skip may vary between executions; `variant` names what is asked of the position (its own selection, or
 * the selections of one record type at a path below it).
 */
const columnsByFieldNodes = new WeakMap<
  FieldNode,
  {
    nodes: readonly FieldNode[];
    variant: string;
    path: readonly string[];
    columns: string[] | null | undefined;
  }[]
>();

/** The path of an answer about a position's own selection. */
const OWN_SELECTION: readonly string[] = [];

function sameItems<Item>(kept: readonly Item[], asked: readonly Item[]): boolean {
  if (kept.length !== asked.length) return false;
  for (let index = 0; index < kept.length; index++) if (kept[index] !== asked[index]) return false;
  return true;
}

/**
 * The answer kept for `variant` at `path` below this field position, or `compute`'s, kept. Compared item by item, with
 * no key text or callbacks: every point lookup asks twice (its ASN's columns and its organization's).
 */
function remembered<Answer extends string[] | null | undefined>(
  info: GraphQLResolveInfo,
  variant: string,
  path: readonly string[],
  compute: () => Answer,
): Answer {
  const first = info.fieldNodes[0];
  if (!first) return compute();
  const known = columnsByFieldNodes.get(first) ?? [];
  for (const entry of known)
    if (entry.variant === variant && sameItems(entry.path, path) && sameItems(entry.nodes, info.fieldNodes))
      return entry.columns as Answer;
  const columns = compute();
  // A handful of variants per position at most; more means hostile variety, so stop remembering new ones.
  if (known.length < 8) {
    known.push({ nodes: [...info.fieldNodes], variant, path: [...path], columns });
    columnsByFieldNodes.set(first, known);
  }
  return columns;
}

/** The columns `selections` read (key columns included, in a stable order), or null when whole rows are needed. */
function columnsOf<Column extends string>(
  fieldColumns: FieldColumns<Column>,
  keyColumns: readonly Column[],
  selections: readonly (SelectionSetNode | undefined)[],
  info: GraphQLResolveInfo,
): Column[] | null {
  const columns = new Set<Column>(keyColumns);
  const visitedFragments = new Set<string>();
  for (const selectionSet of selections) {
    if (!collect(fieldColumns, selectionSet, info, columns, visitedFragments)) return null;
  }
  return [...columns].sort();
}

/**
 * The columns the current Asn-typed field's selection needs (key columns included, in a stable order), or null when
 * whole rows are needed (an unlisted field, or pruning switched off). The same array is returned for the same field
 * position, so callers may key on it.
 */
export function selectedAsnColumns(info: GraphQLResolveInfo): AsnColumn[] | null {
  if (!asnColumnTuning.prune) return null;
  return remembered(info, 'Asn', OWN_SELECTION, () =>
    columnsOf(
      ASN_FIELD_COLUMNS,
      KEY_COLUMNS,
      info.fieldNodes.map((node) => node.selectionSet),
      info,
    ),
  );
}

/** Like selectedAsnColumns, for an Organization-typed field. */
export function selectedOrganizationColumns(info: GraphQLResolveInfo): OrganizationColumn[] | null {
  if (!asnColumnTuning.prune) return null;
  return remembered(info, 'Organization', OWN_SELECTION, () =>
    columnsOf(
      ORGANIZATION_FIELD_COLUMNS,
      ORGANIZATION_KEY_COLUMNS,
      info.fieldNodes.map((node) => node.selectionSet),
      info,
    ),
  );
}

/** True when the field's selection reads nothing but the key (asn, date), so stand-ins of the key answer it. */
export function selectsOnlyAsnKey(info: GraphQLResolveInfo): boolean {
  return isAsnKey(selectedAsnColumns(info));
}

/**
 * True when selected Asn columns are the key alone (`asn1 { asn }`): the record is then answered from the key the
 * caller holds, with no read (a record that does not exist would be a placeholder with the same key).
 */
export function isAsnKey(columns: readonly AsnColumn[] | null): boolean {
  return columns !== null && columns.length === KEY_COLUMNS.length;
}

/** Selection sets of the fields at `path` (e.g. a connection's `edges { node { ... } }`), fragments followed. */
function connectionNodeSelections(
  selectionSet: SelectionSetNode | undefined,
  info: GraphQLResolveInfo,
  path: readonly string[],
  found: SelectionSetNode[],
  visitedFragments: Set<string>,
): void {
  if (!selectionSet) return;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value !== path[0]) continue;
      if (path.length === 1) {
        if (selection.selectionSet) found.push(selection.selectionSet);
      } else connectionNodeSelections(selection.selectionSet, info, path.slice(1), found, visitedFragments);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      connectionNodeSelections(selection.selectionSet, info, path, found, visitedFragments);
    } else {
      const key = `${selection.name.value}|${path.join('.')}`;
      if (visitedFragments.has(key)) continue;
      visitedFragments.add(key);
      connectionNodeSelections(
        info.fragments[selection.name.value]?.selectionSet,
        info,
        path,
        found,
        visitedFragments,
      );
    }
  }
}

function selectionsAt(info: GraphQLResolveInfo, path: readonly string[]): SelectionSetNode[] {
  const selections: SelectionSetNode[] = [];
  const visited = new Set<string>();
  for (const node of info.fieldNodes)
    connectionNodeSelections(node.selectionSet, info, path, selections, visited);
  return selections;
}

/** Whether the current field's selection reaches an object field at `path` (fragments followed, directives not read). */
export function selectsAt(info: GraphQLResolveInfo, path: readonly string[]): boolean {
  return selectionsAt(info, path).length > 0;
}

/**
 * The columns the selections at `path` read, as selectedAsnColumnsAt says, for any record type's column table
 * (`variant` names it in the remembered answers, apart from the position's own selection's).
 */
function columnsAt<Column extends string>(
  variant: string,
  fieldColumns: FieldColumns<Column>,
  keyColumns: readonly Column[],
  info: GraphQLResolveInfo,
  path: readonly string[],
): Column[] | null | undefined {
  if (!asnColumnTuning.prune) return selectionsAt(info, path).length === 0 ? undefined : null;
  return remembered(info, variant, path, () => {
    const selections = selectionsAt(info, path);
    return selections.length === 0 ? undefined : columnsOf(fieldColumns, keyColumns, selections, info);
  });
}

/**
 * The columns the Asn selections found at `path` below the current field need (key columns included, stable order):
 * `undefined` when the path selects nothing, null when whole rows are needed (or pruning is off, so tests compare
 * with the loaders). Lets a resolver read the records its nodes (or their linked ASNs) will show in its own query
 * instead of a loader batch per page.
 */
export function selectedAsnColumnsAt(
  info: GraphQLResolveInfo,
  path: readonly string[],
): AsnColumn[] | null | undefined {
  return columnsAt('Asn at', ASN_FIELD_COLUMNS, KEY_COLUMNS, info, path);
}

/** Like selectedAsnColumnsAt, for the Organization selections at `path` (an ASN's `organization`). */
export function selectedOrganizationColumnsAt(
  info: GraphQLResolveInfo,
  path: readonly string[],
): OrganizationColumn[] | null | undefined {
  return columnsAt('Organization at', ORGANIZATION_FIELD_COLUMNS, ORGANIZATION_KEY_COLUMNS, info, path);
}

/** Like selectedAsnColumns, for a connection of Asn nodes (the columns its `edges { node }` selections need). */
export function selectedAsnNodeColumns(info: GraphQLResolveInfo): AsnColumn[] | null {
  if (!asnColumnTuning.prune) return null;
  return selectedAsnColumnsAt(info, ['edges', 'node']) ?? [...KEY_COLUMNS].sort();
}

/** True when every column of `needed` is among `available` (both as the functions above return them). */
export function coversColumns<Column extends string>(
  available: readonly Column[],
  needed: readonly Column[],
): boolean {
  return available === needed || needed.every((column) => available.includes(column));
}

/** Like selectedAsnNodeColumns, for a connection of AsnLink nodes (key columns alone when no node is selected). */
export function selectedAsnLinkNodeColumns(info: GraphQLResolveInfo): AsnLinkColumn[] | null {
  if (!asnColumnTuning.prune) return null;
  return (
    columnsAt('AsnLink at', ASN_LINK_FIELD_COLUMNS, ASN_LINK_KEY_COLUMNS, info, ['edges', 'node']) ??
    [...ASN_LINK_KEY_COLUMNS].sort()
  );
}

/** What a connection's selection reads: its nodes (`edges`, `pageInfo`), its count (`totalCount`, `pageInfo`). */
export interface ConnectionNeeds {
  nodes: boolean;
  total: boolean;
}

/** The top-level field names of `selectionSet`, fragments followed. */
function fieldNamesOf(
  selectionSet: SelectionSetNode | undefined,
  info: GraphQLResolveInfo,
  names: Set<string>,
  visitedFragments: Set<string>,
): void {
  if (!selectionSet) return;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) names.add(selection.name.value);
    else if (selection.kind === Kind.INLINE_FRAGMENT)
      fieldNamesOf(selection.selectionSet, info, names, visitedFragments);
    else if (!visitedFragments.has(selection.name.value)) {
      visitedFragments.add(selection.name.value);
      fieldNamesOf(info.fragments[selection.name.value]?.selectionSet, info, names, visitedFragments);
    }
  }
}

/**
 * What the current connection field's selection reads, so that a batch of nested pages reads only that: an
 * organization list's `neighbors { totalCount }` ranked every neighbour of every organization for nodes nobody asked
 * for (1,000 organizations of the real month: 932 ms of 1.3 s).
 */
export function connectionNeeds(info: GraphQLResolveInfo): ConnectionNeeds {
  const needs = remembered(info, 'connection needs', OWN_SELECTION, () => {
    const names = new Set<string>();
    const visitedFragments = new Set<string>();
    for (const node of info.fieldNodes) fieldNamesOf(node.selectionSet, info, names, visitedFragments);
    // pageInfo counts the page's nodes (pageInfo.ts), so it reads them as well as the total.
    return [
      ...(names.has('edges') || names.has('pageInfo') ? ['nodes'] : []),
      ...(names.has('totalCount') || names.has('pageInfo') ? ['total'] : []),
    ];
  });
  return { nodes: needs.includes('nodes'), total: needs.includes('total') };
}
