// Asn: one ASN in one month, with its root fields `asn` and `asns`.
import type { RawBuilder, SelectQueryBuilder } from 'kysely';
import { LIST_ORDER_CARRIED_COLUMNS, LIST_ORDER_INDEXES, type Database, type DialectName } from '@asrank/db';
import { parseSort, type SortKey } from '@asrank/domain';
import { builder } from '../builder';
import type { AsnRow, AsrankContext } from '../context';
import { intervalOf, loadInMonth, monthNow, monthsIn, pageOf, parseAsnArgument, parseAsnList } from '../args';
import { listTotal, monthListScope, monthTotals, rankedListTotal } from '../listTotals';
import {
  boundDateIn,
  boundList,
  byPrimaryKey,
  dateIn,
  inBoundList,
  inValues,
  monthSpanIn,
  monthSpanParts,
  orderByList,
  withOrderColumns,
  sortKeysNamed,
  type SortColumn,
} from '../sql';
import { listPage, monthArmsOfName, monthBookmarks, monthsOfList, type NamedListFilter } from '../listPage';
import { monthOrderOf, monthWalkOf, pageMonthByMonth, readsMonthByMonth } from '../monthByMonth';
import { compiledLimit } from '../compiledLookups';
import { nestedPage } from '../nestedPages';
import { nameConditions } from '../nameSearch';
import {
  connectionNeeds,
  coversColumns,
  type AsnColumn,
  type ConnectionNeeds,
  selectedAsnColumns,
  selectedAsnColumnsAt,
  selectedAsnNodeColumns,
  selectedOrganizationColumns,
  selectedOrganizationColumnsAt,
} from '../asnColumns';
import {
  asnRowsWithOrganizationsQuery,
  joinedOrganizationColumns,
  organizationFromCopies,
  withJoinedOrganizations,
  JOINED_ORGANIZATION,
  type AsnRowWithOrganization,
} from '../joinedOrganization';
import { connectionOf, type ConnectionPage } from './pageInfo';
import { AsnRef, CountryRef, OrganizationRef } from './refs';
import { AnnouncingRef, AsnDegreeRef, ConeRef, PARENT_ITSELF } from './stats';
import { asnLinksOfAsns, AsnLinkConnection } from './asnLink';

export const ASN_SORT_COLUMNS: Record<string, SortColumn> = {
  asn: { column: 'asn' },
  asnName: { column: 'asn_name', text: true, fewTies: true },
  rank: { column: 'rank', nullable: true, fewTies: true },
  source: { column: 'source', text: true, nullable: true },
  'cone.numberAsns': { column: 'cone_asns' },
  'cone.numberPrefixes': { column: 'cone_prefixes' },
  'cone.numberAddresses': { column: 'cone_addresses' },
  'asnDegree.provider': { column: 'degree_provider' },
  'asnDegree.peer': { column: 'degree_peer' },
  'asnDegree.customer': { column: 'degree_customer' },
  'asnDegree.transit': { column: 'degree_transit' },
  'asnDegree.sibling': { column: 'degree_sibling' },
  'asnDegree.total': { column: 'degree_total' },
  date: { column: 'date' },
};

/** Order of ASN lists: the client's keys or by rank (unranked last), then ASN. */
export const ASN_ORDER = {
  defaults: [{ key: 'rank', direction: 'asc' }],
  unique: [{ key: 'asn', direction: 'asc' }],
} satisfies {
  defaults: SortKey[];
  unique: SortKey[];
};
/** Historic lists: date ascending unless the client sorts, one record per ASN and month. */
export const ASN_HISTORIC_ORDER = {
  defaults: [{ key: 'date', direction: 'asc' }, ...ASN_ORDER.defaults],
  unique: [{ key: 'date', direction: 'asc' }, ...ASN_ORDER.unique],
} satisfies { defaults: SortKey[]; unique: SortKey[] };

/**
 * The columns each list order's index carries (migration 013), by its sort term as the index names it (`rank`,
 * `cone_asns desc`): its keys, the other order's value and a ranking table's columns; and `own`, the one column of
 * them no other index of the month's order column holds (`rank` for `cone_asns desc`).
 */
const ORDER_INDEXES = new Map<string, { columns: ReadonlySet<string>; own: string }>(
  LIST_ORDER_INDEXES.map((index) => [
    index.keys[1],
    {
      columns: new Set<string>([
        ...index.keys.map((key) => key.split(' ')[0]!),
        index.carried,
        ...LIST_ORDER_CARRIED_COLUMNS,
      ]),
      own: index.carried,
    },
  ]),
);

/**
 * The columns a month's page in the order of `keys` reads from that order's index alone: the default order (rank;
 * its ranked and unranked ranges both lie in the rank index) or an order migration 013 gave such an index (by
 * customer cone, descending), when every column of `columns` is within what that index carries. (`sort: "asn"` alone
 * counts as the default order here: that order is the table's own key, whose rows carry every column.) Undefined
 * otherwise (the page's keys, then its rows).
 * On PostgreSQL a descending order's page reads that index's own column too, though no field shows it. A page of
 * keys and cone sizes alone could otherwise be read from the narrow ascending cone index (migration 002) as well, and
 * the generic plan of the compiled page chose it, backwards, sorting the bookmark's whole tie of the month by key for
 * each page: 27-60 ms for 100 ASNs of cone size 1, against 0.5 ms from the order's own index (docs/performance.md,
 * sixty-seventh round). No other index serves the rank order; SQLite reads such a page from the order's index either
 * way, and the column would cost it ~40 µs a page.
 */
function orderIndexCarries(
  dialect: DialectName,
  keys: readonly SortKey[],
  columns: readonly AsnColumn[],
): readonly string[] | undefined {
  const last = keys.at(-1);
  const ordered = last?.key === 'asn' && last.direction === 'asc' ? keys.slice(0, -1) : keys;
  const [first, ...more] = ordered.length > 0 ? ordered : ASN_ORDER.defaults;
  if (!first || more.length > 0) return undefined;
  const term = `${ASN_SORT_COLUMNS[first.key]?.column}${first.direction === 'desc' ? ' desc' : ''}`;
  const index = ORDER_INDEXES.get(term);
  if (!index || !columns.every((column) => index.columns.has(column))) return undefined;
  const rivalled = dialect === 'postgres' && term.endsWith(' desc');
  return rivalled && !columns.includes(index.own as AsnColumn) ? [...columns, index.own] : columns;
}

/** A link may end at an ASN without a record of its own; it is still shown, with only its number and month. */
export function placeholderAsn(date: string, asn: number): AsnRow {
  return {
    date,
    asn,
    asn_name: '',
    org_id: null,
    country_iso: null,
    source: null,
    latitude: null,
    longitude: null,
    rank: null,
    seen: 0,
    clique_member: 0,
    ixp: null,
    cone_asns: 0,
    cone_prefixes: 0,
    cone_addresses: 0,
    announcing_prefixes: 0,
    announcing_addresses: 0,
    degree_provider: 0,
    degree_peer: 0,
    degree_customer: 0,
    degree_sibling: 0,
    degree_transit: 0,
    degree_total: 0,
    search_text: '',
    org_name: null,
    org_rank: null,
    // Not read for it: its `asnLinks` total counts its links, as it has no row that keeps them.
    number_asn_links: 0,
    number_cone_members: 0,
    number_customer_links: 0,
    number_peer_links: 0,
    number_provider_links: 0,
    number_sibling_links: 0,
    number_canonical_links: 0,
  };
}

export const AsnConnection = connectionOf('Asn', AsnRef, 'A page of ASN records.');

AsnRef.implement({
  description: 'An autonomous system in one monthly dataset.',
  fields: (t) => ({
    // Exposed under their own names, so without a resolver: graphql-jit reads such a field inline, where a resolver
    // costs a call with its own info and path objects per record (3-5% of a list's CPU; nineteenth round of
    // docs/performance.md). The record keeps the ASN as a number and GraphQL's String serializer writes its digits,
    // as String(row.asn) did; Pothos types an exposed field by its property, hence the cast of this one name.
    asn: t.exposeString('asn' as never, { description: 'The ASN as decimal digits.' }),
    asnName: t.exposeString('asn_name', { description: 'May be empty.' }),
    rank: t.exposeInt('rank', { nullable: true, description: 'Null for ASNs not seen in routing data.' }),
    source: t.exposeString('source', { nullable: true, description: 'Registry that allocated the ASN.' }),
    date: t.exposeString('date', { description: 'Month of this record (YYYY-MM-DD).' }),
    cliqueMember: t.boolean({ resolve: (row) => row.clique_member === 1 }),
    seen: t.boolean({ resolve: (row) => row.seen === 1 }),
    ixp: t.boolean({
      nullable: true,
      description: 'True for IXP route-server ASNs, else null.',
      resolve: (row) => (row.ixp == null ? null : row.ixp === 1),
    }),
    longitude: t.exposeFloat('longitude', { nullable: true }),
    latitude: t.exposeFloat('latitude', { nullable: true }),
    country: t.field({
      type: CountryRef,
      nullable: true,
      resolve: (row, _args, context) => (row.country_iso ? context.country(row.country_iso) : null),
    }),
    organization: t.field({
      type: OrganizationRef,
      nullable: true,
      description: 'The owning organization in the same month.',
      resolve: (row: AsnRowWithOrganization, _args, context, info) => {
        const columns = selectedOrganizationColumns(info);
        // Read with the ASN when its lookup knew the organization would be shown (joinedOrganization.ts).
        const joined = row[JOINED_ORGANIZATION];
        if (
          joined &&
          (joined.record === null || (columns !== null && coversColumns(joined.columns, columns)))
        )
          return joined.record;
        // Or the copies of its id, name and rank in the ASN's row answer the selection.
        const copied = columns === null ? undefined : organizationFromCopies(row, columns);
        if (copied !== undefined) return copied;
        return row.org_id
          ? context.organizationLoader(columns).load({ date: row.date, id: row.org_id })
          : null;
      },
    }),
    cone: t.field({ type: ConeRef, ...PARENT_ITSELF }),
    asnDegree: t.field({ type: AsnDegreeRef, ...PARENT_ITSELF }),
    announcing: t.field({ type: AnnouncingRef, ...PARENT_ITSELF }),
    asnLinks: t.field({
      type: AsnLinkConnection,
      description: 'Links of this ASN in the same month; asn0 is always this ASN, asn1 the neighbour.',
      args: {
        first: t.arg.int(),
        offset: t.arg.int(),
        sort: t.arg.string({
          description:
            'Comma-separated keys: asn0, asn1, numberPaths, relationship, correctedBy; "-" prefix for descending.',
        }),
      },
      resolve: (row, args, context, info) =>
        asnLinksOfAsns(
          context,
          row.date,
          pageOf(args),
          args.sort,
          connectionNeeds(info),
          selectedAsnColumnsAt(info, ['edges', 'node', 'asn1']),
        ).load(Number(row.asn)),
    }),
  }),
});

/** Member ASNs of organizations (Organization.members.asns), one windowed query per page of parents. */
export function asnsOfOrganizations(
  context: Parameters<typeof nestedPage>[0],
  date: string,
  page: { first: number; offset: number },
  sort: string | null | undefined,
  needs: ConnectionNeeds,
  // The columns the nodes' fields read (selectedAsnNodeColumns), null for whole rows.
  selected: readonly AsnColumn[] | null = null,
) {
  const keys = parseSort(sort, 'asns', { argument: 'sort' });
  const order = orderByList(context.dialect, keys, ASN_SORT_COLUMNS, ASN_ORDER);
  // Only the columns shown and sorted by: the window sorted every member's whole row (the real month's first 100
  // organizations' 1,091 ASNs: 10 ms on SQLite, 3 ms with their key and rank).
  const columns = withOrderColumns(selected, keys, ASN_SORT_COLUMNS, ASN_ORDER);
  return nestedPage<string, AsnRow>(
    context,
    `orgAsns|${date}|${sort ?? ''}|${columns?.join(',') ?? '*'}`,
    page,
    () => ({
      partitionColumn: 'parent_key',
      order,
      rows: (orgIds) => {
        const members = context.db
          .selectFrom('asns')
          .select('org_id as parent_key')
          .where('date', '=', date)
          .where(inValues(context.dialect, 'org_id', orgIds, 'text'));
        return columns ? members.select(columns) : members.selectAll();
      },
    }),
    {
      // Counted from the (date, org_id) index, as the rows are read.
      kept: false,
      counts: (orgIds) =>
        context.db
          .selectFrom('asns')
          .select(['org_id as parent_key', (eb) => eb.fn.countAll().as('total')])
          .where('date', '=', date)
          .where(inValues(context.dialect, 'org_id', orgIds, 'text'))
          .groupBy('org_id'),
    },
    needs,
  );
}

/** Bound in place of a key-list page's values when its statement is compiled; values the SQL never binds otherwise. */
const KEY_LIST_PLACEHOLDERS = ['\u0000asns', '\u0000limit', '\u0000offset'] as const;
/** Bound in place of the month condition's values (monthSpanParts: one to three of them). */
const monthPlaceholder = (index: number) => `\u0000month ${index}`;

/** The listed ASNs' records in the page's months, under the given month and ASN conditions (the resolver's records). */
type KeyListRecords = (
  inMonths: RawBuilder<boolean>,
  inAsns: RawBuilder<boolean>,
) => SelectQueryBuilder<Database, 'asns', object>;

/**
 * One page of a list of ASNs (`asns: [...]`, with or without an interval: an AS's history) with no other filter: the
 * statement listPage reads such a page with (one ORDER BY ... LIMIT over the listed ASNs' records), compiled once per
 * shape (pruned columns, sort, one month or several) with the months, ASNs and page bound at each run, as the point
 * lookups are (compiledLookups.ts). Building and compiling it with Kysely cost ~8% of the historic workload's CPU (W4,
 * docs/performance.md, twenty-fourth round). On PostgreSQL it runs named and planned once, its LIMIT written in
 * (compiledLimit): the listed ASNs' records are found through the (asn, date, ...) index whatever the list's length,
 * so the generic plan is the custom one. Null when that LIMIT cannot be written in: the caller builds the page.
 */
async function keyListPage(
  context: AsrankContext,
  spec: {
    records: KeyListRecords;
    columns: readonly AsnColumn[];
    keys: readonly SortKey[];
    order: { defaults: readonly SortKey[]; unique: readonly SortKey[] };
    months: readonly string[];
    asns: readonly number[];
    page: { first: number; offset: number };
  },
): Promise<Partial<AsnRow>[] | null> {
  const { records, columns, keys, order, months, asns, page } = spec;
  const { dialect } = context;
  const [listPlaceholder, limitPlaceholder, offsetPlaceholder] = KEY_LIST_PLACEHOLDERS;
  const limit = compiledLimit(dialect, page.first, limitPlaceholder);
  if (limit === null) return null;
  const oneMonth = months.length === 1;
  const shape = `asns key list|${oneMonth ? 'month' : 'months'}|${order === ASN_ORDER ? '' : 'historic'}|${sortKeysNamed(keys)}|${columns.join(',')}${limit.shape}`;
  // The month condition as monthSpanIn builds it, over placeholders; the ASNs and the page follow.
  const monthCondition = monthSpanParts(dialect, 'date', months);
  const monthPlaceholders = monthCondition.values.map((_, index) => monthPlaceholder(index));
  return context.compiled<Partial<AsnRow>>(
    shape,
    'asns',
    (...bound) => {
      const [list, , offset] = bound.slice(monthPlaceholders.length);
      return records(monthCondition.over(bound), inBoundList(dialect, 'asn', list, 'bigint'))
        .select(columns)
        .orderBy(orderByList(dialect, keys, ASN_SORT_COLUMNS, order, { keyLookup: true }))
        .limit(limit.bound as number)
        .offset(offset as number);
    },
    [...monthPlaceholders, listPlaceholder, limitPlaceholder, offsetPlaceholder],
    [...monthCondition.values, boundList(dialect, asns, 'bigint'), page.first, page.offset],
  );
}

builder.queryFields((t) => ({
  asn: t.field({
    type: AsnRef,
    nullable: true,
    description: 'One ASN in the latest month, or in the month `date`; null when unknown.',
    args: {
      asn: t.arg.string({ required: true, description: 'The ASN as decimal digits.' }),
      date: t.arg.string({ description: 'Month (YYYY-MM-DD or YYYYMMDD); default the latest.' }),
    },
    resolve: (_root, args, context, info) => {
      const asn = parseAsnArgument(args.asn, 'asn');
      // The organization's columns when the selection shows it (null: whole rows, or pruning is off, which tests
      // compare with the loader): read in the same statement.
      // Not when the ASN's own copies answer it (asnColumns.ts then reads them with the record).
      const organization = joinedOrganizationColumns(selectedOrganizationColumnsAt(info, ['organization']));
      const columns = selectedAsnColumns(info);
      // On SQLite the month and the record are known at once: no promise on the way (context.asnNow).
      const month = monthNow(context, args.date);
      if (month === null) return null;
      const record = month === undefined ? undefined : context.asnNow(columns, organization, month, asn);
      if (record !== undefined) return record;
      // On PostgreSQL, once the month is known (or the statement finds the latest), from the statement the turn's
      // requests share (context.asnSoon).
      const knownMonth = month ?? context.latestMonthKey();
      const shared =
        knownMonth === undefined ? undefined : context.asnSoon(columns, organization, knownMonth, asn);
      if (shared) return shared;
      const loader = organization ? context.asnLoader(columns, { organization }) : context.asnLoader(columns);
      return loadInMonth(context, args.date, month, (date) => loader.load({ date, id: asn }));
    },
  }),
  asns: t.field({
    type: AsnConnection,
    description:
      'ASNs of the latest month, or one record per ASN and month of [dateStart, dateEnd] (inclusive, date ascending by default).',
    args: {
      first: t.arg.int({ description: 'Page size (default 40, at most 10000).' }),
      offset: t.arg.int({ description: 'Start position (default 0).' }),
      name: t.arg.string({
        description: 'Case-insensitive substring of the AS name or its organization name.',
      }),
      asns: t.arg.stringList({ description: 'Only these ASNs.' }),
      seen: t.arg.boolean({ description: 'Only ASNs seen (true) or not seen (false) in routing data.' }),
      sort: t.arg.string({
        description: 'Comma-separated sort keys, "-" prefix for descending (e.g. "-cone.numberAsns,asn").',
      }),
      dateStart: t.arg.string(),
      dateEnd: t.arg.string(),
    },
    resolve: async (_root, args, context, info): Promise<ConnectionPage<AsnRow>> => {
      const page = pageOf(args);
      const interval = intervalOf(args);
      // Only the columns the selected node fields read (asnColumns.ts); whole rows when unknown.
      const columns = selectedAsnNodeColumns(info);
      // The organizations' columns when the nodes show them, read in the page's statement where listPage allows a join.
      const organization = columns
        ? joinedOrganizationColumns(selectedOrganizationColumnsAt(info, ['edges', 'node', 'organization']))
        : undefined;
      const sortKeys = parseSort(args.sort, 'asns', { historic: interval !== null, argument: 'sort' });
      const asnFilter = parseAsnList(args.asns, 'asns');
      const months = await monthsIn(context, interval);
      if (months.length === 0) return { nodes: [], totalCount: 0, ...page };
      const { historic, keys } = monthOrderOf(interval !== null, months, sortKeys, {
        key: 'asn',
        direction: 'asc',
      });
      // An AS's history (a few ASNs, many months, pruned columns) reads one range of the (asn, date, ...) index per ASN.
      const historyRanges = asnFilter !== null && columns !== null && !columns.includes('search_text');
      // A list of ASNs in one month is records read by their key (sql.ts byPrimaryKey); a sorted month keeps its indexes.
      // keyListPage gives the conditions, built over placeholders, when it compiles the page's statement.
      const recordsQuery = (
        inMonths = historyRanges
          ? monthSpanIn(context.dialect, 'date', months)
          : dateIn(context.dialect, 'date', months),
        inAsns = asnFilter && inValues(context.dialect, 'asn', asnFilter, 'bigint'),
      ) => {
        const table =
          asnFilter && months.length === 1
            ? context.db.selectFrom(byPrimaryKey(context.dialect, 'asns', 'asns'))
            : context.db.selectFrom('asns');
        return inAsns ? table.where(inMonths).where(inAsns) : table.where(inMonths);
      };
      const order = historic ? ASN_HISTORIC_ORDER : ASN_ORDER;
      const filtered = asnFilter !== null || args.name != null || args.seen != null;
      // The filters that bookmarks, month arms and kept totals name (`seen`); a key list or a name they cannot.
      const namedFilter: NamedListFilter =
        asnFilter !== null || args.name != null ? null : args.seen == null ? {} : { seen: args.seen };
      const totalScope =
        asnFilter === null
          ? monthListScope('asns', months, { seen: args.seen, name: args.name?.toLowerCase() })
          : null;
      const keyListNodes =
        historyRanges && asnFilter.length > 0 && args.name == null && args.seen == null
          ? await keyListPage(context, {
              records: recordsQuery,
              columns,
              keys,
              order,
              months,
              asns: asnFilter,
              page,
            })
          : null;
      if (keyListNodes !== null) {
        const nodes = keyListNodes as AsnRow[];
        return { nodes, totalCount: () => listTotal(context, recordsQuery(), totalScope), ...page };
      }
      let query = recordsQuery();
      const named = args.name != null ? await nameConditions(context, 'asns', args.name, months) : [];
      for (const condition of named) query = query.where(condition);
      if (args.seen != null) query = query.where('seen', '=', args.seen ? 1 : 0);
      // The pruned rows carry exactly the columns the selected fields read, though typed as whole rows.
      const withColumns = (rowQuery: typeof query) =>
        columns
          ? (rowQuery.select(columns) as unknown as ReturnType<typeof rowQuery.selectAll>)
          : rowQuery.selectAll();
      /** Records `limit`, `offset` of `pageQuery` over `pageMonths` in the order of `pageKeys`. */
      const pageIn = async (
        pageMonths: readonly string[],
        pageQuery: typeof query,
        pageKeys: readonly SortKey[],
        historicOrder: boolean,
        limit: number,
        offset: number,
      ) =>
        listPage({
          db: context.db,
          dialect: context.dialect,
          table: 'asns',
          indexCarries:
            columns && !organization && !historicOrder
              ? orderIndexCarries(context.dialect, pageKeys, columns)
              : undefined,
          rankedTotal: rankedListTotal(
            context,
            asnFilter === null
              ? monthListScope('asns', pageMonths, { seen: args.seen, name: args.name?.toLowerCase() })
              : null,
          ),
          key: 'asn',
          query: pageQuery,
          selectRows: (rows, qualified) =>
            qualified && columns && organization
              ? asnRowsWithOrganizationsQuery(rows, columns, organization)
              : withColumns(rows),
          rowsOf: (result, qualified) =>
            qualified && columns && organization
              ? withJoinedOrganizations(result, organization)
              : (result as unknown as AsnRow[]),
          page: { first: limit, offset },
          keys: pageKeys,
          columns: ASN_SORT_COLUMNS,
          order: historicOrder ? ASN_HISTORIC_ORDER : ASN_ORDER,
          singleMonth: pageMonths.length === 1,
          filtered: namedFilter === null,
          keyList: asnFilter !== null,
          bookmarks: monthBookmarks(context, pageMonths, namedFilter),
          monthQuery: monthsOfList(context, 'asns', pageMonths, namedFilter, (month) => monthRecords(month)),
          monthArms:
            pageMonths === months && asnFilter === null
              ? await monthArmsOfName(context, 'asns', months, pageKeys, args.name, named, (month) =>
                  named.reduce((records, condition) => records.where(condition), monthRecords(month)),
                )
              : undefined,
          compiled:
            pageMonths.length === 1 && !filtered && columns
              ? {
                  shape: `asns|${columns.join(',')}|${organization?.join(',') ?? ''}`,
                  queryOver: (month) => recordsQuery(boundDateIn(context.dialect, 'date', 1, month)),
                  month: pageMonths[0]!,
                  run: context.compiled.bind(context),
                }
              : undefined,
        });
      /** A month's records, `seen` or not as asked, and their totals month by month (kept, listTotals.ts). */
      const monthRecords = (month: string) => {
        const records = recordsQuery(dateIn(context.dialect, 'date', [month]));
        return args.seen == null ? records : records.where('seen', '=', args.seen ? 1 : 0);
      };
      const recordTotals = monthTotals(context, 'asns', { seen: args.seen, name: undefined }, monthRecords);
      // Every record (or the seen ones) over several months in an order that starts with the month: month by month
      // (monthByMonth.ts).
      // Several months without a name filter: the sum of the months' totals; with one (its candidates are the months'
      // together), the total over the months, kept whole (monthListScope names the months).
      const totalCount =
        months.length > 1 && asnFilter === null && args.name == null
          ? () => recordTotals.sum(months)
          : () => listTotal(context, query, totalScope);
      // Only the total asked (no edges, no pageInfo): no page is read.
      if (!connectionNeeds(info).nodes) return { nodes: [], totalCount, ...page };
      let nodes: AsnRow[];
      if (asnFilter === null && args.name == null && readsMonthByMonth(months, keys)) {
        const walk = monthWalkOf(months, keys, { key: 'asn', direction: 'asc' });
        nodes = await pageMonthByMonth(
          walk.months,
          page.first,
          page.offset,
          recordTotals.of,
          (month, limit, offset) =>
            pageIn([month], monthRecords(month), walk.monthKeys, false, limit, offset),
        );
      } else nodes = await pageIn(months, query, keys, historic, page.first, page.offset);
      return { nodes, totalCount, ...page };
    },
  }),
}));
