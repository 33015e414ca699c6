// AsnLink: a link between two ASNs in one month, seen from asn0; root fields `asnLink` and `asnLinks`.
import {
  ASN_LINK_COLUMNS,
  ASN_RELATIONSHIP_LINK_COUNTS,
  renamingObjectBuilder,
  type AsnLinksTable,
  type Database,
  type DialectName,
} from '@asrank/db';
import { LINK_RELATIONSHIPS, parseSort, type LinkRelationship, type SortKey } from '@asrank/domain';
import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { GraphQLResolveInfo } from 'graphql';
import { builder } from '../builder';
import type { AsnRow, AsrankContext, LocationRow } from '../context';
import { intervalOf, monthOf, monthsIn, pageOf, parseAsnArgument, parseAsnList } from '../args';
import { countRows, listTotal, monthListScope, monthTotals, type MonthTotals } from '../listTotals';
import {
  boundDateIn,
  boundList,
  byPrimaryKey,
  FAR_END_COLUMNS,
  dateIn,
  inValues,
  nullsLastPage,
  orderByList,
  sortKeysNamed,
  withOrderColumns,
  type SortColumn,
} from '../sql';
import { nestedPage, type NestedPageQuery, type ParentTotals } from '../nestedPages';
import type { PreparedKind } from '../compiledLookups';
import { monthOrderOf, monthWalkOf, pageMonthByMonth, readsMonthByMonth } from '../monthByMonth';
import { mergedArms, readsByMonthArms, servedByIndex } from '../monthArms';
import { connectionOf, type ConnectionPage } from './pageInfo';
import { AsnLinkRef, AsnRef } from './refs';
import { placeholderAsn } from './asn';
import { memberKey } from './asnCone';
import {
  type ConnectionNeeds,
  connectionNeeds,
  coversColumns,
  selectedAsnColumns,
  selectedAsnColumnsAt,
  selectedAsnLinkNodeColumns,
  isAsnKey,
  type AsnColumn,
  type AsnLinkColumn,
} from '../asnColumns';
import { LocationConnection, sortLocations } from './location';
import { monthBookmarks } from '../listPage';
import { bookmarkedKeyPage, termOrder, type SeekRange, type SeekTerm } from '../pageBookmarks';
import { compareByteOrder, monthsBookmarkStart, monthsPageAfter, plannedEachCall } from '../monthsBookmarks';

/** asn1's record read with the link by the list's own query, and the columns it carries (null: not in the month). */
export const JOINED_ASN1 = Symbol('asn1 record read with the link');
type AsnLinkRow = AsnLinksTable & {
  [JOINED_ASN1]?: { columns: readonly AsnColumn[]; record: AsnRow | null };
};

export const ASN_LINK_SORT_COLUMNS: Record<string, SortColumn> = {
  asn0: { column: 'asn0' },
  asn1: { column: 'asn1' },
  numberPaths: { column: 'number_paths', nullable: true },
  relationship: { column: 'relationship', text: true },
  correctedBy: { column: 'corrected_by', nullable: true },
  date: { column: 'date' },
  // Ingest ranks every link, so the plain order lets the (date, canonical, rank) index serve the default list.
  rank: { column: 'rank' },
};

/** Default order of links: by link rank (derived from the ends' ranks; unranked last), then the pair. */
const LINK_ORDER = {
  defaults: [{ key: 'rank', direction: 'asc' }],
  unique: [
    { key: 'asn0', direction: 'asc' },
    { key: 'asn1', direction: 'asc' },
  ],
} satisfies { defaults: SortKey[]; unique: SortKey[] };
/** A month's links by the pair (the order's tie-break, asn1 implied): how a block or a month of links is walked. */
const BY_PAIR_KEYS: readonly SortKey[] = [{ key: 'asn0', direction: 'asc' }];
/** One AS's links of one relationship in one month (a block) by the pair: asn1's order, asn0 the same throughout. */
const BLOCK_ORDER_KEYS: readonly SortKey[] = [{ key: 'asn1', direction: 'asc' }];
const LINK_HISTORIC_ORDER = {
  defaults: [{ key: 'date', direction: 'asc' }, ...LINK_ORDER.defaults],
  unique: [{ key: 'date', direction: 'asc' }, ...LINK_ORDER.unique],
} satisfies { defaults: SortKey[]; unique: SortKey[] };

export const linkPageTuning = {
  /** From this offset on, a link page reads its keys before its rows (see asnLinks); below it both take < 2 ms. */
  keyedPageMinOffset: 1000,
  /** A page over several months reads its keys first whatever its offset (off only to compare, in tests). */
  keyedOverSeveralMonths: true,
  /** Every link by asn1 first: keys from the links' reversed rows (off only to compare, in tests). */
  keysFromOtherEnd: true,
  /** Orders by correctedBy alone read the corrected links apart from the others (off only to compare, in tests). */
  splitByCorrection: true,
  /** Deep pages by relationship alone walk its blocks (relationshipBlocks; off only to compare, in tests). */
  relationshipBlocks: true,
  /** Pages by the pair read each relationship's links apart (pairRuns; off only to compare, in tests). */
  pairByRelationship: true,
  /**
   * Deep pages over several months by a nullable column alone read its links with a value, then the others month by
   * month (nullableColumnAlone; off only to compare, in tests).
   */
  nullsByMonth: true,
  /**
   * One AS's links by a nullable column alone read those with a value, then the others by the pair (off only to
   * compare, in tests).
   */
  oneAsnValuedApart: true,
  /**
   * Organizations' links by a nullable column alone cut each member's links with a value, then the others by the pair,
   * each from its index, on PostgreSQL (off only to compare, in tests).
   */
  organizationValuedApart: true,
  /** One AS's link totals read from the counts its rows keep, migration 020 (off only to compare, in tests). */
  keptAsnLinkCounts: true,
  /**
   * One AS's links or a list's over several months in an order that starts with the month, paged month by month from
   * each month's kept totals (keptAsnLinkMonthTotals), as every link is: sorted over all the months, a list of five
   * generated ASes' 205,000 links at offset 50,000 took 199 ms on PostgreSQL (off only to compare, in tests).
   */
  keptTotalsMonthByMonth: true,
  /**
   * One AS's links or a list's by relationship alone or then by the month, over several months or deep into one, walk
   * blocks of one AS's links of one relationship in one month, each block's size the count its row keeps (migration
   * 022), so a deep page skips whole blocks and reads its own from the AS's two ranges of that relationship. Merged from
   * every month's relationship arms, AS2503's 12 generated months took 30-60 ms at offset 0 and 60-280 ms at 50,000
   * (off only to compare, in tests).
   */
  keptRelationshipBlocks: true,
  /** ...for a list of at most this many ASes (each a block in every month and relationship). */
  keptRelationshipBlocksMaxAsns: 100,
  /**
   * ...and a page that spans at most this many blocks with links, each one statement (a round trip on PostgreSQL), and
   * one more per keptRelationshipLinksPerBlock links over the months: the arms' one statement costs more the more links
   * the ASes have. A small AS's first 100 links by `-relationship,date` start with a provider or two a month, and read
   * block by block took 12-18 ms against 8 from the arms; AS2503's (204,784 links), twelve blocks of one provider and
   * then its peers, 3.5 ms against 23-28 on SQLite, 9 against 43-46 on PostgreSQL. A block costs ~0.15 ms on SQLite
   * and ~0.35 on PostgreSQL, the arms ~0.2 ms more per 1,000 links: five large ASes (246,000 links) by `-relationship`,
   * 61 blocks, 5.9 ms against 38 on SQLite, 16 against 88 on PostgreSQL.
   */
  keptRelationshipBlocksPerPage: 8,
  keptRelationshipLinksPerBlock: 2_000,
  /**
   * ...and at least this many links over the months (the kept totals totalCount reads): below it one statement from the
   * arms is as fast, and the blocks' sizes cost a statement more, each block a round trip on PostgreSQL. The first 100
   * by relationship over 12 generated months, ten small ASes' 1,800 links: 4.1-4.2 ms from the arms against 5.3-6.7
   * by blocks on SQLite, 5.3-6.2 against 7.1-7.3 on PostgreSQL; five ASes' 3,625: even on SQLite, 5.9-6.2 against
   * 7.7-8.6 on PostgreSQL; one AS's 4,534: even; AS30733's 9,262: 10-13 -> 7-11 ms on PostgreSQL.
   */
  keptRelationshipBlocksFrom: 5000,
  /**
   * A nested `asnLinks` of one parent with asn1's fields read as the root's neighbour page, asn1 joined (off only to
   * compare, in tests).
   */
  nestedNeighbourPage: true,
  /**
   * One AS's page of one month by relationship, whatever the page selects of asn1 (its key alone, or nothing, too), and
   * a few parents' nested pages, merged from the eight index ranges of its relationships' rows (neighbourPage) instead
   * of its links sorted (off only to compare, in tests).
   */
  oneAsnRelationshipArms: true,
  /**
   * A list's nested links by relationship alone: each parent of relationshipRangesFrom links or more cuts its first
   * links from its eight relationship ranges (asnLinksPageQuery's cutRows) instead of sorting all of them. The real
   * month's 100 largest ASes' first 5 by relationship: 50 -> 23 ms on PostgreSQL, 20 -> 15 on SQLite (in process).
   * Below 64 links a parent's eight ranges cost more than its sort (100 ASes at rank 30,000: 3.7 -> 4.9 ms on SQLite,
   * 5.7 -> 9.3 on PostgreSQL, each ranged). Docs/performance.md, the seventy-fifth round.
   */
  parentRelationshipRanges: true,
  /**
   * On PostgreSQL, organizations' links by relationship alone: each member of relationshipRangesFrom links or more cuts
   * its first ones from its relationship ranges (organizationMemberLinks). The real month's 100 largest organizations'
   * first 5: 88-95 -> 65-70 ms, 1,000 organizations' first 2: 209-224 -> 164-180 (in process).
   */
  memberRelationshipRanges: true,
  /**
   * On PostgreSQL, organizations' links leave the organization where the far end is none of its members
   * (organizationMemberLinks), not where the far end's record names another organization (off only to compare).
   */
  memberAsnsApart: true,
  /**
   * A list's links of one month by relationship alone (`asnLinks(asns)`): each AS's first links from its relationship
   * ranges (asnLinks' listRangeKeys). The real month's five largest ASes' first 20: 5.6 -> 2.9 ms of PostgreSQL's
   * statement, 3.1 -> 1.5 ms in process on SQLite.
   */
  listRelationshipRanges: true,
  /**
   * ...where the list's ASNs times the page's end are at most this many: the ranges' first links, sorted again, grow
   * with both, and the arms' reads with neither. On PostgreSQL, the real month's 25 largest ASes' 20 at offset 500: 15
   * ms in arms, 20 in ranges; its 1,000 largest' first 20: 38 against 55; its 10 largest' 20 at offset 200: 10.3
   * against 5.8. SQLite's arms cost it less: the generated month's 10 largest' 20 at offset 200, 2.6 against 3.4.
   */
  listRelationshipRangeRows: { postgres: 2500, sqlite: 1000 } as Record<DialectName, number>,
  /**
   * A list's links of one month by ASN first: each listed AS's first links in the order, cut from its own ranges (by
   * asn1 its range of the primary key). PostgreSQL read a shallow page in one statement from the neighbour index for
   * its order by asn0, the list a filter, every link of the month (five generated ASes' first 100 by `asn0`: 116-174
   * ms; 30 ASes' at offset 500: 100 ms); the cuts read at most the list's own links. SQLite reads each AS's range
   * already.
   */
  listAsnCuts: { postgres: true, sqlite: false } as Record<DialectName, boolean>,
  /**
   * How many bookmark steps a month into the order deep pages by the pair still read a relationship at a time. Past
   * 4 steps PostgreSQL read the 12 generated months by `-asn0` whole in 280-610 ms (offsets 49,152-55,000), against
   * 25-38 a relationship at a time; past 8 (98,304) whole in 25-48. SQLite's months whole cost it 10-19 ms past 4.
   */
  pairPartsSteps: { postgres: 8, sqlite: 4 } as Record<DialectName, number>,
  relationshipRangesFrom: 64,
  /**
   * ...and on PostgreSQL at least this many times the links a page reads of each (its end): each range is read to the
   * page's end and every kept link then by its key, so a page deep into a parent's links cost its ranges more than its
   * sort (the real month's 30 largest ASes' 20 at offset 800: 55 ms sorted, 84 ranged; AS6939's 10 at offset 5,000: 12
   * -> 20 ms). SQLite's ranges beat its sort at every depth.
   */
  relationshipRangesPerEnd: 8,
  /**
   * One AS's page, and organizations' links, of one month by a nullable column alone read by the pair when no link of
   * the month has a value in it (unvaluedColumnOrder; off only to compare, in tests).
   */
  unvaluedByPair: true,
  /**
   * One AS's links over several months in an order of its (date, asn0, ...) indexes (isOneAsnIndexKey) merged from
   * the months' arms as a named statement on PostgreSQL (off only to compare, in tests).
   */
  oneAsnNamedMerge: true,
};

/**
 * A key whose order one AS's links of a month are read in from an index that starts with (date, asn0): the neighbour
 * index (005) by rank, the primary key by asn1 (either way). A month's arm of such an order is one range of that index
 * for any AS, so a plan kept for the statement serves every AS alike.
 */
function isOneAsnIndexKey(key: SortKey): boolean {
  return key.key === 'rank' || key.key === 'asn1' || key.key === 'asn0' || key.key === 'date';
}

export const AsnLinkConnection = connectionOf('AsnLink', AsnLinkRef, 'A page of AS links.');

AsnLinkRef.implement({
  description: 'A link between two ASNs in one month, described from asn0’s side.',
  fields: (t) => ({
    asn0: t.field({
      type: AsnRef,
      resolve: (link, _args, context, info) => {
        const columns = selectedAsnColumns(info);
        if (isAsnKey(columns)) return memberKey({ date: link.date, asn: Number(link.asn0) });
        return context
          .asnLoader(columns)
          .load({ date: link.date, id: Number(link.asn0) })
          .then((record) => record ?? placeholderAsn(link.date, Number(link.asn0)));
      },
    }),
    asn1: t.field({
      type: AsnRef,
      // Not async: when the list read asn1's record with the link, it is answered synchronously (a 500-link page
      // otherwise pays 500 loader promises, ~4 µs each under graphql-jit).
      resolve: (link: AsnLinkRow, _args, context, info) => {
        const columns = selectedAsnColumns(info);
        if (isAsnKey(columns)) return memberKey({ date: link.date, asn: Number(link.asn1) });
        const joined = link[JOINED_ASN1];
        if (joined && columns && coversColumns(joined.columns, columns))
          return joined.record ?? placeholderAsn(link.date, Number(link.asn1));
        return context
          .asnLoader(columns)
          .load({ date: link.date, id: Number(link.asn1) })
          .then((record) => record ?? placeholderAsn(link.date, Number(link.asn1)));
      },
    }),
    relationship: t.exposeString('relationship', {
      description:
        'Seen from asn0: "customer" (asn1 is asn0’s customer), "provider" (asn1 is asn0’s provider), "peer" or "sibling".',
    }),
    // Exposed (read inline by graphql-jit; schema/index.ts): the Int serializer turns PostgreSQL's bigint strings into
    // numbers.
    numberPaths: t.exposeInt('number_paths', {
      nullable: true,
      description: 'Number of observed paths over this link.',
    }),
    correctedBy: t.exposeInt('corrected_by', { nullable: true }),
    rank: t.exposeInt('rank', { nullable: true }),
    date: t.exposeString('date'),
    locations: t.field({
      type: LocationConnection,
      description: 'Where the link is observed (default order: locId).',
      args: {
        first: t.arg.int(),
        offset: t.arg.int(),
        sort: t.arg.string({
          description:
            'Comma-separated keys: locId, city, region, country, continent, population; "-" prefix for descending.',
        }),
      },
      resolve: async (link, args, context): Promise<ConnectionPage<LocationRow>> => {
        const page = pageOf(args);
        const keys = parseSort(args.sort, 'locations', { argument: 'sort' });
        const low = Math.min(Number(link.asn0), Number(link.asn1));
        const high = Math.max(Number(link.asn0), Number(link.asn1));
        // A link is seen in a handful of places: they are loaded together (batched) and ordered here.
        const all = sortLocations(
          await context.loaders.linkLocations.load({ date: link.date, id: `${low},${high}` }),
          keys,
        );
        return { nodes: all.slice(page.offset, page.offset + page.first), totalCount: all.length, ...page };
      },
    }),
  }),
});

/** The link sort columns qualified by the page's alias, for ordering the joined rows. */
const PAGE_SORT_COLUMNS = sortColumnsOf('page');

/** The link sort columns qualified by `alias`, for ordering rows read under it. */
function sortColumnsOf(alias: string): Record<string, SortColumn> {
  return Object.fromEntries(
    Object.entries(ASN_LINK_SORT_COLUMNS).map(([key, column]) => [
      key,
      { ...column, column: `${alias}.${column.column}` },
    ]),
  );
}

/** Bound in place of a compiled neighbour page's values (compiledLookups.ts); values its SQL never binds otherwise. */
const NEIGHBOUR_PAGE_PLACEHOLDERS = {
  month: '\u0000month',
  asn: '\u0000asn',
  limit: '\u0000limit',
  offset: '\u0000offset',
} as const;

/** Prefix of asn1's columns in the joined rows (no link column starts with it). */
const ASN1_PREFIX = 'asn1__';

/**
 * A page of links with asn1's `columns` read in the same statement: the page (sorted and cut by its own index-served
 * query) joined to asn1's records by primary key. One statement instead of the page plus a loader batch of up to
 * 500 keys through json_each: W3's 500 neighbours took 1.3 ms + 1.6 ms of SQL that way, 2.0 ms joined (SQLite); on
 * PostgreSQL it saves a round trip. Unrun: linkRowsWithAsn1 files its result.
 */
function linksWithAsn1Query(
  context: AsrankContext,
  pageQuery: SelectQueryBuilder<Database, 'asn_links', AsnLinksTable>,
  keys: readonly SortKey[],
  historic: boolean,
  columns: readonly AsnColumn[],
  lookupEachRow = false,
) {
  const page = context.db.selectFrom(pageQuery.as('page'));
  const joined = lookupEachRow
    ? // Each row's asn1 by its key, in a subquery PostgreSQL keeps apart (its LIMIT): a page read by its keys first
      // (`(date, asn0, asn1) in (...)`) was estimated at thousands of rows, and PostgreSQL hashed every ASN of the
      // month to join it (the real month's links by correctedBy or relationship: 19-24 ms a page, 20 of them that).
      page.leftJoinLateral(
        (eb) =>
          eb
            .selectFrom('asns as n')
            .select(columns.map((column) => sql.ref(`n.${column}`).as(column)))
            .whereRef('n.date', '=', 'page.date')
            .whereRef('n.asn', '=', 'page.asn1')
            .limit(1)
            .as('b'),
        (join) => join.onTrue(),
      )
    : page.leftJoin(byPrimaryKey(context.dialect, 'asns', 'b', columns), (join) =>
        join.onRef('b.date', '=', 'page.date').onRef('b.asn', '=', 'page.asn1'),
      );
  return joined
    .selectAll('page')
    .select(
      columns
        .filter((column) => column !== 'date')
        .map((column) => sql.ref(`b.${column}`).as(`${ASN1_PREFIX}${column}`)),
    )
    .orderBy(
      orderByList(context.dialect, keys, PAGE_SORT_COLUMNS, historic ? LINK_HISTORIC_ORDER : LINK_ORDER),
    );
}

/** Files asn1's record, read with each link (linksWithAsn1Query), under JOINED_ASN1; the rows stay the link rows. */
function linkRowsWithAsn1(rows: Record<string, unknown>[], columns: readonly AsnColumn[]): AsnLinkRow[] {
  // asn1's record: the link's month and asn1's columns out of their aliases.
  const asn1Record = renamingObjectBuilder([
    ['date', 'date'],
    ...columns
      .filter((column) => column !== 'date')
      .map((column) => [column, `${ASN1_PREFIX}${column}`] as const),
  ]);
  const asn1Key = `${ASN1_PREFIX}asn`;
  // The rows stay the link rows (their asn1__ columns are never read as link fields).
  return rows.map((row) => {
    const link = row as unknown as AsnLinkRow;
    const record = row[asn1Key] != null ? (asn1Record(row) as unknown as AsnRow) : null;
    link[JOINED_ASN1] = { columns, record };
    return link;
  });
}

/** linksWithAsn1Query run. */
async function linksWithAsn1(
  context: AsrankContext,
  pageQuery: SelectQueryBuilder<Database, 'asn_links', AsnLinksTable>,
  keys: readonly SortKey[],
  historic: boolean,
  columns: readonly AsnColumn[],
  preparedKind: PreparedKind | null,
  lookupEachRow = false,
): Promise<AsnLinkRow[]> {
  const query = linksWithAsn1Query(context, pageQuery, keys, historic, columns, lookupEachRow);
  // One ASN's neighbours in one month are planned alike for any ASN, month and page (its links sorted and cut, then
  // a key lookup per row), so PostgreSQL keeps the plan: planning took 1.9 ms of this statement's 6 ms (the asns
  // indexes to weigh); so are pages merged from arms (`occasional`). Other link lists are planned per call.
  const rows = (preparedKind
    ? await context.prepared(query, 'asn_links', preparedKind)
    : await query.execute()) as unknown as Record<string, unknown>[];
  return linkRowsWithAsn1(rows, columns);
}

/**
 * One AS's neighbours in one month, `limit` from `offset` in the order of `keys`, with asn1's `asn1Columns` read in the
 * same statement (the root `asnLinks(asn)` of W3 and S3, and a nested `asn(asn) { asnLinks }` of one parent). Its SQL
 * is compiled once per shape, the month, ASN and page bound at each run, as the point lookups are (compiledLookups.ts);
 * on PostgreSQL it runs as the named prepared statement of that text (its plan does not depend on the values).
 * `columns`: the link columns read, null for whole rows. `asn1Columns` empty: asn1 is not joined (its key alone is
 * read, or its loader reads its record), as for a page by relationship that any selection reads from this one's arms.
 */
async function neighbourPage(
  context: AsrankContext,
  page: { month: string; asn: number; limit: number; offset: number },
  keys: readonly SortKey[],
  historic: boolean,
  columns: readonly AsnLinkColumn[] | null,
  asn1Columns: readonly AsnColumn[],
  // Only the links with (or without) a value in a nullable column (valuedApartNeighbourPage).
  valuedIn?: { column: 'number_paths' | 'corrected_by'; valued: boolean },
  // By relationship, only that relationship's links (a block of keptRelationshipBlocks): its two ranges alone.
  onlyRelationship?: LinkRelationship,
): Promise<AsnLinkRow[]> {
  const placeholders = NEIGHBOUR_PAGE_PLACEHOLDERS;
  // One relationship's block of one AS and month is in asn1's order (the relationship, the AS and the month the same
  // throughout): PostgreSQL sorts what its two ranges read (its generic plan expects a few rows), and by the
  // relationship's text then the pair each comparison read all three (AS2503's latest month at offset 15,000: 24 ms of
  // the statement; 12.5 by the pair, whose asn0 always ties; 4.3 by asn1).
  const order = orderByList(
    context.dialect,
    onlyRelationship ? BLOCK_ORDER_KEYS : keys,
    ASN_LINK_SORT_COLUMNS,
    historic ? LINK_HISTORIC_ORDER : LINK_ORDER,
  );
  const valuedShape = valuedIn ? `|${valuedIn.column} ${valuedIn.valued ? 'valued' : 'null'}` : '';
  const relationshipShape = onlyRelationship ? `|only ${onlyRelationship}` : '';
  const rows = await context.compiled<Record<string, unknown>>(
    `neighbour page|${historic ? 'historic' : ''}|${sortKeysNamed(keys)}|${columns?.join(',') ?? '*'}|${asn1Columns.join(',')}${valuedShape}${relationshipShape}`,
    'asn_links',
    () => {
      const allOfAsn = context.db
        .selectFrom('asn_links')
        .where(boundDateIn(context.dialect, 'date', 1, placeholders.month))
        .where('asn0', '=', placeholders.asn as unknown as number);
      const ofAsn = valuedIn
        ? allOfAsn.where(valuedIn.column, valuedIn.valued ? 'is not' : 'is', null)
        : allOfAsn;
      const limit = placeholders.limit as unknown as number;
      const offset = placeholders.offset as unknown as number;
      // Without asn1's columns (its key alone, or a record its loader reads) the page is not joined.
      const withAsn1 = (pageQuery: SelectQueryBuilder<Database, 'asn_links', AsnLinksTable>) =>
        asn1Columns.length > 0
          ? linksWithAsn1Query(context, pageQuery, keys, historic, asn1Columns)
          : pageQuery;
      if (!historic && relationshipRuns(keys)[0] !== null) {
        // By relationship, each relationship's links of the AS are two ranges of the (date, canonical, relationship,
        // asn0, asn1) index, its canonical and its reversed rows, each in the order: merged, they stop at the page's
        // end. Read as one range of the AS, its links were sorted. The values are written in: the shape binds only
        // its placeholders. On SQLite the arms read the index's columns alone, the page's other columns then by its
        // keys: arms of whole rows made SQLite walk the AS's primary key range in each (the real month's AS3356, a
        // nested page of 10: 3.3 ms against 1.7 sorted). PostgreSQL reads each arm's range with its rows (keys then
        // rows, its generic plan of the join took 280 ms for AS2503's 500 with asn1's names).
        const pageColumns = columns ?? ASN_LINK_COLUMNS;
        const byKeys =
          context.dialect === 'sqlite' &&
          !pageColumns.every((column) => RELATIONSHIP_INDEX_COLUMNS.includes(column));
        const armColumns = byKeys ? RELATIONSHIP_INDEX_COLUMNS : pageColumns;
        const arms = relationshipRangesOf(
          ofAsn,
          armColumns,
          order,
          sql<number>`cast(${limit} as integer) + cast(${offset} as integer)` as unknown as number,
          onlyRelationship,
        );
        const merged = mergedArms(
          context.db,
          context.dialect,
          arms,
          armColumns.map((column) => ({ column, as: column })),
          order,
          limit,
          offset,
        );
        const pageRows = !byKeys
          ? merged
          : context.db
              .selectFrom(merged.as('keys'))
              .innerJoin('asn_links as row', (join) =>
                join
                  .onRef('row.date', '=', sql.ref('keys.date'))
                  .onRef('row.asn0', '=', sql.ref('keys.asn0'))
                  .onRef('row.asn1', '=', sql.ref('keys.asn1')),
              )
              .select(pageColumns.map((column) => sql.ref(`row.${column}`).as(column)))
              .orderBy(orderByList(context.dialect, keys, ROW_SORT_COLUMNS, LINK_ORDER));
        return withAsn1(pageRows as unknown as SelectQueryBuilder<Database, 'asn_links', AsnLinksTable>);
      }
      const links = ofAsn.orderBy(order).limit(limit).offset(offset);
      // The pruned rows carry exactly the columns the selected fields read, though typed as whole rows.
      const pageQuery = columns
        ? (links.select(columns) as unknown as ReturnType<typeof links.selectAll>)
        : links.selectAll();
      return withAsn1(pageQuery);
    },
    [placeholders.month, placeholders.asn, placeholders.limit, placeholders.offset],
    [page.month, page.asn, page.limit, page.offset],
  );
  return asn1Columns.length > 0 ? linkRowsWithAsn1(rows, asn1Columns) : (rows as unknown as AsnLinkRow[]);
}

/**
 * One AS's neighbours in one month by a nullable column alone (`keys`), asn1's `asn1Columns` joined: those with a
 * value in the order, then the others by the pair (for one AS, by asn1), each a compiled neighbour page of its own.
 * As a nested page of one parent it read the two stretches in one statement and asn1's records by their loader (the
 * real month's AS6939 by `numberPaths`: 8-14 ms on SQLite against 5 at the root).
 */
function valuedApartNeighbourPage(
  context: AsrankContext,
  page: { month: string; asn: number; first: number; offset: number },
  keys: readonly SortKey[],
  column: 'number_paths' | 'corrected_by',
  asn1Columns: readonly AsnColumn[],
): Promise<AsnLinkRow[]> {
  const { month, asn } = page;
  const stretch = (stretchKeys: readonly SortKey[], valued: boolean) => (limit: number, offset: number) =>
    neighbourPage(context, { month, asn, limit, offset }, stretchKeys, false, null, asn1Columns, {
      column,
      valued,
    });
  return nullsLastPage(page, {
    nonNull: stretch(keys, true),
    nulls: stretch([{ key: 'asn1', direction: 'asc' }], false),
    countNonNull: () =>
      countRows(
        context.db
          .selectFrom('asn_links')
          .where('date', '=', month)
          .where('asn0', '=', asn)
          .where(column, 'is not', null),
      ),
  });
}

/**
 * One AS's links of one month (`ofAsn`) as the eight ranges of the (date, canonical, relationship, asn0, asn1) index
 * that hold them (or `only` one relationship's two), each relationship's canonical and reversed rows: each range in
 * `order` (by relationship alone, then the pair), cut at `end`, each reading `columns`. The values are literals, so
 * that a compiled shape binds only its placeholders and each arm names its range to the planner.
 */
function relationshipRangesOf(
  ofAsn: SelectQueryBuilder<Database, 'asn_links', object>,
  columns: readonly AsnLinkColumn[],
  order: RawBuilder<unknown>,
  end: number,
  // Only this relationship's two ranges.
  only?: LinkRelationship,
): SelectQueryBuilder<Database, keyof Database, object>[] {
  const ranges = only
    ? RELATIONSHIP_RANGES.filter(({ relationship }) => relationship === only)
    : RELATIONSHIP_RANGES;
  return ranges.map(({ relationship, canonical }) =>
    ofAsn
      .where(sql<boolean>`${sql.ref('canonical')} = ${sql.lit(canonical)}`)
      .where(sql<boolean>`${sql.ref('relationship')} = ${sql.lit(relationship)}`)
      .select(columns)
      .orderBy(order)
      .limit(end),
  ) as unknown as SelectQueryBuilder<Database, keyof Database, object>[];
}

/**
 * One AS's (`asn0`) first `limit` links of `month` in `order` (`columns` of each), its links sorted; past `offset`
 * when given.
 */
function sortedLinksCut(
  columns: RawBuilder<unknown>,
  month: RawBuilder<unknown>,
  asn0: RawBuilder<unknown>,
  order: RawBuilder<unknown>,
  limit: RawBuilder<unknown>,
  offset?: RawBuilder<unknown>,
): RawBuilder<unknown> {
  return sql`select ${columns} from asn_links x where x.date = ${month} and x.asn0 = ${asn0}
    order by ${order} limit ${limit}${offset ? sql` offset ${offset}` : sql``}`;
}

/**
 * The keys and relationship of one AS's (`asn0`) first `limit` links of `month` in `order`, an order by relationship
 * alone: its eight ranges of the (date, canonical, relationship, asn0, asn1) index, each by asn1 and cut, their keys
 * then in the order and cut again (as relationshipRangesOf reads one AS's page). SQLite is told the index: with the AS
 * named by the outer row it read each range from the AS's range of the primary key, filtered.
 */
function relationshipRangesCut(
  dialect: DialectName,
  month: RawBuilder<unknown>,
  asn0: RawBuilder<unknown>,
  order: RawBuilder<unknown>,
  limit: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const index = dialect === 'sqlite' ? sql` indexed by asn_links_date_canonical_relationship` : sql``;
  const arms = RELATIONSHIP_RANGES.map(
    ({ relationship, canonical }, arm) =>
      sql`select * from (select x.date, x.asn0, x.asn1, x.relationship from asn_links x${index}
        where x.date = ${month} and x.asn0 = ${asn0} and x.canonical = ${sql.lit(canonical)}
          and x.relationship = ${sql.lit(relationship)} order by x.asn1 limit ${limit}) ${sql.raw(`arm_${arm}`)}`,
  );
  return sql`select k.* from (${sql.join(arms, sql` union all `)}) k order by ${order} limit ${limit}`;
}

/**
 * One AS's (`asn0`) first `limit` links of `month` (`columns` of each) by a nullable column alone (`column`), as two
 * cuts: those with a value from the AS's (date, asn0, column) range in the order (written without `nulls last`, which
 * lets PostgreSQL read the ascending index backwards, an Incremental Sort on asn1 within equal values), then those
 * without by the pair; the caller orders the two and cuts again.
 */
function valuedApartCut(
  dialect: DialectName,
  keys: readonly SortKey[],
  column: 'number_paths' | 'corrected_by',
  columns: RawBuilder<unknown>,
  month: RawBuilder<unknown>,
  asn0: RawBuilder<unknown>,
  limit: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const valued = sql.ref(`x.${column}`);
  const valuedOrder = orderByList(dialect, keys, ASN_LINK_SORT_COLUMNS, LINK_ORDER, { valuedOnly: true });
  return sql`select * from (select ${columns} from asn_links x where x.date = ${month} and x.asn0 = ${asn0}
      and ${valued} is not null order by ${valuedOrder} limit ${limit}) valued
    union all select * from (select ${columns} from asn_links x where x.date = ${month} and x.asn0 = ${asn0}
      and ${valued} is null order by x.asn1 limit ${limit}) unvalued`;
}

/**
 * `columns` of the links of `month` of each of `asns` (as `l`) that its own cut keeps, `cut` naming the AS: on
 * PostgreSQL the cut's rows, a LATERAL subquery per ASN; on SQLite the rows whose asn1 the cut lists, the list of an IN
 * on the primary key (SQLite has no LATERAL).
 */
function perAsnCuts(
  dialect: DialectName,
  month: string,
  asns: readonly number[],
  columns: RawBuilder<unknown>,
  cut: (asn0: RawBuilder<unknown>) => RawBuilder<unknown>,
): RawBuilder<unknown> {
  const list = boundList(dialect, asns, 'bigint');
  return dialect === 'postgres'
    ? sql`select ${columns} from unnest(${list}::bigint[]) p(asn) cross join lateral (${cut(sql`p.asn`)}) l`
    : sql`select ${columns} from json_each(${list}) p cross join asn_links l
        where l.date = ${month} and l.asn0 = p.value and l.asn1 in (${cut(sql`p.value`)})`;
}

/** The whole link rows of `keys`' links (date, asn0, asn1), each by its key. */
function linksByKey(keys: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`select l.* from (${keys}) k cross join asn_links l
    where l.date = k.date and l.asn0 = k.asn0 and l.asn1 = k.asn1`;
}

/** The eight ranges of the (date, canonical, relationship, asn0, asn1) index one AS's links of a month fall in. */
const RELATIONSHIP_RANGES = LINK_RELATIONSHIPS.flatMap((relationship) =>
  ([1, 0] as const).map((canonical) => ({ relationship, canonical })),
);

/** The columns of the (date, canonical, relationship, asn0, asn1) index. */
const RELATIONSHIP_INDEX_COLUMNS: readonly AsnLinkColumn[] = [
  'date',
  'asn0',
  'asn1',
  'relationship',
  'canonical',
];

/** The link sort columns qualified by the alias of rows read by their keys. */
const ROW_SORT_COLUMNS = sortColumnsOf('row');

/** An order of one month's links that bookmarks serve (pageBookmarks.ts), over the (asn0, asn1) key. */
interface LinkSeek {
  term: SeekTerm | null;
  /** With no term, the nullable column the range's links have no value in (SeekRange.nullLead). */
  nullLead?: SeekTerm;
  name: string;
  /** The term is rank, which the range does not exclude nulls of: check the month has none. */
  ranksOnly?: boolean;
}

/** The default order: link rank, then the pair. */
const BY_RANK: LinkSeek = { term: { column: 'rank', direction: 'asc' }, name: 'rank', ranksOnly: true };
/** `-numberPaths` over the links with a path count (migration 010's index declares it nulls last). */
const BY_PATHS_DESCENDING: LinkSeek = {
  term: { column: 'number_paths', direction: 'desc', nullsLast: true },
  name: 'paths desc',
};
/** `numberPaths` over the links with a path count (002's ascending index: nulls last on PostgreSQL, and none here). */
const BY_PATHS_ASCENDING: LinkSeek = {
  term: { column: 'number_paths', direction: 'asc' },
  name: 'paths asc',
};

/**
 * `asn0` then `asn1` ascending as `asn0` alone, which is the same order within one month (asn1 breaks asn0's ties
 * ascending either way) and one the months' bookmarks serve (linkMonthsSeek); other keys as they are.
 */
function withinOneMonth(keys: readonly SortKey[]): readonly SortKey[] {
  const [first, second, ...rest] = keys;
  return first?.key === 'asn0' && second?.key === 'asn1' && second.direction === 'asc' && rest.length === 0
    ? [first]
    : keys;
}
/** The links without a value of a nullable column, by the pair (nullableColumnAlone's second part, a month at a time). */
const BY_PAIR_WITHOUT: Record<'number_paths' | 'corrected_by', LinkSeek> = {
  // Each read from the column's (date, canonical, column, asn0, asn1) index, which holds the nulls last.
  number_paths: { term: null, nullLead: { column: 'number_paths', direction: 'asc' }, name: 'pair' },
  corrected_by: {
    term: null,
    nullLead: { column: 'corrected_by', direction: 'asc' },
    name: 'pair, uncorrected',
  },
};

/** One relationship's links by the pair (a block of relationshipBlocks); the name keeps each block's bookmarks apart. */
function byPairWithin(relationship: LinkRelationship): LinkSeek {
  return { term: null, name: `pair, ${relationship}` };
}

/**
 * The (date, asn0, asn1) of a deep page of one month's links in a `seek` order, from bookmarks, or null where they
 * cannot serve it. Ranks are compared, so in rank order a month with an unranked link keeps the plain OFFSET, which
 * places nulls as each dialect does. Loads rank every link, but a month imported from JSON lines before
 * `import-jsonl` ranked them may not.
 */
async function bookmarkedLinkKeys(
  context: AsrankContext,
  links: SelectQueryBuilder<Database, 'asn_links', object>,
  months: readonly string[],
  seek: LinkSeek,
  page: { limit: number; offset: number },
) {
  const bookmarks = monthBookmarks(context, months, {});
  if (!bookmarks || page.offset < bookmarks.cache.linkStep) return null;
  const scope = `${await bookmarks.scope()}\u0000asn_links\u0000${seek.name}`;
  // One probe of the (date, canonical, rank) index, until the order holds bookmarks: they exist only once a probe of
  // the same data version found no unranked link.
  if (seek.ranksOnly && !bookmarks.cache.holds(scope)) {
    const unranked = await links
      .select(sql`1`.as('one'))
      .where('rank', 'is', null)
      .limit(1)
      .executeTakeFirst();
    if (unranked) return null;
  }
  return bookmarkedKeyPage(
    {
      db: context.db,
      dialect: context.dialect,
      range: links,
      keyColumns: ['asn0', 'asn1'],
      term: seek.term,
      nullLead: seek.nullLead,
      bookmarks: bookmarks.cache,
      step: bookmarks.cache.linkStep,
      scope,
    },
    page.limit,
    page.offset,
  );
}

/**
 * An order of every link over several months that each month's bookmarks serve merged (monthsBookmarks.ts): its sort
 * column and the month's key after it, or null. By asn0 ascending (asn1 from the reversed rows, otherEndOrder) each
 * month's primary key hands a hop its links in the order. By asn0 descending, asn1 still ascends within each AS against
 * the index, so a hop sorts each AS's links: PostgreSQL does that as it goes (an Incremental Sort; its bookmarks are
 * read numbering each month once), SQLite at 0.94 ms a hop of 1,024 links against 0.14 (12 months' bookmarks: ~5.5 s),
 * so there a month's bookmarks come from each AS's count of links (`countedByValue`, pageBookmarks.ts). Relationship
 * orders walk their blocks instead (relationshipBlocks). By `numberPaths` among the links with a count
 * (`withCountedPaths`, nullableColumnAlone) each month's index serves either way.
 */
function linkMonthsSeek(
  keys: readonly SortKey[],
  dialect: DialectName,
  withCountedPaths: boolean,
): { term: SeekTerm; keyColumns: string[]; name: string } | null {
  const [only] = keys;
  if (keys.length !== 1) return null;
  const { direction } = only!;
  // Among links with a path count (nullableColumnAlone), by it: the (date, canonical, number_paths, asn0, asn1)
  // indexes, the descending one declared nulls last (migration 010), as BY_PATHS_DESCENDING reads it.
  if (only!.key === 'numberPaths' && withCountedPaths)
    return {
      term: { column: 'number_paths', direction, nullsLast: direction === 'desc' ? true : undefined },
      keyColumns: ['asn0', 'asn1'],
      name: `counted paths ${direction}`,
    };
  if (only!.key !== 'asn0') return null;
  const countedByValue = direction === 'desc' && dialect === 'sqlite' ? true : undefined;
  return {
    term: { column: 'asn0', direction, countedByValue },
    keyColumns: ['asn1'],
    name: `asn0 ${direction}`,
  };
}

/**
 * Each ASN's records in the month's list of every link by asn0 (its canonical rows, or with `reversed` its reversed
 * ones), as the ASNs' rows keep them (migration 024), with the count of each; null when they do not add up to the
 * month's links, `listedLinks` (a link whose lesser end has no record of the month, as a JSON-lines import may leave
 * one, or a PostgreSQL month loaded before 024).
 */
async function keptLinkEndCounts(
  context: AsrankContext,
  month: string,
  reversed: boolean,
  listedLinks: number,
): Promise<{ value: number; n: number }[] | null> {
  const counted = reversed
    ? sql<number>`${sql.ref('number_asn_links')} - ${sql.ref('number_canonical_links')}`
    : sql<number>`${sql.ref('number_canonical_links')}`;
  const rows = await context.db
    .selectFrom('asns')
    .select([sql.ref('asn').as('value'), counted.as('n')])
    .where('date', '=', month)
    .where(counted, '>', 0)
    .execute();
  const counts = rows.map((row) => ({ value: Number(row.value), n: Number(row.n) }));
  let kept = 0;
  for (const { n } of counts) kept += n;
  return kept === listedLinks ? counts : null;
}

/** True when the client's sort is `numberPaths` or `-numberPaths` alone (the pair that breaks ties is implied). */
function isPathsAlone(keys: readonly SortKey[]): boolean {
  return keys.length === 1 && keys[0]!.key === 'numberPaths';
}

/** True when the client's sort is `correctedBy` or `-correctedBy` alone. */
function isCorrectionOnly(keys: readonly SortKey[]): boolean {
  return keys.length === 1 && keys[0]!.key === 'correctedBy';
}

/** The keys whose values a link's two rows share; its relationship is seen from the other end (customer/provider). */
const KEYS_SHARED_BY_BOTH_ROWS = new Set(['asn0', 'asn1', 'numberPaths', 'correctedBy', 'date', 'rank']);

/** A sort key seen from the link's other end: asn0 and asn1 trade places. */
function fromOtherEnd(key: SortKey): SortKey {
  const other = key.key === 'asn0' ? 'asn1' : key.key === 'asn1' ? 'asn0' : key.key;
  return { key: other, direction: key.direction };
}

/**
 * Every link is stored twice: once with asn0 < asn1 (`canonical`, the rows a list of every link shows) and once
 * reversed, with the same paths, correction and rank (the ingest's build and import-jsonl write both). No index serves
 * every link in an order that starts with asn1, and a month's first page by asn1 sorted all its links (100 ms a
 * generated month, 0.75-1.2 s over 12); it is the reversed rows' order by asn0, which the primary key (date, asn0,
 * asn1) serves. The order of the reversed rows that stands for `keys` (with the tie-breaks of `order`), or null when
 * `keys` do not start with asn1 or use a key the two rows do not share.
 */
function otherEndOrder(
  keys: readonly SortKey[],
  order: { defaults: readonly SortKey[]; unique: readonly SortKey[] },
): { keys: SortKey[]; order: { defaults: SortKey[]; unique: SortKey[] } } | null {
  if (keys[0]?.key !== 'asn1' || !keys.every((key) => KEYS_SHARED_BY_BOTH_ROWS.has(key.key))) return null;
  return {
    keys: keys.map(fromOtherEnd),
    order: { defaults: order.defaults.map(fromOtherEnd), unique: order.unique.map(fromOtherEnd) },
  };
}

/**
 * The relationships a page's arms read apart when it is sorted by `keys` ([null]: none). By relationship alone, one
 * arm per month and relationship (the loads write no other) reads the (date, canonical, relationship, asn0, asn1)
 * index whichever way the relationship runs: `-relationship` breaks its ties ascending, and one arm per month sorted
 * each relationship's links (0.55 s over 12 generated months; one month on PostgreSQL 0.2-0.4 s). Not with more keys:
 * an arm that another index serves in the rest of the order walks it for its relationship, and a relationship the
 * month lacks (generated months have no siblings) walks the whole month (`-relationship,-numberPaths`: 4.4 s).
 */
function relationshipRuns(keys: readonly SortKey[]): readonly (LinkRelationship | null)[] {
  return keys.length === 1 && keys[0]!.key === 'relationship' ? LINK_RELATIONSHIPS : [null];
}

/**
 * The relationships a page by `asn0` alone reads apart where the primary key runs against its rows, or null. That key
 * (date, asn0, asn1) holds both rows of every link: the highest ASNs' rows are nearly all reversed (their other end is
 * lower), the lowest ASNs' nearly all canonical. So a month's canonical rows by `-asn0` walk the reversed ones, and its
 * reversed rows by `asn0` (a page by `asn1`, otherEndOrder) the canonical ones: the first 100 walked ~30,000 index
 * entries (SQLite: 1.5 ms a month, 18 ms over 12 generated months). Each relationship's range of the (date, canonical,
 * relationship, asn0, asn1) index holds one kind of row (0.4 ms a month for the three). The other two directions find
 * their rows at once in the primary key, and read it.
 */
function pairRuns(keys: readonly SortKey[], reversedRows: boolean): readonly LinkRelationship[] | null {
  const [only] = keys;
  return linkPageTuning.pairByRelationship &&
    keys.length === 1 &&
    only!.key === 'asn0' &&
    only!.direction === (reversedRows ? 'asc' : 'desc')
    ? LINK_RELATIONSHIPS
    : null;
}

/**
 * Every link of `months` by relationship alone (or then by the month), as its blocks in the order: each relationship
 * (in byte order, as the database orders text), and within it each month (ascending unless the order says
 * `-date`), whose links follow by the pair. A block is one range of the (date, canonical, relationship, asn0, asn1)
 * index, and its total is kept per data version (listTotals.ts), so a deep page skips whole blocks by their totals and
 * walks only into its own. In one statement, a deep page by `-relationship` sorted every link of the months (12
 * generated months at offset 4,848,684: 8-15 s; one PostgreSQL month at 408,096: 1.3-1.5 s), its ties breaking
 * ascending against the index's descent; by `relationship,-date` at 50,000, 0.45 s on SQLite and 3.9 on PostgreSQL.
 * Null when the order is not by relationship alone or then by the month.
 */
function relationshipBlocks(
  keys: readonly SortKey[],
  months: readonly string[],
): { relationship: LinkRelationship; month: string }[] | null {
  const [first, second, ...rest] = keys;
  if (
    first?.key !== 'relationship' ||
    (second !== undefined && second.key !== 'date') ||
    rest.length > 0 ||
    !linkPageTuning.relationshipBlocks
  )
    return null;
  const relationships = [...LINK_RELATIONSHIPS].sort(compareByteOrder);
  if (first.direction === 'desc') relationships.reverse();
  const inOrder = [...months].sort();
  if (second?.direction === 'desc') inOrder.reverse();
  return relationships.flatMap((relationship) => inOrder.map((month) => ({ relationship, month })));
}

/**
 * The column of a sort by one nullable column alone (`numberPaths`, `correctedBy`), whose nulls sort last either way:
 * over several months its links with a value come first, then the others by month and pair. One statement walked or
 * sorted every link before a deep page (12 generated months, whose path counts are all null, at offset 4,848,684:
 * 1.9-6.4 s). Null otherwise, or when linkPageTuning.nullsByMonth is off.
 */
function nullableColumnAlone(keys: readonly SortKey[]): 'number_paths' | 'corrected_by' | null {
  return linkPageTuning.nullsByMonth ? nullableSortColumn(keys) : null;
}

/** The column of a sort by one nullable column alone (`numberPaths`, `correctedBy`), or null. */
function nullableSortColumn(keys: readonly SortKey[]): 'number_paths' | 'corrected_by' | null {
  if (keys.length !== 1) return null;
  const key = keys[0]!.key;
  return key === 'numberPaths' ? 'number_paths' : key === 'correctedBy' ? 'corrected_by' : null;
}

/** The order of the reversed rows (otherEndOrder) and its SQL. */
type OtherEndOrder = NonNullable<ReturnType<typeof otherEndOrder>> & { sql: RawBuilder<unknown> };

/** A link's key, as a merge of month arms selects it. */
const LINK_KEY_COLUMNS = ['date', 'asn0', 'asn1'].map((column) => ({ column, as: column }));

/** A link's key read from its reversed row: its ends traded back. */
const KEY_FROM_OTHER_END = { asn0: 'asn1 as asn0', asn1: 'asn0 as asn1' } as const;

/** Links of many ASNs (Asn.asnLinks), one query per batch (nestedPages.ts); asn0 is always the parent ASN. */
export function asnLinksOfAsns(
  context: AsrankContext,
  date: string,
  page: { first: number; offset: number },
  sort: string | null | undefined,
  needs: ConnectionNeeds,
  // asn1's columns the nodes show (selectedAsnColumnsAt): null for whole records, undefined for none.
  asn1Columns: readonly AsnColumn[] | null | undefined = null,
) {
  const keys = parseSort(sort, 'asnLinks', { argument: 'sort' });
  const pageQuery = (keys: readonly SortKey[]) => asnLinksPageQuery(context, date, page, keys, asn1Columns);
  return nestedPage<number, AsnLinkRow>(
    context,
    `asnLinks|${date}|${sort ?? ''}|${asn1Columns === null ? '*' : (asn1Columns?.join(',') ?? '')}`,
    page,
    nullableSortColumn(keys)
      ? async () => pageQuery(await oneAsnOrder(context, keys, date))
      : () => pageQuery(keys),
    asnLinkTotals(context, date),
    needs,
  );
}

/**
 * Of `parents`, those with enough links in `date` (as their rows keep them, migration 020) for a page ending at link
 * `end` (rangedLinksFrom): the parents whose first links by relationship come from their relationships' ranges
 * (asnLinksPageQuery's cutRows).
 */
async function parentsOfManyLinks(
  context: AsrankContext,
  date: string,
  parents: readonly number[],
  end: number,
): Promise<ReadonlySet<number>> {
  const rows = await context.db
    .selectFrom('asns')
    .select('asn')
    .where('date', '=', date)
    .where(inValues(context.dialect, 'asn', parents, 'bigint'))
    .where('number_asn_links', '>=', rangedLinksFrom(context.dialect, end))
    .execute();
  return new Set(rows.map((row) => Number(row.asn)));
}

/** The least links of an AS whose first `end` by relationship are read from its relationships' ranges. */
function rangedLinksFrom(dialect: DialectName, end: number): number {
  const perEnd = dialect === 'postgres' ? linkPageTuning.relationshipRangesPerEnd * end : 0;
  return Math.max(linkPageTuning.relationshipRangesFrom, perEnd);
}

/**
 * The order of one AS's links in `month` by `keys`: by a nullable column alone (`numberPaths`, `correctedBy`) when no
 * link of the month has a value in it, the order of its neighbours (`asn1`), which it then is. Loads write no
 * correction, so a page by `correctedBy` read the AS's every link for those with a value (AS2503's 18,037: 16 ms on
 * SQLite) and then its links by the pair; by `asn1` the page is the compiled neighbour page.
 */
function oneAsnOrder(
  context: AsrankContext,
  keys: readonly SortKey[],
  month: string,
): Promise<readonly SortKey[]> {
  return unvaluedColumnOrder(context, keys, month, [{ key: 'asn1', direction: 'asc' }]);
}

/**
 * `keys`, or `byPair` (the order's own tie-break) when `keys` is a nullable column alone (`numberPaths`,
 * `correctedBy`) and no link of `month` has a value in it: every link then ties on it, and the tie-break is what an
 * index range serves.
 */
async function unvaluedColumnOrder(
  context: AsrankContext,
  keys: readonly SortKey[],
  month: string,
  byPair: readonly SortKey[],
): Promise<readonly SortKey[]> {
  const column = nullableSortColumn(keys);
  if (!column || !linkPageTuning.unvaluedByPair) return keys;
  const valued = await valuedLinkTotals(context, column).of(month);
  return valued === 0 ? byPair : keys;
}

/**
 * The links of each month with a value in `column`, counted on their canonical rows (a link's two rows carry the same
 * values) and kept per data version as a month's list totals are (monthTotals).
 */
function valuedLinkTotals(context: AsrankContext, column: 'number_paths' | 'corrected_by'): MonthTotals {
  return monthTotals(context, 'asn_links', { [column]: 'valued' }, (month) =>
    context.db
      .selectFrom('asn_links')
      .where(dateIn(context.dialect, 'date', [month]))
      .where('canonical', '=', 1)
      .where(column, 'is not', null),
  );
}

/** The nested link page's query of asnLinksOfAsns, in the order of `keys`. */
function asnLinksPageQuery(
  context: AsrankContext,
  date: string,
  page: { first: number; offset: number },
  keys: readonly SortKey[],
  asn1Columns: readonly AsnColumn[] | null | undefined,
): NestedPageQuery<number, AsnLinkRow> {
  const order = orderByList(context.dialect, keys, ASN_LINK_SORT_COLUMNS, LINK_ORDER);
  // By relationship alone, the parents of relationshipRangesFrom links or more cut their first links from their
  // relationships' ranges (cutRows).
  const byRelationshipRanges = linkPageTuning.parentRelationshipRanges && relationshipRuns(keys)[0] !== null;
  const linksOfAsn = (asn: number) =>
    context.db
      .selectFrom('asn_links')
      .selectAll()
      .select('asn0 as parent_key')
      .where('date', '=', date)
      .where(sql<boolean>`asn0 = ${asn}`);
  // By a nullable column alone, as asnLinks(asn) reads one AS's links (oneAsnValuedApart): those with a value, then
  // the others by the pair, each cut by its index (SQLite sorted all 18,037 links of a generated AS for `-numberPaths`).
  const nullable = linkPageTuning.oneAsnValuedApart ? nullableSortColumn(keys) : null;
  const parentRows =
    nullable &&
    ((asn: number, end: number) =>
      context.db
        .selectFrom(linksOfAsn(asn).where(nullable, 'is not', null).orderBy(order).limit(end).as('valued'))
        .selectAll()
        .unionAll(
          context.db
            .selectFrom(
              linksOfAsn(asn)
                .where(nullable, 'is', null)
                .orderBy('asn0')
                .orderBy('asn1')
                .limit(end)
                .as('unvalued'),
            )
            .selectAll(),
        ));
  // One parent's shallow page with asn1's fields, as the root `asnLinks(asn)` reads it: the compiled neighbour page,
  // asn1's records joined in the same statement. Read as a nested page, asn1's 500 records came by a second statement
  // and 500 loads (AS2503's 500 neighbours: about twice the root list's time).
  const joinedAsn1 =
    linkPageTuning.nestedNeighbourPage &&
    asn1Columns &&
    !isAsnKey(asn1Columns) &&
    page.offset < linkPageTuning.keyedPageMinOffset
      ? asn1Columns
      : null;
  const neighbourColumns = nullable ? null : joinedAsn1;
  // By relationship, one parent's page merges its relationships' index ranges (neighbourPage) whatever it selects of
  // asn1, and on SQLite a few parents' pages cut each range (parentRows): read as one range of the AS, its links were
  // sorted (AS2503's 18,037 for a page of 10: 14 ms on SQLite).
  const byRelationshipArms = linkPageTuning.oneAsnRelationshipArms && relationshipRuns(keys)[0] !== null;
  const singleParentPage =
    nullable && joinedAsn1
      ? (asn: number) =>
          valuedApartNeighbourPage(context, { month: date, asn, ...page }, keys, nullable, joinedAsn1)
      : (neighbourColumns || (byRelationshipArms && page.offset < linkPageTuning.keyedPageMinOffset)) &&
        ((asn: number) =>
          neighbourPage(
            context,
            { month: date, asn, limit: page.first, offset: page.offset },
            keys,
            false,
            null,
            neighbourColumns ?? [],
          ));
  // On SQLite, each relationship's canonical and reversed rows of the parent cut by their index (as neighbourPage's
  // arms), its columns alone, the rows then by their keys: four parents of the generated month's busiest by
  // relationship, 13 ms sorted, 3.6 so. Not on PostgreSQL, which plans the parents' arms at each call (the real
  // month: 5.9 ms sorted, 9.4 in arms). Written as SQL text: built afresh for each batch, Kysely's builder took
  // 0.4-0.5 ms for four parents' 32 arms (0.07 ms this way).
  const relationshipRows =
    byRelationshipArms &&
    context.dialect === 'sqlite' &&
    ((asn: number, end: number) => {
      const cut = relationshipRangesCut(
        context.dialect,
        sql`${date}`,
        sql`${asn}`,
        order,
        sql`cast(${end} as integer)`,
      );
      return sql`(select row.*, row.asn0 as parent_key from (${linksByKey(cut)}) row)`;
    });
  // Descending by a nullable column alone on PostgreSQL, each parent's links with a value cut from its own range, then
  // those without by the pair, as organizations' members' are (valuedApartCut): sorted, every link of each parent was
  // read (the real month's 100 largest ASes by `-numberPaths`: 80,500 links, 31 of the statement's 33 ms). Ascending,
  // the least counts' ties are long, and a cut reads each whole for its order by asn1: the first 1,000 ASes' first 5 by
  // `numberPaths` read 146 -> 158 ms so.
  const valuedApart = context.dialect === 'postgres' && keys[0]?.direction === 'desc' ? nullable : null;
  // Each parent's links sorted and cut at `limit` (from `offset` when given), `parent_key` beside them.
  const sortedCuts = (parents: readonly number[], limit: RawBuilder<unknown>, offset?: RawBuilder<unknown>) =>
    perAsnCuts(context.dialect, date, parents, sql`l.*, l.asn0 as parent_key`, (parent) =>
      sortedLinksCut(
        context.dialect === 'postgres' ? sql`x.*` : sql`x.asn1`,
        sql`${date}`,
        parent,
        order,
        limit,
        offset,
      ),
    );
  return {
    partitionColumn: 'parent_key',
    order,
    // One ASN's links are a range of the (date, asn0, ...) indexes, the neighbour index in the default order.
    perParentPages: true,
    // One parent's rows (the per-parent form) by an equality, so its order comes from the index instead of a sort.
    // Here and not in inValues: other relations' single-key lists would then tempt SQLite into walking an order's
    // index over the whole month (an organization's members by rank: 75-83 ms instead of 1.6 ms).
    rows: (asns) =>
      asns.length === 1
        ? linksOfAsn(asns[0]!)
        : context.db
            .selectFrom('asn_links')
            .selectAll()
            .select('asn0 as parent_key')
            .where('date', '=', date)
            .where(inValues(context.dialect, 'asn0', asns, 'bigint')),
    ...(parentRows ? { parentRows } : relationshipRows ? { parentRows: relationshipRows } : {}),
    ...(singleParentPage ? { singleParentPage } : {}),
    // Past the first page, each parent's page alone, cut as below (not by relationship, nor where its cuts read
    // stretches, valuedApart).
    ...(!byRelationshipRanges && !valuedApart
      ? {
          cutPages: (asns: number[], { first, offset }: { first: number; offset: number }) =>
            sql`(${sortedCuts(asns, sql`cast(${first} as integer)`, sql`cast(${offset} as integer)`)})`,
        }
      : {}),
    // Each parent's first links in the order, by its range of an index that serves it or sorted alone: SQLite drives
    // each parent's cut as the list of an IN on the primary key, PostgreSQL as a LATERAL subquery. Ranked together,
    // every link of the 1,000 largest ASes of the generated month took 630 ms on SQLite for their first link each.
    cutRows: (asns, end) => {
      const endLimit = sql`cast(${end} as integer)`;
      // A parent of many links by relationship: its first `end` of each of its eight ranges of the (date, canonical,
      // relationship, asn0, asn1) index, their keys then in the order and cut (relationshipRangesOf): sorted, every
      // link of each was read (the real month's 100 largest ASes' 80,500 links, 41 of PostgreSQL's 42 ms).
      const rangesCut = (parent: RawBuilder<unknown>) =>
        relationshipRangesCut(context.dialect, sql`${date}`, parent, order, endLimit);
      const ofParents = (parents: readonly number[], ranged: boolean) =>
        !ranged && !valuedApart
          ? sortedCuts(parents, endLimit)
          : perAsnCuts(context.dialect, date, parents, sql`l.*, l.asn0 as parent_key`, (parent) =>
              context.dialect === 'postgres'
                ? ranged
                  ? linksByKey(rangesCut(parent))
                  : valuedApartCut(
                      context.dialect,
                      keys,
                      valuedApart!,
                      sql`x.*`,
                      sql`${date}`,
                      parent,
                      endLimit,
                    )
                : sql`select k.asn1 from (${rangesCut(parent)}) k`,
            );
      // One parent's page is here only deep into its links (a shallow one is the root's), past where its ranges pay
      // on PostgreSQL (relationshipRangesPerEnd) and on SQLite read per parent: sorted without reading its count.
      if (!byRelationshipRanges || asns.length === 1) return sql`(${ofParents(asns, false)})`;
      // By relationship, the parents of many links are read first (parentsOfManyLinks), and only by a batch that takes
      // these cuts (a few parents on SQLite come per parent instead). Chosen in the statement by each parent's count
      // (each arm gated by it, as organizations' members' are), the round trip was saved but PostgreSQL planned every
      // batch's eight ranges: 100 ASes of a few links, 0.3 -> 2.1 ms of planning and 0.9 -> 2.9 of execution.
      return parentsOfManyLinks(context, date, asns, end).then((rangedParents) => {
        const ranged = asns.filter((asn) => rangedParents.has(asn));
        const sorted = asns.filter((asn) => !rangedParents.has(asn));
        const parts = [
          ...(sorted.length > 0 ? [ofParents(sorted, false)] : []),
          ...(ranged.length > 0 ? [ofParents(ranged, true)] : []),
        ];
        return sql`(${sql.join(parts, sql` union all `)})`;
      });
    },
  };
}

/** Each of `asns`' links in `date` (Asn.asnLinks' totals), as their rows keep them (linkPageTuning.keptAsnLinkCounts). */
function asnLinkTotals(context: AsrankContext, date: string): ParentTotals<number> {
  const counted = (asns: readonly number[]) =>
    context.db
      .selectFrom('asn_links')
      .select(['asn0 as parent_key', (eb) => eb.fn.countAll().as('total')])
      .where('date', '=', date)
      .where(inValues(context.dialect, 'asn0', asns, 'bigint'))
      .groupBy('asn0');
  return linkPageTuning.keptAsnLinkCounts
    ? { kept: true, counts: (asns) => keptAsnLinkCounts(context, date, asns, counted) }
    : { kept: false, counts: counted };
}

/**
 * The links of each of `asns` in `date` (their `asnLinks` totals) by `parent_key`: the counts their rows keep
 * (migration 020); an ASN without a row that month (a link's far end alone, as a JSON-lines import may leave one) has
 * its links `counted`. Counting read every link of each parent: a large generated AS's 18,037 a month.
 */
function keptAsnLinkCounts(
  context: AsrankContext,
  date: string,
  asns: readonly number[],
  counted: (asns: readonly number[]) => { execute(): Promise<{ parent_key: unknown; total: unknown }[]> },
) {
  return {
    async execute(): Promise<{ parent_key: unknown; total: unknown }[]> {
      const kept = await context.db
        .selectFrom('asns')
        .select(['asn as parent_key', 'number_asn_links as total'])
        .where('date', '=', date)
        .where(inValues(context.dialect, 'asn', asns, 'bigint'))
        .execute();
      if (kept.length === asns.length) return kept;
      const withRows = new Set(kept.map((row) => Number(row.parent_key)));
      return [...kept, ...(await counted(asns.filter((asn) => !withRows.has(asn))).execute())];
    },
  };
}

/**
 * The links of `asns` (one AS, or a list's distinct ASNs) in each of `months` (`asnLinks(asn)`'s and `asnLinks(asns)`'s
 * totalCount is their sum), in one statement: each ASN's count its row of each month keeps (migration 020), or where it
 * has no row there (a link's far end alone, as a JSON-lines import may leave one) its links of that month counted.
 * Counting read every link of every month: a large generated AS's 216,000 over 12 months, 8.5 ms of PostgreSQL on every
 * page; five of the real month's largest ASes' 20,471 links, 2.2 ms. Read first and the ASNs without a row counted
 * after, a list that named one paid a second round trip.
 */
async function keptAsnLinkMonthTotals(
  context: AsrankContext,
  asns: readonly number[],
  months: readonly string[],
): Promise<Map<string, number>> {
  const { from, asn, month } = asnMonthPairs(context.dialect, asns, months);
  // COALESCE reads its second operand only where the first is null, on both stores.
  const rows = await preparedRows<{ month: string; total: unknown }>(
    context,
    sql`select ${month} as month, sum(coalesce(
      (select a.number_asn_links from asns a where a.date = ${month} and a.asn = ${asn}),
      (select count(*) from asn_links l where l.date = ${month} and l.asn0 = ${asn}))) as total
    from ${from} group by ${month}`,
  );
  return new Map(rows.map((row) => [String(row.month), Number(row.total ?? 0)]));
}

/**
 * The rows of a statement over bound lists (asnMonthPairs), whose plan does not depend on them: on PostgreSQL a named
 * prepared statement, planned once per connection. Planned at each run, the kept counts' two statements cost 2.3 and
 * 1.3 ms of planning on every page of one AS's links that walks blocks, against 0.1 ms of execution.
 */
function preparedRows<Row>(context: AsrankContext, statement: RawBuilder<unknown>): Promise<Row[]> {
  const query = context.db.selectFrom(sql`(${statement})`.as('kept')).selectAll();
  return context.prepared(query, 'asns') as Promise<Row[]>;
}

/** The link columns a page in the order of `keys` reads (its nodes' and its order's), and asn1's its nodes show. */
function linkPageColumns(
  info: GraphQLResolveInfo,
  keys: readonly SortKey[],
  order: typeof LINK_ORDER | typeof LINK_HISTORIC_ORDER,
) {
  return {
    columns: withOrderColumns(selectedAsnLinkNodeColumns(info), keys, ASN_LINK_SORT_COLUMNS, order),
    asn1Columns: selectedAsnColumnsAt(info, ['edges', 'node', 'asn1']),
  };
}

/**
 * Every pair of one of `asns` and one of `months`, each list bound as one parameter: the FROM clause, and the pair's
 * ASN and month as expressions (the kept counts' statements read one row of `asns` a pair).
 */
function asnMonthPairs(
  dialect: DialectName,
  asns: readonly number[],
  months: readonly string[],
): { from: RawBuilder<unknown>; asn: RawBuilder<unknown>; month: RawBuilder<unknown> } {
  const asnList = boundList(dialect, asns, 'bigint');
  const monthList = boundList(dialect, months, 'text');
  return dialect === 'postgres'
    ? {
        from: sql`unnest(${asnList}::bigint[]) p(asn) cross join unnest(${monthList}::text[]) m(date)`,
        asn: sql`p.asn`,
        month: sql`m.date`,
      }
    : {
        from: sql`json_each(${asnList}) p cross join json_each(${monthList}) m`,
        asn: sql`p.value`,
        month: sql`m.value`,
      };
}

/** The key of a block's size in keptAsnLinkBlockTotals' map. */
function linkBlockKey(month: string, asn: number, relationship: LinkRelationship): string {
  return `${month}\u0000${asn}\u0000${relationship}`;
}

/**
 * The links of each of `asns` of each relationship in each of `months` (linkBlockKey), in one statement: the counts its
 * row of the month keeps (migration 022), or where it has no row there (a link's far end alone) its links counted; and
 * their sums, each month's links of `asns` (what keptAsnLinkMonthTotals reads, every link being of one relationship).
 */
async function keptAsnLinkBlockTotals(
  context: AsrankContext,
  asns: readonly number[],
  months: readonly string[],
): Promise<KeptBlockTotals> {
  const { from, asn, month } = asnMonthPairs(context.dialect, asns, months);
  // The row joined once; COALESCE counts only where it is missing (its columns are never null otherwise).
  const counts = LINK_RELATIONSHIPS.map(
    (relationship) => sql`coalesce(${sql.ref(`a.${ASN_RELATIONSHIP_LINK_COUNTS[relationship]}`)},
      (select count(*) from asn_links l where l.date = ${month} and l.asn0 = ${asn}
        and l.relationship = ${sql.lit(relationship)})) as ${sql.ref(relationship)}`,
  );
  type BlockCounts = { month: string; asn: unknown } & Record<LinkRelationship, unknown>;
  const rows = await preparedRows<BlockCounts>(
    context,
    sql`select ${month} as month, ${asn} as asn, ${sql.join(counts)}
    from ${from} left join asns a on a.date = ${month} and a.asn = ${asn}`,
  );
  const blocks = new Map<string, number>();
  const monthTotals = new Map<string, number>(months.map((of) => [of, 0]));
  for (const row of rows) {
    const of = String(row.month);
    for (const relationship of LINK_RELATIONSHIPS) {
      const links = Number(row[relationship] ?? 0);
      blocks.set(linkBlockKey(of, Number(row.asn), relationship), links);
      monthTotals.set(of, (monthTotals.get(of) ?? 0) + links);
    }
  }
  return { blocks, months: monthTotals };
}

/** keptAsnLinkBlockTotals' counts: each block's links (by linkBlockKey), and each month's of all the ASNs. */
interface KeptBlockTotals {
  blocks: Map<string, number>;
  months: Map<string, number>;
}

/**
 * The walk of `blocks` (relationshipBlocks) for `asns`, each AS's block of a relationship and month sized by
 * keptAsnLinkBlockTotals' `totals`, in the order of the blocks and, within one, of the ASNs; null when `page` spans
 * more than `maxSpanned` blocks with links (a statement each).
 */
function keptBlockWalk(
  totals: KeptBlockTotals,
  blocks: readonly { relationship: LinkRelationship; month: string }[],
  asns: readonly number[],
  page: { first: number; offset: number },
  maxSpanned: number,
): { relationship: LinkRelationship; month: string; asn0: number; links: number }[] | null {
  const walk = blocks.flatMap((block) =>
    asns.map((asn0) => ({
      ...block,
      asn0,
      links: totals.blocks.get(linkBlockKey(block.month, asn0, block.relationship)) ?? 0,
    })),
  );
  let skip = page.offset;
  let wanted = page.first;
  let spanned = 0;
  for (const { links } of walk) {
    if (wanted <= 0) break;
    if (skip >= links) {
      skip -= links;
      continue;
    }
    wanted -= links - skip;
    skip = 0;
    if (++spanned > maxSpanned) return null;
  }
  return walk;
}

/**
 * A count an organization's row keeps for its month (migration 017) as a nested page's total: `total` by
 * `parent_key`, the organization.
 */
export function keptOrganizationCounts(
  context: AsrankContext,
  date: string,
  orgIds: readonly string[],
  column: 'number_asn_links' | 'number_neighbors',
) {
  return context.db
    .selectFrom('organizations')
    .select(['org_id as parent_key', `${column} as total`])
    .where('date', '=', date)
    .where(inValues(context.dialect, 'org_id', orgIds, 'text'));
}

/**
 * The members (`a`) of organizations `orgIds` in month `date`. On SQLite through the (date, org_id) index by name:
 * where a statement reads a column of the member that index lacks (its count of links), SQLite read every record of
 * the month by its key instead and tested each organization (the real month's 200 organizations at rank 1,000: 55 ->
 * 100 ms).
 */
export function organizationMembers(context: AsrankContext, date: string, orgIds: readonly string[]) {
  const byOrganization = context.dialect === 'sqlite' ? sql` indexed by asns_date_org` : sql``;
  return context.db
    .selectFrom(sql<Database['asns']>`asns`.as<'a'>(sql`a${byOrganization}`))
    .where('a.date', '=', date)
    .where(inValues(context.dialect, 'a.org_id', orgIds, 'text'));
}

/**
 * Every link (`l`) of the members (`a`) of organizations `orgIds` in month `date`. CROSS JOIN makes SQLite drive from
 * the members (index on date, org_id) into their link ranges; without statistics it would otherwise scan every link
 * of the month. PostgreSQL plans it as an inner join.
 */
export function allMemberLinks(context: AsrankContext, date: string, orgIds: readonly string[]) {
  return organizationMembers(context, date, orgIds)
    .crossJoin('asn_links as l')
    .whereRef('l.date', '=', 'a.date')
    .whereRef('l.asn0', '=', 'a.asn');
}

/** A far end's record (`farEnd`, by default `b`) of another organization than the member's (`a`), or of none. */
export function outsideOrganization(farEnd = 'b') {
  const organization = sql.ref(`${farEnd}.org_id`);
  return sql<boolean>`(${organization} is null or ${organization} != a.org_id)`;
}

/**
 * True when one member's index range serves the link order of `keys` within it: (date, asn0, rank, asn1) the default
 * order, the primary key (date, asn0, asn1) an order by asn1 (asn0 and the month are the same in the range).
 */
function memberRangeServes(keys: readonly SortKey[]): boolean {
  const effective: SortKey[] = [];
  for (const key of [...(keys.length > 0 ? keys : LINK_ORDER.defaults), ...LINK_ORDER.unique])
    if (key.key !== 'asn0' && key.key !== 'date' && !effective.some((seen) => seen.key === key.key))
      effective.push(key);
  const [first, second] = effective;
  if (first?.key === 'asn1') return true;
  return (
    first?.key === 'rank' && first.direction === 'asc' && second?.key === 'asn1' && second.direction === 'asc'
  );
}

/**
 * The links (`l`) from the members (`a`) of organizations `orgIds` to ASNs outside them that a page of each
 * organization's links ending at row `end` in the order of `keys` can show: each member's own first links in that
 * order, not all of them. An organization's first `end` links are among its members' first `end` each, so each member's
 * links are cut by its own range of an index: the 100 largest organizations hold 115,000 links (the generated month),
 * which a windowed page over all of them ranked in 300 ms on SQLite and 740 on PostgreSQL.
 * - Where a member's range serves the order (memberRangeServes), the range is walked in it and each link's far end
 *   looked up until `end` links leave the organization: a few rows a member.
 * - Otherwise each member's links are sorted (a top-N sort, without looking up their far ends) and cut at `end` plus
 *   its organization's members less one (on SQLite the most members of any of the organizations): a member has at
 *   most that many links inside its own organization (one per neighbour), so its first `end` links outside it are
 *   among those; the cut's far ends are looked up then. By a nullable column alone on PostgreSQL, its links with a
 *   value are cut from their own index range in the order, and those without by the pair.
 * With `recordedFarEnd`, only links whose far end has a record of the month (what a page of neighbours shows).
 * SQLite drives each member's cut as the list of an IN on the primary key; PostgreSQL as a LATERAL subquery.
 */
export function organizationMemberLinks(
  context: AsrankContext,
  date: string,
  orgIds: readonly string[],
  keys: readonly SortKey[],
  end: number,
  {
    recordedFarEnd = false,
    mostMembers,
  }: {
    recordedFarEnd?: boolean;
    /** On SQLite, the most members of any of the organizations, where the caller knows it (a size class's arm). */
    mostMembers?: number;
  } = {},
) {
  const { dialect } = context;
  const served = memberRangeServes(keys);
  const order = orderByList(dialect, keys, ASN_LINK_SORT_COLUMNS, LINK_ORDER);
  const farEnd = byPrimaryKey(dialect, 'asns', 'y', FAR_END_COLUMNS);
  // On PostgreSQL as the far end's own record's test, which it can only read by its key: as an (anti) join it read
  // the organization's members by (date, org_id) for each link instead (the real month's 1,000 first organizations,
  // 5,434 members: 190 ms of 250).
  const farEndTest = sql`(select y.org_id is distinct from a.org_id from ${farEnd} where y.date = x.date
    and y.asn = x.asn1)`;
  // Where a far end need not have a record on PostgreSQL, a link leaves the organization when its far end is none of
  // the members: tested against an array of the organization's member ASNs (each member's `member_asns`, below)
  // instead of the far end's record looked up by key for each link. The generated month's 56 organizations of
  // over 505 links at offset 500: 165 -> 42 ms of the statement. SQLite looks a record up for less than it builds and
  // probes a member list (the real month's 100 largest organizations' links at offset 500: 78 -> 125 ms).
  const membersApart = dialect === 'postgres' && !recordedFarEnd && linkPageTuning.memberAsnsApart;
  const leavesOrganization =
    dialect === 'postgres'
      ? recordedFarEnd
        ? farEndTest
        : membersApart
          ? sql`x.asn1 <> all(a.member_asns)`
          : sql`coalesce(${farEndTest}, true)`
      : recordedFarEnd
        ? sql`exists (select 1 from ${farEnd} where y.date = x.date and y.asn = x.asn1
            and ${outsideOrganization('y')})`
        : sql`not exists (select 1 from ${farEnd} where y.date = x.date and y.asn = x.asn1 and y.org_id = a.org_id)`;
  // The members a sorted cut allows for: on PostgreSQL the member's own organization's (a LATERAL subquery's LIMIT
  // may name the outer row), counted once an organization (`members`, below; counted in each member's cut, the
  // real month's 100 largest organizations' 1,091 members read 51,000 index entries); SQLite refuses that, so there
  // the most of any organization of the batch. Each of the real month's 1,091 members of its 100 largest organizations
  // cut at LVLT-ARIN's 32 + 4 took 152 ms by `-numberPaths`.
  const organizationSize =
    dialect === 'postgres'
      ? sql`a.members`
      : mostMembers !== undefined
        ? sql`cast(${mostMembers} as integer)`
        : sql`coalesce((select count(*) from asns s where s.date = ${date}
          and ${inValues(dialect, 's.org_id', orgIds, 'text')} group by s.org_id order by count(*) desc limit 1), 1)`;
  const limit = served
    ? sql`cast(${end} as integer)`
    : sql`cast(${end} as integer) - 1 + ${organizationSize}`;
  // A sorted cut's far ends are looked up after it: within the cut on PostgreSQL (joined to the whole statement, it
  // hashed every record of the month for the 5,426 links of the real month's 100 largest organizations' cuts: 40 ms
  // of 96), joined to the statement on SQLite (within each cut, 48 -> 118 ms for those of the generated month).
  const filteredInCut = served || dialect === 'postgres';
  // By a nullable column alone on PostgreSQL, a member's links with a value cut from its (date, asn0, number_paths)
  // range, then those without by the pair, as one AS's are (oneAsnValuedApart): sorted whole, every link of every
  // member was read from the table (the real month's 100 largest organizations' first 4 by `-numberPaths`: 94 -> 62
  // ms over HTTP). SQLite sorts a member's links for less than the two cuts cost it (34.7 -> 38.6 ms in process).
  const nullable =
    dialect === 'postgres' && !served && linkPageTuning.organizationValuedApart
      ? nullableSortColumn(keys)
      : null;
  // By relationship alone on PostgreSQL, a member of many links (as its row keeps them) cuts its first ones from its
  // eight relationship ranges (relationshipRangesCut), the others sort theirs: sorted, every link of every member was
  // read from the table (the real month's 100 largest organizations' 87,000 links, 65 of the statement's 71 ms).
  // SQLite reads a member's links for their order from the (date, asn0, rank, asn1) index that holds the relationship,
  // and its ranges cost it more (the real month's 30 organizations at rank 50: 8.7 -> 13.2 ms in process).
  const byRelationship =
    dialect === 'postgres' &&
    !served &&
    linkPageTuning.memberRelationshipRanges &&
    relationshipRuns(keys)[0] !== null;
  const sortedCut = (columns: RawBuilder<unknown>) => {
    const sorted = sortedLinksCut(columns, sql`a.date`, sql`a.asn`, order, limit);
    if (byRelationship) {
      // As a list's parents (rangedLinksFrom), each member's threshold grows with its cut's end.
      const many = sql`a.number_asn_links >= greatest(${linkPageTuning.relationshipRangesFrom},
        ${linkPageTuning.relationshipRangesPerEnd} * (${limit}))`;
      const ranged = linksByKey(relationshipRangesCut(dialect, sql`a.date`, sql`a.asn`, order, limit));
      return sql`select * from (${ranged}) ranged where ${many}
        union all select * from (${sorted}) sorted where not ${many}`;
    }
    if (!nullable) return sorted;
    return valuedApartCut(dialect, keys, nullable, columns, sql`a.date`, sql`a.asn`, limit);
  };
  const memberCut = (columns: RawBuilder<unknown>) =>
    served
      ? sql`select ${columns} from asn_links x where x.date = a.date and x.asn0 = a.asn and ${leavesOrganization}
          order by ${order} limit ${limit}`
      : filteredInCut
        ? sql`select ${columns} from (${sortedCut(sql`x.*`)}) x where ${leavesOrganization}`
        : sortedCut(columns);
  if (dialect === 'postgres') {
    // Each member with its organization's count of members and (membersApart) their ASNs, over one read of the members
    // (a window): joined to their aggregate, the members were read twice, each a scan of the month's records for many
    // organizations (the real month's 1,000 first organizations' 5,434 members: 20 ms each).
    const memberAsns = membersApart ? sql`, array_agg(m.asn) over organization as member_asns` : sql``;
    const sized = context.db.selectFrom(
      sql<Database['asns'] & { members: number; member_asns: number[] | null }>`(select m.*,
        count(*) over organization as members${memberAsns} from asns m
        where m.date = ${date} and ${inValues(dialect, 'm.org_id', orgIds, 'text')}
        window organization as (partition by m.org_id))`.as('a'),
    );
    return sized.crossJoinLateral(sql<AsnLinksTable>`(${memberCut(sql`x.*`)})`.as('l'));
  }
  const links = allMemberLinks(context, date, orgIds).where(
    sql<boolean>`l.asn1 in (${memberCut(sql`x.asn1`)})`,
  );
  if (filteredInCut) return links;
  const farEndOf = byPrimaryKey(dialect, 'asns', 'b', FAR_END_COLUMNS);
  const withFarEnd = recordedFarEnd
    ? links.innerJoin(farEndOf, (join) => join.onRef('b.date', '=', 'l.date').onRef('b.asn', '=', 'l.asn1'))
    : links.leftJoin(farEndOf, (join) => join.onRef('b.date', '=', 'l.date').onRef('b.asn', '=', 'l.asn1'));
  return withFarEnd.where(outsideOrganization());
}

/**
 * Each organization's (`parent_key`) neighbours (`asn`, with its `rank`) among its members' first `end` links by
 * rank, the far ends with a record of month `date` outside the organization: an organization's first `end` neighbours
 * by rank are among them, as a member's links by rank are in its neighbours' rank order. Each far end is looked up
 * once, in the member's cut, for both its organization and its rank: a page numbered from organizationMemberLinks'
 * pairs looked it up again for its rank after (the generated month's 100 largest organizations' neighbours at offset
 * 500: PostgreSQL's statement 352 -> 196 ms, SQLite's 120 -> 91, its cut's far ends joined in place of their links).
 */
export function organizationNeighborRanks(
  context: AsrankContext,
  date: string,
  orgIds: readonly string[],
  end: number,
) {
  const { dialect } = context;
  const members = organizationMembers(context, date, orgIds);
  const order = orderByList(dialect, [], ASN_LINK_SORT_COLUMNS, LINK_ORDER, { table: 'x' });
  const limit = sql`cast(${end} as integer)`;
  if (dialect === 'postgres')
    return members
      .crossJoinLateral(
        sql<{ asn1: number; rank: number | null }>`(select x.asn1, y.rank from asn_links x
          inner join ${byPrimaryKey(dialect, 'asns', 'y')} on y.date = x.date and y.asn = x.asn1
          where x.date = a.date and x.asn0 = a.asn and y.org_id is distinct from a.org_id
          order by ${order} limit ${limit})`.as('l'),
      )
      .select(['a.org_id as parent_key', 'l.asn1 as asn', 'l.rank'])
      .distinct();
  // SQLite has no LATERAL: the cut is the list of an IN on the far ends' records.
  const farEnd = byPrimaryKey(dialect, 'asns', 'y', FAR_END_COLUMNS);
  return members
    .crossJoin(byPrimaryKey(dialect, 'asns', 'b', ['date', 'asn', 'rank']))
    .whereRef('b.date', '=', 'a.date')
    .where(
      sql<boolean>`b.asn in (select x.asn1 from asn_links x where x.date = a.date and x.asn0 = a.asn
        and exists (select 1 from ${farEnd} where y.date = x.date and y.asn = x.asn1 and ${outsideOrganization('y')})
        order by ${order} limit ${limit})`,
    )
    .select(['a.org_id as parent_key', 'b.asn', 'b.rank'])
    .distinct();
}

/** Links from an organization's member ASNs to ASNs outside it (Organization.asnLinks). */
export function asnLinksOfOrganizations(
  context: AsrankContext,
  date: string,
  page: { first: number; offset: number },
  sort: string | null | undefined,
  needs: ConnectionNeeds,
) {
  const sortKeys = parseSort(sort, 'asnLinks', { argument: 'sort' });
  return nestedPage<string, AsnLinkRow>(
    context,
    `orgLinks|${date}|${sort ?? ''}`,
    page,
    // Built once a batch, not once an organization.
    async (batch) => {
      // A month without path counts (or corrections) orders them by the pair: each member's range then serves it, where
      // the generated months' 100 largest organizations sorted every member's links by a column all null (42-57 ms).
      const keys = await unvaluedColumnOrder(context, sortKeys, date, BY_PAIR_KEYS);
      // On SQLite a member's sorted cut allows for the most members of any organization of its statement (its LIMIT
      // cannot name the outer row), so organizations of like sizes are cut in an arm each: the real month's 100
      // largest organizations by `-numberPaths` kept 17,852 links cut for LVLT-ARIN's 114 members, 6,158 in arms of
      // organizations of up to 1, 2, 4, ... 128 members (72 -> 43 ms). Not for a few organizations, whose cuts hold
      // few links anyway: the sizes' read and the arms cost them 0.6-0.8 ms (5 organizations' links: 3.1 -> 3.9 ms).
      const sizes =
        context.dialect === 'sqlite' && !memberRangeServes(keys) && batch.length >= SIZE_CLASSES_FROM
          ? await organizationSizes(context, date, batch)
          : null;
      const linksOf = (orgIds: readonly string[], mostMembers?: number) =>
        organizationMemberLinks(context, date, orgIds, keys, page.offset + page.first, { mostMembers })
          .selectAll('l')
          .select('a.org_id as parent_key');
      return {
        partitionColumn: 'parent_key',
        order: orderByList(context.dialect, keys, ASN_LINK_SORT_COLUMNS, LINK_ORDER),
        rows: (orgIds) => {
          if (!sizes) return linksOf(orgIds);
          // Each class (up to 1, 2, 4, ... members) an arm, its cut allowing for its largest organization's members.
          const byClass = new Map<number, { orgIds: string[]; mostMembers: number }>();
          for (const orgId of orgIds) {
            const size = sizes.get(orgId) ?? 0;
            const sizeClass = size === 0 ? 0 : 2 ** Math.ceil(Math.log2(size));
            const ofClass = byClass.get(sizeClass);
            if (!ofClass) byClass.set(sizeClass, { orgIds: [orgId], mostMembers: size });
            else {
              ofClass.orgIds.push(orgId);
              ofClass.mostMembers = Math.max(ofClass.mostMembers, size);
            }
          }
          const arms = [...byClass.values()].map((ofClass) => linksOf(ofClass.orgIds, ofClass.mostMembers));
          return arms.slice(1).reduce((united, arm) => united.unionAll(arm), arms[0]!);
        },
      };
    },
    // Kept by the loads (017): counting these links looked up the organization of every far end.
    { kept: true, counts: (orgIds) => keptOrganizationCounts(context, date, orgIds, 'number_asn_links') },
    needs,
  );
}

/** The organizations a batch of their links needs for its members' cuts by size class (asnLinksOfOrganizations). */
const SIZE_CLASSES_FROM = 16;

/** Each of organizations `orgIds`' count of member records in month `date` (an organization of none is left out). */
async function organizationSizes(
  context: AsrankContext,
  date: string,
  orgIds: readonly string[],
): Promise<Map<string, number>> {
  const sizes = await organizationMemberCounts(context, date, orgIds).execute();
  return new Map(sizes.map((row) => [String(row.org_id), Number(row.members)]));
}

/** Each of organizations `orgIds`' count of member records in month `date` (`members`; none: no row). */
function organizationMemberCounts(context: AsrankContext, date: string, orgIds: readonly string[]) {
  return organizationMembers(context, date, orgIds)
    .select((eb) => ['a.org_id', eb.fn.countAll<number | string>().as('members')])
    .groupBy('a.org_id');
}

builder.queryFields((t) => ({
  asnLink: t.field({
    type: AsnLinkRef,
    nullable: true,
    description: 'The link between asn0 and asn1 (described from asn0’s side), or null when there is none.',
    args: {
      asn0: t.arg.string({ required: true }),
      asn1: t.arg.string({ required: true }),
      date: t.arg.string({ description: 'Month (YYYY-MM-DD or YYYYMMDD); default the latest.' }),
    },
    resolve: async (_root, args, context) => {
      const asn0 = parseAsnArgument(args.asn0, 'asn0');
      const asn1 = parseAsnArgument(args.asn1, 'asn1');
      const date = await monthOf(context, args.date);
      if (!date) return null;
      const link = await context.db
        .selectFrom('asn_links')
        .selectAll()
        .where('date', '=', date)
        .where('asn0', '=', asn0)
        .where('asn1', '=', asn1)
        .executeTakeFirst();
      return link ?? null;
    },
  }),
  asnLinks: t.field({
    type: AsnLinkConnection,
    description:
      'Links of the latest month (or of every month of [dateStart, dateEnd]). With `asn`, the links of that ASN (asn0 = asn, asn1 = neighbour), optionally only towards `asns`; with only `asns`, the links of those ASNs; otherwise every link once (asn0 < asn1).',
    args: {
      first: t.arg.int(),
      offset: t.arg.int(),
      asn: t.arg.string(),
      asns: t.arg.stringList(),
      sort: t.arg.string({
        description:
          'Comma-separated keys: asn0, asn1, numberPaths, relationship, correctedBy; "-" prefix for descending.',
      }),
      dateStart: t.arg.string(),
      dateEnd: t.arg.string(),
    },
    resolve: async (_root, args, context, info): Promise<ConnectionPage<AsnLinkRow>> => {
      const page = pageOf(args);
      const interval = intervalOf(args);
      const parsedKeys = parseSort(args.sort, 'asnLinks', { historic: interval !== null, argument: 'sort' });
      const asn = args.asn == null ? null : parseAsnArgument(args.asn, 'asn');
      const asnList = parseAsnList(args.asns, 'asns');
      const months = await monthsIn(context, interval);
      if (months.length === 0) return { nodes: [], totalCount: 0, ...page };
      const { historic, keys: sortKeys } = monthOrderOf(
        interval !== null,
        months,
        parsedKeys,
        BY_PAIR_KEYS[0]!,
      );
      // Awaited only for an order it may change: W3's neighbour pages go on without a turn of the event loop.
      const keys =
        asn !== null && asnList === null && months.length === 1 && nullableSortColumn(sortKeys)
          ? await oneAsnOrder(context, sortKeys, months[0]!)
          : sortKeys;
      // The links asked for; a compiled neighbour page gives its month and ASN as placeholders.
      // `otherEnd`: every link's reversed row (asn0 > asn1) instead of its canonical one. `byEnds`: each row told
      // canonical or reversed by its ends (asn0 < asn1, as the loads set `canonical`), for PostgreSQL's walks of the
      // primary key (pairRange).
      const linksQuery = (
        inMonths = dateIn(context.dialect, 'date', months),
        asn0: unknown = asn,
        otherEnd = false,
        byEnds = false,
      ) => {
        const links = context.db.selectFrom('asn_links').where(inMonths);
        if (asn0 != null) {
          const ofAsn = links.where('asn0', '=', asn0 as number);
          return asnList ? ofAsn.where(inValues(context.dialect, 'asn1', asnList, 'bigint')) : ofAsn;
        }
        if (asnList) return links.where(inValues(context.dialect, 'asn0', asnList, 'bigint'));
        if (byEnds)
          return links.where(
            sql<boolean>`${sql.ref('asn0')} ${otherEnd ? sql`>` : sql`<`} ${sql.ref('asn1')}`,
          );
        return links.where('canonical', '=', otherEnd ? 0 : 1);
      };
      /**
       * Links `limit`, `offset` of `pageMonths` in the order of `keys`, `historic` (an interval, of one month or more)
       * in the order that breaks ties by month.
       */
      const linksPage = async (
        pageMonths: readonly string[],
        keys: readonly SortKey[],
        historic: boolean,
        limit: number,
        offset: number,
        // A part of the links (correctedBy's split below); no bookmarks serve it but the months' by a path count.
        within: ((links: ReturnType<typeof linksQuery>) => ReturnType<typeof linksQuery>) | null = null,
        // `within` keeps the links with a path count (nullableColumnAlone): the months' bookmarks serve `numberPaths`.
        withCountedPaths = false,
        // An order of `within`'s links by `keys` that a month's bookmarks serve (its links without a value, by pair).
        withinSeek: LinkSeek | null = null,
      ): Promise<AsnLinkRow[]> => {
        const linksOf = (months: readonly string[], otherEnd = false) => {
          const links = linksQuery(dateIn(context.dialect, 'date', months), asn, otherEnd);
          return within ? within(links) : links;
        };
        const query = linksOf(pageMonths);
        // The pruned rows carry exactly the columns the selected fields read, though typed as whole rows.
        const withRowColumns = (rows: typeof query, rowColumns: readonly AsnLinkColumn[] | null) =>
          rowColumns
            ? (rows.select(rowColumns) as unknown as ReturnType<typeof rows.selectAll>)
            : rows.selectAll();
        const linkOrder = historic ? LINK_HISTORIC_ORDER : LINK_ORDER;
        const order = orderByList(context.dialect, keys, ASN_LINK_SORT_COLUMNS, linkOrder);
        // Only the columns the nodes show (and the order's): a neighbour page in rank order then reads the neighbour
        // index alone (migration 005).
        const { columns, asn1Columns } = linkPageColumns(info, keys, linkOrder);
        // A list's links of one month by relationship alone: each listed AS's first links from its eight relationship
        // ranges (relationshipRangesCut), on PostgreSQL a LATERAL subquery per ASN, on SQLite each AS's cut as the list
        // of an IN on the primary key; then the page's keys in the order. An arm per relationship over the whole list
        // read every link of the list's ASes for a relationship they seldom have (the real month's five largest ASes'
        // 20,471 links for their three providers: 2.5 ms of an arm on PostgreSQL). One text whatever the list, kept
        // prepared on PostgreSQL (namedMerge below).
        // By ASN first, each listed AS's first links in the order by its own ranges instead (listAsnCuts).
        const listCuts = (
          limit: number,
          offset: number,
          otherEnd: OtherEndOrder | null,
        ): 'relationship' | 'asn' | null => {
          if (
            asnList === null ||
            asn !== null ||
            within !== null ||
            otherEnd !== null ||
            pageMonths.length !== 1
          )
            return null;
          const rows = asnList.length * (offset + limit);
          if (
            linkPageTuning.listRelationshipRanges &&
            relationshipRuns(keys)[0] !== null &&
            rows <= linkPageTuning.listRelationshipRangeRows[context.dialect]
          )
            return 'relationship';
          return keys[0]?.key === 'asn0' && linkPageTuning.listAsnCuts[context.dialect] ? 'asn' : null;
        };
        const listRangeKeys = (limit: number, offset: number, kind: 'relationship' | 'asn') => {
          const month = sql`${pageMonths[0]!}`;
          const end = sql`cast(${offset + limit} as integer)`;
          // By ASN, whole rows: the order may read any column after the ASN.
          const cut = perAsnCuts(
            context.dialect,
            pageMonths[0]!,
            asnList!,
            kind === 'asn' ? sql`l.*` : sql`l.date, l.asn0, l.asn1, l.relationship`,
            (asn0) => {
              if (kind === 'asn')
                return sortedLinksCut(
                  context.dialect === 'postgres' ? sql`x.*` : sql`x.asn1`,
                  month,
                  asn0,
                  order,
                  end,
                );
              const ranges = relationshipRangesCut(context.dialect, month, asn0, order, end);
              return context.dialect === 'postgres' ? ranges : sql`select k.asn1 from (${ranges}) k`;
            },
          );
          const listed = sql<Pick<AsnLinksTable, 'date' | 'asn0' | 'asn1' | 'relationship'>>`(${cut})`;
          return context.db
            .selectFrom(listed.as('listed'))
            .select(['date', 'asn0', 'asn1'])
            .orderBy(order)
            .limit(limit)
            .offset(offset);
        };
        // A shallow page over several months: each month's keys in the order, cut at offset + limit, merged
        // (monthArms.ts), when the months' index serves the order; null otherwise.
        const monthArmKeys = async (
          monthRange: (month: string) => typeof query,
          limit: number,
          offset: number,
          otherEnd: OtherEndOrder | null,
          // listCuts of the same page, which its caller decided on.
          listCut: 'relationship' | 'asn' | null,
        ) => {
          if (listCut) return listRangeKeys(limit, offset, listCut);
          const firstKey = ((otherEnd?.keys ?? keys)[0] ?? linkOrder.defaults[0]!).key;
          // Every link's arms reach the months' bookmarks (a step a month), which take over there: between the two one
          // statement over the months sorted every link of them (12 generated months by `-asn0` at offset 6,000: 1.1-1.3
          // s on SQLite, 180-240 ms on PostgreSQL). Each arm is read as far as the merge takes it, not to its LIMIT.
          const armsUntil =
            asn === null && asnList === null ? context.pageBookmarks.linkStep * pageMonths.length : 0;
          // Every link's pages by the pair read a relationship at a time until then (one month's at offset 4,800 by
          // `-asn0`: 3.4 ms from its bookmarks, 14.4 from four arms of 4,900 links on SQLite).
          const pairRelationships =
            offset < armsUntil ? pairRuns(otherEnd?.keys ?? keys, otherEnd !== null) : null;
          const relationships = pairRelationships ?? (otherEnd ? [null] : relationshipRuns(keys));
          if (!readsByMonthArms(pageMonths.length * relationships.length, offset, limit, armsUntil))
            return null;
          // The key and the order's columns, which the merge sorts the arms' rows by again.
          const orderColumns = withOrderColumns<AsnLinkColumn>(
            ['date', 'asn0', 'asn1'],
            keys,
            ASN_LINK_SORT_COLUMNS,
            linkOrder,
          )!;
          const armColumns = otherEnd
            ? orderColumns.map((column) =>
                column === 'asn0' || column === 'asn1' ? KEY_FROM_OTHER_END[column] : column,
              )
            : orderColumns;
          const arm = (month: string, relationship: LinkRelationship | null) =>
            (relationship === null
              ? monthRange(month)
              : monthRange(month).where('relationship', '=', relationship)
            )
              .select(armColumns as typeof orderColumns)
              .orderBy(otherEnd ? otherEnd.sql : order)
              .limit(offset + limit);
          // Rows that share an ASN are one AS's links in a month: sorting within each is cheap (SQLite by `-asn0`:
          // 0.78 s over 12 generated months as one statement, 6 ms a month as arms).
          const withinFirstKey = firstKey === 'asn0' || firstKey === 'asn1' ? firstKey : null;
          if (
            !(await servedByIndex(
              context.db,
              context.dialect,
              arm(pageMonths[0]!, relationships[0]!),
              withinFirstKey,
            ))
          )
            return null;
          const arms = pageMonths.flatMap((month) =>
            relationships.map((relationship) => arm(month, relationship)),
          );
          return mergedArms(context.db, context.dialect, arms, LINK_KEY_COLUMNS, order, limit, offset);
        };
        // A deep page of every link over several months (or of one month) from each month's bookmarks merged, in an
        // order they serve (linkMonthsSeek); null otherwise.
        const monthsBookmarkKeys = async (
          monthRange: (month: string) => typeof query,
          limit: number,
          offset: number,
          otherEnd: OtherEndOrder | null,
        ) => {
          const seekKeys = otherEnd?.keys ?? keys;
          const seek = linkMonthsSeek(
            pageMonths.length === 1 ? withinOneMonth(seekKeys) : seekKeys,
            context.dialect,
            withCountedPaths,
          );
          const step = context.pageBookmarks.linkStep;
          if (!seek || offset < step * pageMonths.length) return null;
          const version = await context.dataVersion();
          // Against the primary key's run of the rows (pairRuns), near the start of the order each month's brackets
          // and arms are read a relationship at a time: 12 generated months by `-asn0` just past the bookmarks' start
          // (offset 12,300) took 150 ms on SQLite and 580 on PostgreSQL, nearly all of it counting the brackets through
          // the other rows (32 and 46 ms apart). Deeper the order's own rows prevail, and four times the brackets and
          // arms cost more than they save (at 200,000: 14 -> 17 ms on SQLite, 46 -> 54 on PostgreSQL).
          const relationships =
            asn === null &&
            asnList === null &&
            offset < linkPageTuning.pairPartsSteps[context.dialect] * step * pageMonths.length
              ? pairRuns(pageMonths.length === 1 ? withinOneMonth(seekKeys) : seekKeys, otherEnd !== null)
              : null;
          const parts = relationships?.map(
            (relationship) => (records: SeekRange['range']) =>
              records.where(sql<boolean>`${sql.ref('relationship')} = ${relationship}`),
          );
          // By the pair on PostgreSQL, each month's links read by their ends (linksQuery's `byEnds`): the primary key
          // (date, asn0, asn1) holds them, so its hops and the page's keys are read from the index alone, where
          // `canonical` sent each skipped entry to its row in the table.
          const pairRange =
            context.dialect === 'postgres' &&
            seek.term.column === 'asn0' &&
            within === null &&
            !relationships;
          const ranges = [...pageMonths].sort().map((month) => ({
            month,
            parts,
            range: {
              db: context.db,
              dialect: context.dialect,
              range: pairRange
                ? linksQuery(dateIn(context.dialect, 'date', [month]), null, otherEnd !== null, true)
                : monthRange(month),
              keyColumns: seek.keyColumns,
              term: seek.term,
              bookmarks: context.pageBookmarks,
              step,
              scope: `${version}\u0000${month}\u0000asn_links\u0000months ${otherEnd ? 'reversed ' : ''}${seek.name}`,
              // The month's records of each ASN by asn0, as each ASN's row keeps them, where no part of them is asked.
              ...(seek.term.countedByValue &&
                within === null && {
                  // Against the month's total the store keeps with it (linkTotals, read once per data version).
                  keptValueCounts: async () =>
                    keptLinkEndCounts(context, month, otherEnd !== null, await linkTotals.of(month)),
                }),
            },
          }));
          const start = await monthsBookmarkStart(
            // Planned for its values: planned once, generically, the links' brackets chose an index of the month's
            // canonical links in another order and read all of them (89 ms for twelve months' brackets, against 2 ms
            // a month planned each time; docs/performance.md, sixty-seventh round).
            plannedEachCall(context.db),
            ranges,
            offset,
            limit,
          );
          if (!start) return null;
          // Over the arms' own columns: the reversed rows' order names them as stored, and their ends are traded back
          // only around the merge, whose ORDER BY would otherwise read the traded names.
          const merged = monthsPageAfter(
            context.db,
            ranges,
            start,
            LINK_KEY_COLUMNS,
            otherEnd
              ? orderByList(context.dialect, otherEnd.keys, ASN_LINK_SORT_COLUMNS, otherEnd.order)
              : order,
            limit,
          );
          return otherEnd
            ? context.db
                .selectFrom(merged.as('reversed'))
                .select(['date', sql.ref('asn1').as('asn0'), sql.ref('asn0').as('asn1')])
            : merged;
        };
        // One stretch of the order: `range` sorted, cut at (limit, offset).
        const readRange = async (
          range: typeof query,
          limit: number,
          offset: number,
          seek: LinkSeek | null,
          monthRange?: (month: string) => typeof query,
          otherEnd: OtherEndOrder | null = null,
        ): Promise<AsnLinkRow[]> => {
          if (
            asn !== null &&
            asnList === null &&
            within === null &&
            pageMonths.length === 1 &&
            seek === null &&
            offset < linkPageTuning.keyedPageMinOffset &&
            ((asn1Columns && !isAsnKey(asn1Columns)) ||
              (!historic && linkPageTuning.oneAsnRelationshipArms && relationshipRuns(keys)[0] !== null))
          ) {
            // One ASN's neighbours in one month (W3, S3): SQL compiled once per shape (neighbourPage). By
            // relationship also without asn1's columns, its links then merged from their relationships' ranges.
            return neighbourPage(
              context,
              { month: pageMonths[0]!, asn, limit, offset },
              keys,
              historic,
              columns,
              asn1Columns && !isAsnKey(asn1Columns) ? asn1Columns : [],
            );
          }
          // A deep page takes its keys from the order's covering index first, then reads only its own rows: an OFFSET
          // over whole rows reads every skipped row (the real month's links in the default order, offset 200,000:
          // 127 ms, 10.6 ms this way). Where bookmarks serve the order, the keys start from the nearest one instead of
          // walking every skipped index entry.
          // Over several months always: the keys then come from the order's covering index, where reading whole rows
          // sorted every row of the months (12 generated months by `-numberPaths` with asn1's name: 841 ms at offset 5).
          // Keys from the reversed rows (otherEndOrder), or by relationship in arms (relationshipRuns), come first.
          const listCut = listCuts(limit, offset, otherEnd);
          const keyedPage =
            otherEnd !== null ||
            listCut === 'asn' ||
            (monthRange !== undefined && readsByMonthArms(relationshipRuns(keys).length, offset, limit)) ||
            offset >= linkPageTuning.keyedPageMinOffset ||
            (pageMonths.length > 1 && linkPageTuning.keyedOverSeveralMonths);
          const keyColumns = otherEnd
            ? (['date', KEY_FROM_OTHER_END.asn0, KEY_FROM_OTHER_END.asn1] as const)
            : (['date', 'asn0', 'asn1'] as const);
          const bookmarkedKeys =
            keyedPage && seek
              ? await bookmarkedLinkKeys(context, range, pageMonths, seek, { limit, offset })
              : null;
          // Keys merged from arms (a month's, a relationship's): each arm of every link is one index range in the
          // order, however the values bound, so PostgreSQL may keep the statement's plan (planning 48 arms took 7 ms
          // of 12). Not one AS's or a list's links, whose plans depend on how many links each AS has (AS2503's
          // twelve months by relationship: 79 ms planned per call, 120 with the generic plan).
          // One AS's links in an order of its key's indexes (rank, asn1) are the same index ranges whatever its size.
          const namedMerge =
            listCut !== null ||
            (asnList === null &&
              (asn === null ||
                (within === null && linkPageTuning.oneAsnNamedMerge && keys.every(isOneAsnIndexKey))));
          const mergedKeys =
            keyedPage && !bookmarkedKeys && monthRange
              ? ((await monthArmKeys(monthRange, limit, offset, otherEnd, listCut)) ??
                // One month's too, where no bookmarks of its own serve the order (the pair either way, and `asn1`
                // either way from the reversed rows): PostgreSQL's OFFSET at 408,096 of a generated month took
                // 225-265 ms. Not with `within`, whose part of the links the bookmarks' scope does not name.
                (asn === null && asnList === null && (pageMonths.length > 1 || within === null)
                  ? await monthsBookmarkKeys(monthRange, limit, offset, otherEnd)
                  : null))
              : null;
          const pageKeys = keyedPage
            ? (bookmarkedKeys ??
              mergedKeys ??
              // Before its bookmarks are known, a range without values of a nullable column is still read from that
              // column's index (SeekRange.nullLead): through the primary key, PostgreSQL read each skipped link's
              // row (the generated month's uncorrected links at offset 408,096: 188-250 ms against 55-60).
              (seek?.nullLead && !otherEnd ? range.orderBy(termOrder(seek.nullLead)) : range)
                .select(keyColumns)
                .orderBy(otherEnd ? otherEnd.sql : order)
                .limit(limit)
                .offset(offset))
            : null;
          const pageRows = pageKeys
            ? context.db
                .selectFrom('asn_links')
                .where(sql<boolean>`(asn_links.date, asn_links.asn0, asn_links.asn1) in (${pageKeys})`)
                .orderBy(order)
            : range.orderBy(order).limit(limit).offset(offset);
          // PostgreSQL looks a keyed page's rows up by the neighbour index's (date, asn0) range when that index holds
          // every column read, scanning all of asn0's links for each row (an ASN of 16,000 links: 50 ms a page). No
          // index that starts with (date, asn0) holds `canonical` but the key's, so with it each row is one lookup of
          // its whole key.
          const rowColumns =
            columns && keyedPage && context.dialect === 'postgres'
              ? [...columns, 'canonical' as const]
              : columns;
          const pageQuery = withRowColumns(pageRows, rowColumns);
          return asn1Columns && !isAsnKey(asn1Columns)
            ? linksWithAsn1(
                context,
                pageQuery,
                keys,
                historic,
                asn1Columns,
                // Not a part of them (`within`): the generic plan, which expects an AS's few dozen links, read a
                // part of 18,037 through the neighbour index and sorted it (PostgreSQL: 3.3-8.4 ms against 0.1-0.3).
                asn != null && asnList === null && pageMonths.length === 1 && within === null
                  ? 'frequent'
                  : mergedKeys && namedMerge
                    ? 'occasional'
                    : null,
                pageKeys !== null && context.dialect === 'postgres',
              )
            : mergedKeys && namedMerge
              ? (context.prepared(pageQuery, 'asn_links', 'occasional') as Promise<AsnLinkRow[]>)
              : pageQuery.execute();
        };
        const allLinks = asn === null && asnList === null && !historic && within === null;
        const oneAsnNullable =
          asn !== null && within === null && linkPageTuning.oneAsnValuedApart
            ? nullableSortColumn(keys)
            : null;
        if (oneAsnNullable) {
          // One AS's links by a nullable column alone: those with a value in the order, then the others by the
          // tie-break, each a range its (date, asn0, ...) indexes hand over in order. In one statement the links
          // without a value tie, and SQLite sorted them all through the paths index for any page (an AS of 18,037
          // generated links, none with a path count, by `-numberPaths`: 26 ms a statement, 34-39 ms a request).
          const column = oneAsnNullable;
          const valued = (links: typeof query) => links.where(column, 'is not', null);
          const tieBreak: SortKey[] = [{ key: historic ? 'date' : 'asn0', direction: 'asc' }];
          return nullsLastPage(
            { first: limit, offset },
            {
              nonNull: (limit, offset) => linksPage(pageMonths, keys, historic, limit, offset, valued),
              nulls: (limit, offset) =>
                linksPage(pageMonths, tieBreak, historic, limit, offset, (links) =>
                  links.where(column, 'is', null),
                ),
              countNonNull: () => countRows(valued(query)),
            },
          );
        } else if (
          asn === null &&
          asnList === null &&
          within === null &&
          isCorrectionOnly(keys) &&
          linkPageTuning.splitByCorrection
        ) {
          // The corrected links in the order, then the others by the tie-break, which an index of each month serves
          // (SQLite's (date, canonical, corrected_by, asn0, asn1) with corrected_by null; PostgreSQL does not take the
          // null for one value of the order, so the order is left out). In one statement a descending correction
          // sorted every link of the months, its ties running against that index (one generated month: 1.0 s).
          // Loads write no correction; import-jsonl keeps the dump's.
          const corrected = (links: typeof query) => links.where('corrected_by', 'is not', null);
          const tieBreak: SortKey[] = [{ key: historic ? 'date' : 'asn0', direction: 'asc' }];
          return nullsLastPage(
            { first: limit, offset },
            {
              nonNull: (limit, offset) => linksPage(pageMonths, keys, historic, limit, offset, corrected),
              // One month's uncorrected links by the pair from its bookmarks, as a walk over several months reads them
              // (PostgreSQL at offset 408,096: 125-175 ms every time).
              nulls: (limit, offset) =>
                linksPage(
                  pageMonths,
                  tieBreak,
                  historic,
                  limit,
                  offset,
                  (links) => links.where('corrected_by', 'is', null),
                  false,
                  historic ? null : BY_PAIR_WITHOUT.corrected_by,
                ),
              countNonNull: () => countRows(corrected(query)),
            },
          );
        } else if (allLinks && keys.length === 0) {
          return readRange(query, limit, offset, BY_RANK);
        } else if (allLinks && isPathsAlone(keys)) {
          // The links with a path count, then those without (nulls last either way): two stretches of one index, each
          // of which bookmarks can serve, since neither holds a null sort value. By `numberPaths` as one statement,
          // PostgreSQL's OFFSET at 408,096 of a generated month walked the index (42-46 ms every time; SQLite 15 ms).
          const counted = query.where('number_paths', 'is not', null);
          const byPaths = keys[0]!.direction === 'desc' ? BY_PATHS_DESCENDING : BY_PATHS_ASCENDING;
          return nullsLastPage(
            { first: limit, offset },
            {
              nonNull: (limit, offset) => readRange(counted, limit, offset, byPaths),
              nulls: (limit, offset) =>
                readRange(
                  query.where('number_paths', 'is', null),
                  limit,
                  offset,
                  BY_PAIR_WITHOUT.number_paths,
                ),
              countNonNull: () => countRows(counted),
            },
          );
        } else {
          const otherEndKeys =
            asn === null && asnList === null && linkPageTuning.keysFromOtherEnd
              ? otherEndOrder(keys, linkOrder)
              : null;
          const otherEnd = otherEndKeys && {
            ...otherEndKeys,
            // Named with the table: the keys' select names the reversed rows' asn1 `asn0` and their asn0 `asn1`.
            sql: orderByList(context.dialect, otherEndKeys.keys, ASN_LINK_SORT_COLUMNS, otherEndKeys.order, {
              table: 'asn_links',
            }),
          };
          return readRange(
            otherEnd ? linksOf(pageMonths, true) : query,
            limit,
            offset,
            otherEnd ? null : withinSeek,
            (month) => linksOf([month], otherEnd !== null),
            otherEnd,
          );
        }
      };
      /** One month's links of a part (`within`) by the pair, from that month's bookmarks of the part (`seek`). */
      const pairPageOfMonth = (
        month: string,
        limit: number,
        offset: number,
        within: (links: ReturnType<typeof linksQuery>) => ReturnType<typeof linksQuery>,
        seek: LinkSeek,
      ) => linksPage([month], BY_PAIR_KEYS, false, limit, offset, within, false, seek);
      const query = linksQuery();
      const everyLink = asn === null && asnList === null;
      const linkTotals = monthTotals(context, 'asn_links', {}, (month) =>
        linksQuery(dateIn(context.dialect, 'date', [month])),
      );
      // Every link over several months in an order that starts with the month: month by month (monthByMonth.ts).
      // Several months: the sum of the months' totals. One AS's links or a list's: the counts their rows keep, read
      // once for the total and the walk.
      const keptCounts = (asn !== null) !== (asnList !== null) && linkPageTuning.keptAsnLinkCounts;
      // One AS's links or a list's by relationship (then by the month), over several months or deep into one month:
      // blocks of one AS's links of one relationship in one month, sized by the counts its rows keep. Shallow pages of
      // one month are one statement already (neighbourPage, the list's relationship cuts).
      const blockAsns = asn !== null ? [asn] : [...new Set(asnList)].sort((a, b) => a - b);
      const keptBlocks =
        keptCounts &&
        linkPageTuning.keptRelationshipBlocks &&
        blockAsns.length <= linkPageTuning.keptRelationshipBlocksMaxAsns &&
        (months.length > 1 || page.offset >= linkPageTuning.keyedPageMinOffset)
          ? relationshipBlocks(keys, months)
          : null;
      // Where blocks may be walked, their sizes give the months' totals too: one statement for both.
      let keptBlockTotals: Promise<KeptBlockTotals> | undefined;
      const blockTotalsOf = () => (keptBlockTotals ??= keptAsnLinkBlockTotals(context, blockAsns, months));
      let keptMonthTotals: Promise<Map<string, number>> | undefined;
      const keptTotalsOf = keptCounts
        ? () =>
            (keptMonthTotals ??= keptBlocks
              ? blockTotalsOf().then((totals) => totals.months)
              : keptAsnLinkMonthTotals(context, asn !== null ? [asn] : asnList!, months))
        : null;
      const totalCount =
        everyLink && months.length > 1
          ? () => linkTotals.sum(months)
          : keptTotalsOf
            ? async () => [...(await keptTotalsOf()).values()].reduce((sum, total) => sum + total, 0)
            : () => listTotal(context, query, everyLink ? monthListScope('asn_links', months, {}) : null);
      // Only the total asked (no edges, no pageInfo): no page is read.
      if (!connectionNeeds(info).nodes) return { nodes: [], totalCount, ...page };
      let nodes: AsnLinkRow[];
      const blocks = everyLink ? relationshipBlocks(keys, months) : null;
      const nullableColumn = everyLink && months.length > 1 ? nullableColumnAlone(keys) : null;
      // Then by the month, no arm is a relationship's (relationshipRuns): each month's arm by `-relationship` sorted
      // the month (12 generated months' first 50 by `-relationship,date`: 630-800 ms), so the blocks at any depth.
      const keptLinks = keptBlocks ? await totalCount() : 0;
      const blockWalk =
        keptBlocks &&
        keptLinks >= linkPageTuning.keptRelationshipBlocksFrom &&
        keptBlockWalk(
          await blockTotalsOf(),
          keptBlocks,
          blockAsns,
          page,
          linkPageTuning.keptRelationshipBlocksPerPage +
            Math.floor(keptLinks / linkPageTuning.keptRelationshipLinksPerBlock),
        );
      if (blockWalk) {
        const blockKeys: SortKey[] = [{ key: 'relationship', direction: 'asc' }];
        const { columns: blockColumns, asn1Columns } = linkPageColumns(info, blockKeys, LINK_ORDER);
        // Within a block the order is the pair's (the ASN's, then asn1), as after the relationship and the month.
        nodes = await pageMonthByMonth(
          blockWalk,
          page.first,
          page.offset,
          async ({ links }) => links,
          ({ month, asn0, relationship }, limit, offset) =>
            neighbourPage(
              context,
              { month, asn: asn0, limit, offset },
              blockKeys,
              false,
              blockColumns,
              asn1Columns && !isAsnKey(asn1Columns) ? asn1Columns : [],
              undefined,
              relationship,
            ),
        );
      } else if (
        blocks &&
        (keys.length > 1 ||
          !readsByMonthArms(months.length * LINK_RELATIONSHIPS.length, page.offset, page.first))
      ) {
        // Deeper than the relationship arms read: block by block, the same walk as month by month.
        const totals = new Map(
          LINK_RELATIONSHIPS.map((relationship) => [
            relationship,
            monthTotals(context, 'asn_links', { relationship }, (month) =>
              linksQuery(dateIn(context.dialect, 'date', [month])).where('relationship', '=', relationship),
            ),
          ]),
        );
        nodes = await pageMonthByMonth(
          blocks,
          page.first,
          page.offset,
          ({ relationship, month }) => totals.get(relationship)!.of(month),
          // A block's links by the pair from the month's bookmarks of that block: its OFFSET walked the relationship's
          // index (PostgreSQL at 408,096 of a generated month: 34-42 ms every time; SQLite 12-15 ms).
          ({ relationship, month }, limit, offset) =>
            pairPageOfMonth(
              month,
              limit,
              offset,
              (links) => links.where('relationship', '=', relationship),
              byPairWithin(relationship),
            ),
        );
      } else if (nullableColumn && !readsByMonthArms(months.length, page.offset, page.first)) {
        // Deeper than arms read, by a nullable column alone: the links with a value (among which the months'
        // bookmarks serve a path count), then the others, which follow by month and pair, month by month.
        const column = nullableColumn;
        const valued = (links: typeof query) => links.where(column, 'is not', null);
        const unvalued = (links: typeof query) => links.where(column, 'is', null);
        const monthLinks = (month: string) => linksQuery(dateIn(context.dialect, 'date', [month]));
        const valuedTotals = valuedLinkTotals(context, column);
        const unvaluedTotals = monthTotals(context, 'asn_links', { [column]: 'null' }, (month) =>
          unvalued(monthLinks(month)),
        );
        nodes = await nullsLastPage(page, {
          nonNull: (limit, offset) =>
            linksPage(months, keys, historic, limit, offset, valued, column === 'number_paths'),
          nulls: (limit, offset) =>
            // A month's links without a value from its bookmarks by the pair: one month's OFFSET walked the index
            // (PostgreSQL at 315,078: 186 ms).
            pageMonthByMonth([...months].sort(), limit, offset, unvaluedTotals.of, (month, limit, offset) =>
              pairPageOfMonth(month, limit, offset, unvalued, BY_PAIR_WITHOUT[column]),
            ),
          countNonNull: () => valuedTotals.sum(months),
        });
      } else if (
        (everyLink || (keptTotalsOf && linkPageTuning.keptTotalsMonthByMonth)) &&
        readsMonthByMonth(months, keys)
      ) {
        const walk = monthWalkOf(months, keys, BY_PAIR_KEYS[0]!);
        nodes = await pageMonthByMonth(
          walk.months,
          page.first,
          page.offset,
          keptTotalsOf ? async (month) => (await keptTotalsOf()).get(month) ?? 0 : linkTotals.of,
          (month, limit, offset) => linksPage([month], walk.monthKeys, false, limit, offset),
        );
      } else nodes = await linksPage(months, keys, historic, page.first, page.offset);
      return { nodes, totalCount, ...page };
    },
  }),
}));
