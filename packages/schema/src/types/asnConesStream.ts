// asnConesStream: a depth-first walk over cones, then each cone's ASNs, then its prefixes, split into pages by an
// item budget (domain's paginateConeStream) and read from the database chunk by chunk.
import { sql } from 'kysely';
import {
  ArgumentError,
  DEFAULT_CONE_STREAM_BUDGET,
  MAX_CONE_STREAM_BUDGET,
  paginateConeStream,
  parseDateList,
  parsePrefixText,
  parseSort,
  quoteValue,
  type ConeStreamPage,
  type SortKey,
} from '@asrank/domain';
import { builder } from '../builder';
import type { AsrankContext } from '../context';
import type { DialectName } from '@asrank/db';
import { parseAsnList } from '../args';
import {
  boundDateIn,
  boundList,
  byPrimaryKey,
  inBoundList,
  inValues,
  orderByList,
  sortKeysNamed,
  type SortColumn,
} from '../sql';
import {
  coneStreamSource,
  rowsPerQuery,
  type StreamCone,
  type StreamMember,
  type StreamPrefix,
} from '../coneSource';
import { monthTotals } from '../listTotals';
import { monthWalkOf, pageMonthByMonth, readsMonthByMonth } from '../monthByMonth';
import { monthsFirstPage, monthsPageAfter, type MonthSeekRange } from '../monthsBookmarks';
import { seekOrder, type SeekTerm } from '../pageBookmarks';
import { servedByIndex } from '../monthArms';
import { AsnRef, PrefixRef, type PrefixRecord } from './refs';
import { ASN_HISTORIC_ORDER, ASN_SORT_COLUMNS } from './asn';
import { memberKeys, memberRecords } from './asnCone';
import { selectedAsnColumns, selectsAt, selectsOnlyAsnKey } from '../asnColumns';
import { compiledLimit } from '../compiledLookups';

/** Bound in place of a cone chunk's values when its statement is compiled; values its SQL never binds otherwise. */
const CONE_CHUNK_PLACEHOLDERS = {
  values: { months: '\u0000months', seen: '\u0000seen', asns: '\u0000asns' },
  limit: '\u0000limit',
  offset: '\u0000offset',
} as const;

// Seen ASNs are exactly the ranked ones, so rank needs no nulls-last handling here and its index serves the order.
const STREAM_SORT_COLUMNS: Record<string, SortColumn> = { ...ASN_SORT_COLUMNS, rank: { column: 'rank' } };

/** Reads `limit` cones of a walk's list from position `offset`; `after`: the cone before it, when known. */
type ConeChunk = (offset: number, limit: number, after: StreamCone | null) => Promise<StreamCone[]>;

/**
 * The walk's one sort column, when its cones may be read after a given cone from each month's (date, column, asn)
 * index: a non-null column other than the month (the order is then that column, the month, the ASN).
 */
function coneSeekTerm(keys: readonly SortKey[]): SeekTerm | null {
  const target = keys.length === 1 ? STREAM_SORT_COLUMNS[keys[0]!.key] : undefined;
  if (!target || target.nullable || target.column === 'date') return null;
  return { column: target.column, direction: keys[0]!.direction };
}

/** The columns of a cone besides its month, its ASN and the sort column. */
const CONE_COLUMNS = ['rank', 'cone_asns', 'cone_prefixes', 'number_cone_members'];

/** A row of a walk's cone list, as its columns (CONE_COLUMNS) give it. */
interface ConeRow {
  date: string;
  asn: number | string;
  rank: number | string | null;
  cone_asns: number | string;
  cone_prefixes: number | string;
  number_cone_members: number | string;
}

/**
 * A cone of the walk's list: its size the members its row keeps (migration 021), exact, where it keeps them; else
 * cone_asns, which may come from CAIDA's files and only estimates them (a cone it understates is found large later,
 * coneSource.ts's UnderstatedCones).
 */
function streamCone(row: ConeRow, sortValue: unknown): StreamCone {
  const memberCount = Number(row.number_cone_members);
  return {
    date: String(row.date),
    asn: Number(row.asn),
    rank: row.rank == null ? null : Number(row.rank),
    coneAsns: memberCount > 0 ? memberCount : Number(row.cone_asns),
    conePrefixes: Number(row.cone_prefixes),
    ...(memberCount > 0 ? { memberCount } : {}),
    sortValue,
  };
}

/**
 * The chunks of an unfiltered walk over several months in one sort column (`term`): the first read as one arm a month,
 * each later one after the last cone of the chunk before (which coneSource keeps) from each month's index, as a deep
 * list page continues after its bookmark (monthsBookmarks.ts). One statement over the months sorted every seen ASN of
 * them for each chunk: 12 generated months by `asnName`, 360 ms a chunk on SQLite, holding its thread
 * (docs/performance.md, fifty-sixth round). A chunk whose predecessor is not kept, or an order no month's index serves
 * (the database's plan sorts more than the ties of a value), is read by `plain`.
 */
function seekingConeChunks(
  context: AsrankContext,
  months: readonly string[],
  keys: readonly SortKey[],
  term: SeekTerm,
  plain: ConeChunk,
): ConeChunk {
  const { db, dialect } = context;
  const ordered = [...months].sort();
  const ranges: MonthSeekRange[] = ordered.map((month) => ({
    month,
    range: {
      db,
      dialect,
      range: db.selectFrom('asns').where('date', '=', month).where('seen', '=', 1),
      keyColumns: ['asn'],
      term,
      // Not read: a chunk continues after a cone, not after a bookmark.
      bookmarks: context.pageBookmarks,
      step: context.pageBookmarks.step,
      scope: '',
    },
  }));
  const columns = [...new Set(['date', 'asn', term.column, ...CONE_COLUMNS])].map((column) => ({
    column,
    as: column,
  }));
  const order = orderByList(dialect, keys, STREAM_SORT_COLUMNS, ASN_HISTORIC_ORDER);
  // One month's arm, whose plan (the same text for every month) says whether the months' indexes serve the order.
  const firstRange = ranges[0]!.range;
  const arm = firstRange.range.select(['date', 'asn', term.column] as never[]).orderBy(seekOrder(firstRange));
  return async (offset, limit, after) => {
    const point =
      after && after.sortValue !== undefined
        ? {
            monthIndex: ordered.indexOf(after.date),
            bookmark: { value: after.sortValue, key: [after.asn] },
          }
        : null;
    if (offset > 0 && (point === null || point.monthIndex < 0)) return plain(offset, limit, after);
    // Ties of a name or a rank are few, so a sort within each (a descending walk of an ascending index) is allowed.
    if (!(await servedByIndex(db, dialect, arm.limit(limit), term.column)))
      return plain(offset, limit, after);
    const page = point
      ? monthsPageAfter(
          db,
          ranges,
          { threshold: point, skip: 0, end: null },
          columns,
          order,
          limit,
          CONE_COLUMNS,
        )
      : monthsFirstPage(db, ranges, columns, order, limit, CONE_COLUMNS);
    const rows = (await page.execute()) as (ConeRow & Record<string, unknown>)[];
    return rows.map((row) => streamCone(row, row[term.column]));
  };
}

type StreamPage = ConeStreamPage<StreamCone, StreamMember, StreamPrefix>;
type StreamItem = StreamPage['items'][number];

interface StreamResult {
  page: StreamPage;
  totalCount: () => Promise<number>;
}

const StreamPageInfoRef = builder.objectRef<StreamPage>('StreamPageInfo').implement({
  description: 'Position of an asnConesStream page: "cone,asnIndex,prefixIndex" cursors.',
  fields: (t) => ({
    pageCursor: t.exposeString('pageCursor', { description: 'Where this page starts.' }),
    nextPageCursor: t.exposeString('nextPageCursor', {
      description: 'Pass as pageCursor to get the next page.',
    }),
    hasNextPage: t.exposeBoolean('hasNextPage', { description: 'False once the walk is complete.' }),
  }),
});

const StreamItemRef = builder.objectRef<StreamItem>('AsnConeStreamItem').implement({
  description:
    'One cone on a stream page, with the slice of its member ASNs and prefixes that falls on this page.',
  fields: (t) => ({
    rank: t.int({ nullable: true, resolve: (item) => item.cone.rank }),
    date: t.string({ resolve: (item) => item.cone.date }),
    coneIndex: t.exposeInt('coneIndex', {
      description: 'Position of the cone in the walk (the cursor’s first number).',
    }),
    asn: t.field({
      type: AsnRef,
      resolve: async (item, _args, context, info) =>
        selectsOnlyAsnKey(info)
          ? memberKeys([item.cone])[0]!
          : (await memberRecords(context, [item.cone], selectedAsnColumns(info)))[0]!,
    }),
    asns: t.field({
      type: [AsnRef],
      resolve: (item, _args, context, info) =>
        selectsOnlyAsnKey(info)
          ? memberKeys(item.asns)
          : memberRecords(context, item.asns, selectedAsnColumns(info)),
    }),
    prefixes: t.field({ type: [PrefixRef], resolve: (item) => prefixRecords(item.prefixes) }),
  }),
});

/**
 * A page item's prefixes as records. A walk reads keys alone only where its items select no `prefixes` (the root
 * resolver's selectsAt), so a list of keys here is a fault of that reading, not of the request.
 */
function prefixRecords(prefixes: readonly StreamPrefix[]): readonly PrefixRecord[] {
  if (prefixes.length > 0 && prefixes[0]!.network === null)
    throw new Error('asnConesStream: prefixes were read as keys alone for a page that shows them');
  return prefixes as readonly PrefixRecord[];
}

const StreamConnectionRef = builder.objectRef<StreamResult>('AsnConeStreamConnection').implement({
  description: 'One page of the cone stream.',
  fields: (t) => ({
    totalCount: t.int({
      description: 'Number of cones in the whole walk.',
      resolve: (result) => result.totalCount(),
    }),
    pageInfo: t.field({ type: StreamPageInfoRef, resolve: (result) => result.page }),
    pages: t.field({ type: [StreamItemRef], resolve: (result) => result.page.items }),
  }),
});

function parseBudget(first: number | null | undefined): number {
  if (first == null) return DEFAULT_CONE_STREAM_BUDGET;
  if (!Number.isSafeInteger(first) || first < 1 || first > MAX_CONE_STREAM_BUDGET) {
    throw new ArgumentError(
      'first',
      `first (items per stream page) must be a whole number from 1 to ${MAX_CONE_STREAM_BUDGET}; got ${quoteValue(first)}`,
    );
  }
  return first;
}

interface StreamFilters {
  months: string[];
  asns: number[] | null;
  membersAll: number[];
  membersSome: number[] | null;
  prefixes: { network: string; length: number }[];
  order: SortKey[];
}

/** What conesQuery binds for the months, `seen` and the ASN list: their values, or a compiled statement's placeholders. */
interface ConesQueryValues {
  months: unknown;
  seen: unknown;
  asns: unknown;
}

function conesQueryValues(dialect: DialectName, filters: StreamFilters): ConesQueryValues {
  return {
    months: filters.months.length === 1 ? filters.months[0] : boundList(dialect, filters.months, 'text'),
    seen: 1,
    asns: filters.asns && filters.asns.length > 0 ? boundList(dialect, filters.asns, 'bigint') : null,
  };
}

/** The listed prefixes as a table `w (network, length)`, bound as one parameter (or two on PostgreSQL). */
function wantedPrefixes(dialect: DialectName, prefixes: StreamFilters['prefixes']) {
  if (dialect === 'sqlite') {
    const pairs = JSON.stringify(prefixes.map((prefix) => [prefix.network, prefix.length]));
    return sql`(select json_extract(value, '$[0]') as network, json_extract(value, '$[1]') as length from json_each(${pairs})) w`;
  }
  const networks = prefixes.map((prefix) => prefix.network);
  const lengths = prefixes.map((prefix) => prefix.length);
  return sql`unnest(${networks}::text[], ${lengths}::integer[]) as w (network, length)`;
}

/** The cones of the walk: seen ASNs with a cone in the selected months (at least one), filtered, in the requested order. */
function conesQuery(
  context: AsrankContext,
  filters: StreamFilters,
  values: ConesQueryValues = conesQueryValues(context.dialect, filters),
) {
  const { db, dialect } = context;
  // Listed ASNs in one month are records read by their key (sql.ts byPrimaryKey); otherwise the rank index serves.
  const cones =
    filters.asns && filters.months.length === 1
      ? db.selectFrom(byPrimaryKey(dialect, 'asns', 'a'))
      : db.selectFrom('asns as a');
  let query = cones
    .where(boundDateIn(dialect, 'a.date', filters.months.length, values.months))
    // A seen ASN always has a cone (it is in its own); no cone_asns predicate, so the planner keeps the rank index.
    .where('a.seen', '=', values.seen as number);
  if (filters.asns)
    query = query.where(
      filters.asns.length === 0 ? sql<boolean>`1 = 0` : inBoundList(dialect, 'a.asn', values.asns, 'bigint'),
    );
  // Each member filter is one set of (month, cone) pairs the cone must be in, read from the member index once. One
  // correlated EXISTS per listed ASN or prefix took 14-36 s for 50-500 ASNs over two or three months on the bundled
  // sample, holding the event loop, and past ~930 of them SQLite's expression depth failed the request.
  const monthsOf = (column: string) => boundDateIn(dialect, column, filters.months.length, values.months);
  // `every`: the list holds each ASN once and the key (date, asn, member_asn) each pair once, so a cone with them all
  // has exactly that many rows. SQLite reads the pairs from the member index by name: for the GROUP BY it chose the
  // primary key, whose order needs no sort, and read the month's every pair (949 ms against 23 on the real month).
  const memberIndex = dialect === 'sqlite' ? sql`indexed by cone_members_member` : sql``;
  const conesHolding = (members: readonly number[], every: boolean) =>
    sql<boolean>`(a.date, a.asn) in (select cm.date, cm.asn from cone_members cm ${memberIndex}
      where ${monthsOf('cm.date')} and ${inValues(dialect, 'cm.member_asn', members, 'bigint')}
      ${every ? sql`group by cm.date, cm.asn having count(*) = ${members.length}` : sql``})`;
  if (filters.membersSome) query = query.where(conesHolding(filters.membersSome, false));
  if (filters.membersAll.length > 0) query = query.where(conesHolding(filters.membersAll, true));
  if (filters.prefixes.length > 0) {
    // A cone holds a prefix when one of the prefix's origins is among its members; several origins may be, so the
    // prefixes are counted distinct.
    query = query.where(
      sql<boolean>`(a.date, a.asn) in (select cm.date, cm.asn from ${wantedPrefixes(dialect, filters.prefixes)}
        join prefixes p on p.network = w.network and p.length = w.length
        join prefix_origins po on po.date = p.date and po.prefix_id = p.prefix_id
        join cone_members cm on cm.date = po.date and cm.member_asn = po.asn
        where ${monthsOf('p.date')}
        group by cm.date, cm.asn having count(distinct p.prefix_id) = ${filters.prefixes.length})`,
    );
  }
  return query;
}

builder.queryFields((t) => ({
  asnConesStream: t.field({
    type: StreamConnectionRef,
    description:
      'Customer cones as a paged depth-first walk (cone, its ASNs, its prefixes). Start with an empty pageCursor and pass nextPageCursor until hasNextPage is false. Cones are the seen ASNs of the latest month (or of `dates`), by rank unless `sort` says otherwise.',
    args: {
      asns: t.arg.stringList({ description: 'Only the cones of these ASNs.' }),
      asnMembers: t.arg.stringList({
        description: 'Only cones containing all of these ASNs (same as asnMembersAll).',
      }),
      asnMembersAll: t.arg.stringList({ description: 'Only cones containing all of these ASNs.' }),
      asnMembersSome: t.arg.stringList({ description: 'Only cones containing at least one of these ASNs.' }),
      prefixMembers: t.arg.stringList({
        description:
          'Only cones containing all of these prefixes (network/length; the network is read as an address, its host bits cleared, then matched exactly).',
      }),
      pageCursor: t.arg.string({ description: '"cone,asnIndex,prefixIndex"; empty for the start.' }),
      sort: t.arg.string({
        description: 'Order of cones: the keys of `asns` (default rank), "-" prefix for descending.',
      }),
      dates: t.arg.stringList({
        description: 'Months to walk (YYYY-MM-DD or YYYYMMDD); default the latest.',
      }),
      first: t.arg.int({
        description: `Items (member ASNs + prefixes) per page, 1 to ${MAX_CONE_STREAM_BUDGET}; default ${DEFAULT_CONE_STREAM_BUDGET}.`,
      }),
    },
    resolve: async (_root, args, context, info): Promise<StreamResult> => {
      const budget = parseBudget(args.first);
      const wanted = parseDateList(args.dates, 'dates');
      const historic = wanted !== null && wanted.length > 1;
      const keys = parseSort(args.sort, 'asns', { historic, argument: 'sort' });
      const filters: StreamFilters = {
        months: [],
        asns: parseAsnList(args.asns, 'asns'),
        membersAll: [
          ...new Set([
            ...(parseAsnList(args.asnMembers, 'asnMembers') ?? []),
            ...(parseAsnList(args.asnMembersAll, 'asnMembersAll') ?? []),
          ]),
        ],
        membersSome: parseAsnList(args.asnMembersSome, 'asnMembersSome'),
        // Each prefix once: the prefix filter counts the listed prefixes a cone holds.
        prefixes: [
          ...new Map(
            (args.prefixMembers ?? []).map((text) => {
              const { network, length } = parsePrefixText(text, 'prefixMembers');
              return [`${network}/${length}`, { network, length }] as const;
            }),
          ).values(),
        ],
        order: keys,
      };
      const available = await context.availableDates();
      filters.months =
        wanted === null ? available.slice(-1) : available.filter((month) => wanted.includes(month));
      /** Reads `chunkFilters`' cones in the order of `chunkKeys`, from position `offset` (chunks of the walk's cone list). */
      const coneChunkReader = (chunkFilters: StreamFilters, chunkKeys: readonly SortKey[]) => {
        // Several months: date ascending first (unless sorted), and the (date, asn) key keeps every cone distinct.
        // With `asns` the cones are a few key lookups: keep the ORDER BY off the (date, rank) index (see orderByList).
        const order = orderByList(context.dialect, chunkKeys, STREAM_SORT_COLUMNS, ASN_HISTORIC_ORDER, {
          keyLookup: chunkFilters.asns !== null,
        });
        // The sort column's value too, where a later chunk may continue after the last cone (seekingConeChunks).
        const seekColumn = coneSeekTerm(chunkKeys)?.column;
        const chunkOf = (values: ConesQueryValues, limit: unknown, offset: unknown) =>
          conesQuery(context, chunkFilters, values)
            .select(['a.date', 'a.asn', 'a.rank', 'a.cone_asns', 'a.cone_prefixes', 'a.number_cone_members'])
            .$if(seekColumn !== undefined, (query) =>
              query.select(sql.ref(`a.${seekColumn}`).as('sort_value')),
            )
            .orderBy(order)
            .limit(limit as number)
            .offset(offset as number);
        // With no member or prefix filter, every page's chunk is one statement compiled once per shape (the months, an
        // ASN list or none, the order), its values bound at each run, as the point lookups are (compiledLookups.ts):
        // building and compiling it with Kysely cost ~3% of the cone walk's CPU (W5, docs/performance.md, twenty-fourth
        // round). On PostgreSQL it runs named and planned once, its LIMIT written in (compiledLimit).
        const compiled =
          chunkFilters.membersSome === null &&
          chunkFilters.membersAll.length === 0 &&
          chunkFilters.prefixes.length === 0 &&
          (chunkFilters.asns === null || chunkFilters.asns.length > 0);
        const shape = `cone chunk|${chunkFilters.months.length === 1 ? 'month' : 'months'}|${
          chunkFilters.asns ? 'asns' : ''
        }|${sortKeysNamed(chunkKeys)}`;
        const values = conesQueryValues(context.dialect, chunkFilters);
        const {
          values: placeholderValues,
          limit: limitPlaceholder,
          offset: offsetPlaceholder,
        } = CONE_CHUNK_PLACEHOLDERS;
        return async (offset: number, limit: number): Promise<StreamCone[]> => {
          if (chunkFilters.months.length === 0) return [];
          const chunkLimit = compiled ? compiledLimit(context.dialect, limit, limitPlaceholder) : null;
          const rows = chunkLimit
            ? await context.compiled<ConeRow & { sort_value?: unknown }>(
                `${shape}${chunkLimit.shape}`,
                'asns',
                () => chunkOf(placeholderValues, chunkLimit.bound, offsetPlaceholder),
                // The ASN list's placeholder is bound only when the walk has one.
                [
                  placeholderValues.months,
                  placeholderValues.seen,
                  placeholderValues.asns,
                  limitPlaceholder,
                  offsetPlaceholder,
                ],
                [values.months, values.seen, values.asns, limit, offset],
              )
            : await chunkOf(values, limit, offset).execute();
          return rows.map((row) => streamCone(row, (row as { sort_value?: unknown }).sort_value));
        };
      };
      // Every cone of several months in an order that starts with the month: month by month (monthByMonth.ts).
      const unfiltered =
        filters.asns === null &&
        filters.membersSome === null &&
        filters.membersAll.length === 0 &&
        filters.prefixes.length === 0;
      // A month's cones are its seen ASNs, whose totals the `asns` list keeps too.
      const coneTotals = monthTotals(context, 'asns', { seen: true, name: undefined }, (month) =>
        context.db.selectFrom('asns').where('date', '=', month).where('seen', '=', 1),
      );
      let coneChunk: ConeChunk = coneChunkReader(filters, keys);
      const seekTerm = coneSeekTerm(keys);
      // One sort column other than the month: such an order never reads month by month.
      if (unfiltered && filters.months.length > 1 && seekTerm) {
        coneChunk = seekingConeChunks(context, filters.months, keys, seekTerm, coneChunk);
      } else if (unfiltered && readsMonthByMonth(filters.months, keys)) {
        const walk = monthWalkOf(filters.months, keys, { key: 'asn', direction: 'asc' });
        const readers = new Map<string, (offset: number, limit: number) => Promise<StreamCone[]>>();
        const readerOf = (month: string) => {
          let read = readers.get(month);
          if (!read) {
            read = coneChunkReader({ ...filters, months: [month], order: walk.monthKeys }, walk.monthKeys);
            readers.set(month, read);
          }
          return read;
        };
        coneChunk = (offset, limit) =>
          pageMonthByMonth(walk.months, limit, offset, coneTotals.of, (month, monthLimit, monthOffset) =>
            readerOf(month)(monthOffset, monthLimit),
          );
      }
      const page = await paginateConeStream(
        // The paginator consumes at most budget + 1 members or prefixes (one peek past a full page).
        coneStreamSource(
          {
            db: context.db,
            dialect: context.dialect,
            dataVersion: await context.dataVersion(),
            rows: rowsPerQuery(budget + 1),
          },
          // The filters and order name the cone list exactly (the months already resolved).
          JSON.stringify(filters),
          coneChunk,
          selectsAt(info, ['pages', 'prefixes']),
        ),
        args.pageCursor,
        budget,
      );
      return {
        page,
        totalCount: async () => {
          if (filters.months.length === 0) return 0;
          // Every cone of the months: the sum of the months' seen ASNs, each month's total kept.
          if (unfiltered) return coneTotals.sum(filters.months);
          const row = await conesQuery(context, filters)
            .select((eb) => eb.fn.countAll().as('total'))
            .executeTakeFirst();
          return Number(row?.total ?? 0);
        },
      };
    },
  }),
}));
