// Organization: an AS-owning organization in one month; root fields `organization` and `organizations`.
import type { GraphQLResolveInfo } from 'graphql';
import { parseSort, type SortKey } from '@asrank/domain';
import { sql, type Expression, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { Database, DialectName } from '@asrank/db';
import { builder } from '../builder';
import type { AsnRow, AsrankContext, OrganizationRow } from '../context';
import { intervalOf, loadInMonth, monthNow, monthsIn, pageOf, type PageArgs } from '../args';
import { listTotal, monthListScope, monthTotals, rankedListTotal } from '../listTotals';
import {
  boundDateIn,
  byPrimaryKey,
  dateIn,
  orderByList,
  dataVersionColumn,
  sortKeysNamed,
  withOrderColumns,
  type SortColumn,
} from '../sql';
import { listPage, monthArmsOfName, monthBookmarks, monthsOfList, type NamedListFilter } from '../listPage';
import { monthOrderOf, monthWalkOf, pageMonthByMonth, readsMonthByMonth } from '../monthByMonth';
import { nestedPage } from '../nestedPages';
import { nameConditions } from '../nameSearch';
import { connectionOf, type ConnectionPage } from './pageInfo';
import { CountryRef, OrganizationRef } from './refs';
import { AsnDegreeRef, ConeRef, OrgDegreeRef, PARENT_ITSELF } from './stats';
import { ASN_ORDER, ASN_SORT_COLUMNS, AsnConnection, asnsOfOrganizations } from './asn';
import {
  AsnLinkConnection,
  asnLinksOfOrganizations,
  keptOrganizationCounts,
  organizationMemberLinks,
  organizationNeighborRanks,
  allMemberLinks,
  organizationMembers,
  outsideOrganization,
} from './asnLink';
import { servedByIndex } from '../monthArms';
import { perHandle } from '../perHandle';
import { connectionNeeds, selectedAsnNodeColumns, type ConnectionNeeds } from '../asnColumns';

const ORGANIZATION_SORT_COLUMNS: Record<string, SortColumn> = {
  orgId: { column: 'org_id', text: true },
  orgName: { column: 'org_name', text: true, fewTies: true },
  rank: { column: 'rank', nullable: true, fewTies: true },
  'asnDegree.provider': { column: 'degree_provider' },
  'asnDegree.peer': { column: 'degree_peer' },
  'asnDegree.customer': { column: 'degree_customer' },
  'asnDegree.transit': { column: 'degree_transit' },
  'asnDegree.sibling': { column: 'degree_sibling' },
  'asnDegree.total': { column: 'degree_total' },
  'cone.numberAsns': { column: 'cone_asns' },
  'cone.numberPrefixes': { column: 'cone_prefixes' },
  'cone.numberAddresses': { column: 'cone_addresses' },
  date: { column: 'date' },
};
const ORGANIZATION_ORDER = {
  defaults: [{ key: 'rank', direction: 'asc' }],
  unique: [{ key: 'orgId', direction: 'asc' }],
} satisfies {
  defaults: SortKey[];
  unique: SortKey[];
};
const ORGANIZATION_HISTORIC_ORDER = {
  defaults: [{ key: 'date', direction: 'asc' }, ...ORGANIZATION_ORDER.defaults],
  unique: [{ key: 'date', direction: 'asc' }, ...ORGANIZATION_ORDER.unique],
} satisfies { defaults: SortKey[]; unique: SortKey[] };

export const OrganizationConnection = connectionOf(
  'Organization',
  OrganizationRef,
  'A page of organizations.',
);

const MembersRef = builder.objectRef<OrganizationRow>('OrganizationMembers').implement({
  description: 'The ASNs an organization owns.',
  fields: (t) => ({
    numberAsns: t.int({ resolve: (org) => Number(org.number_asns) }),
    numberAsnsSeen: t.int({ resolve: (org) => Number(org.number_asns_seen) }),
    asns: t.field({
      type: AsnConnection,
      description: 'Member ASNs in the organization’s month (default order: rank, then ASN).',
      args: { first: t.arg.int(), offset: t.arg.int(), sort: t.arg.string() },
      resolve: (org, args, context, info) =>
        asnsOfOrganizations(
          context,
          org.date,
          pageOf(args),
          args.sort,
          connectionNeeds(info),
          selectedAsnNodeColumns(info),
        ).load(org.org_id),
    }),
  }),
});

/**
 * The link order in which each member's own index range lists its neighbours in the neighbour order of `keys`, or
 * null. The default order (rank, then ASN) is the links' own (date, asn0, rank, asn1): loads rank a link by its ends'
 * ranks, the better first (rankLinks), so one ASN's links by rank are its neighbours by rank, the unranked last. An
 * order by ASN is the primary key's (date, asn0, asn1), either way; an ASN is unique, so no key after it orders
 * anything.
 */
function neighborLinkOrder(keys: readonly SortKey[]): SortKey[] | null {
  const [first, second, ...rest] = keys;
  if (first === undefined) return [];
  if (first.key === 'asn') return [{ key: 'asn1', direction: first.direction }];
  const byRank =
    first.key === 'rank' &&
    first.direction === 'asc' &&
    (second === undefined || (second.key === 'asn' && second.direction === 'asc' && rest.length === 0));
  return byRank ? [] : null;
}

/** An organization (`parent_key`) and one of its neighbours. */
interface NeighborKey {
  parent_key: string;
  neighbor: number;
  /** Its place in the organization's neighbours, where firstNeighbors numbers them. */
  place?: number;
}

export const organizationNeighborTuning = {
  /**
   * The steps a member's walk may take for each of its links (neighborWalk); 0: no member walks. A step (one record of
   * the month's order, its link tested by key) costs about what placing one link does (its far end looked up, then
   * ranked with the organization's others), and a walk that ends short of its neighbours places the links as well, its
   * steps spent for nothing: so half a step. At 1, walks by an ascending order took up to a third longer than placing
   * (the real month's 100 largest organizations' first 4 neighbours by `cone.numberAsns` on PostgreSQL: 260 -> 348 ms;
   * 324 at a half), while over 64 pages in 8 orders on the four benchmark stores a half read 3% more than 1 in all
   * (docs/performance.md, the seventy-first round).
   */
  stepsPerLink: 0.5,
  /**
   * On PostgreSQL, the links a batch places (placedLinks), as a share of the month's records, from which their far
   * ends' records are joined from all of the month's, hashed, rather than looked up one by one. A lookup through the
   * (asn, date) index PostgreSQL picks costs ~4.5 µs on the generated 12 months, less on one month, and hashing the
   * month's 83,000-88,000 records ~35-40 ms: in process, the 100 largest organizations' first 4 neighbours by
   * `cone.numberAsns` (37,483 links placed) 780 -> 338 ms on the generated months, and the real month's 30 at rank 50
   * (9,956 links) 50 -> 65 ms (docs/performance.md, the seventy-first round). 0: always; Infinity: never.
   */
  monthJoinShare: 0.25,
  /**
   * The share of the month's records that must hold the first value of a one-key order among those with links for
   * members to walk their own links to their first neighbours of that value (neighborClassWalk); Infinity: never.
   * Where most records share it (`cone.numberAsns`, `asnDegree.customer`), the 100 largest organizations' first 4
   * neighbours took 22-41 ms against 138-336 (docs/performance.md, the seventy-second round).
   */
  classWalkShare: 0.5,
  /**
   * ...or the share of the month's link ends (its records' links, as their rows keep them) that the class holds: a class
   * as common among link ends as among records is as common among a member's neighbours. By `-source` (its first value
   * 36-38% of the records, 37-47% of the link ends) the 100 largest organizations' first 5 neighbours took 52-101 ms
   * over HTTP, 12-44 with class walks; by `asnName` on the real month (its 10,554 unnamed records, 13% of them and 17%
   * of the link ends) 69 -> 38 ms on SQLite, the same on PostgreSQL. A class of records of one link each is not:
   * `asnDegree.total` (25-34% of the records, 3-4% of the link ends) walked the small organizations' members for
   * nothing (1,000 organizations' first 2 on PostgreSQL: 313 -> 702 ms). Docs/performance.md, the seventy-fifth round.
   * Infinity: never.
   */
  classWalkLinkShare: 0.15,
  /**
   * A class walk's steps, in the steps it expects to take (neighborClassWalk): a member's neighbours lie unevenly in the
   * class (the real month's largest members by `cone.numberAsns` took 4 to 77 steps to their first 4, where 5 to 7 were
   * expected), and a walk cut short places the member's links as well. At 32 the real month's pages by
   * `asnDegree.customer` took 22 ms on SQLite against 33 at 16, the generated month's the same.
   */
  classWalkSteps: 32,
  /**
   * Shorter walks of the month (neighborWalk's arms below its first): a member of L links walks L * stepsPerLink records
   * (L a power of two) where the link ends those first records of the month hold, spread over the member's L links,
   * would put this many times `end` of them in its walk. Ordered by a size the month's first records hold many of its
   * link ends (the largest ASes are most ASes' neighbours), and the generated month's 100 largest organizations' members
   * of 100-838 links reach their first 4 by `-cone.numberAsns` in 25 steps (median); ordered by a name, no member walks
   * shorter. In process, the 100 largest organizations' first 4 by `-cone.numberAsns`, `-asnDegree.customer` and
   * `-cone.numberPrefixes`: 97-141 -> 40-64 ms on the four stores. At 2, pages of 20 at offset 100 of the generated
   * month read up to 12% slower than with none (walks that end short); at 4, up to 5%; at 8 the real month's gains
   * halved (docs/performance.md, the seventy-second round). Infinity: no shorter walks.
   */
  shorterWalkEnds: 4,
  /**
   * Placed members' links cut to each member's first `end` neighbours before the organization's distinct and window
   * (membersFirstNeighbors; on PostgreSQL with the month hashed, a window per member): those ranked every placed link,
   * and by an order without a walk (`asnDegree.total` ascending on the real month) the 100 largest organizations place
   * 76,000. In process, their first 4 by `asnDegree.total`: 243 -> 116 ms on SQLite, 250 -> 149 on PostgreSQL
   * (docs/performance.md, the seventy-third round). false: every placed link is ranked, as before.
   */
  memberCuts: true,
  /**
   * On PostgreSQL, the placed members' links beyond each one's `end` (placedLinks) from which members are cut
   * (memberCuts): a cut is a statement arm more to plan, and its member's far ends are looked up as the links' are, so
   * where it drops a few links it costs more than it saves (the real month's 30 organizations at rank 50, first 4 by
   * `-cone.numberAsns`: 1,400 links placed, 18.7 -> 20.5 ms cut). 0: always.
   */
  memberCutLinks: 4000,
  /**
   * Neighbours in an order a member's own links serve (neighborLinkOrder: rank, or ASN) numbered from the columns the
   * order reads, before the page's alone are read whole, as the other orders' are (firstPlaced): the window ranked the
   * whole records of every distinct neighbour the members' first `end` links reach (the real month's 100 largest
   * organizations' 20 at offset 100: 16,191 records read for 1,903). Over HTTP, those 20 at offset 100 by rank:
   * 85-88 -> 59-62 ms on SQLite, 106-112 -> 100-102 on PostgreSQL; by ASN 68-82 -> 40-45 and 101-103 -> 70
   * (docs/performance.md, the seventy-fifth round). false: ranked whole, as before.
   */
  numberedLinkOrder: true,
  /**
   * Numbered neighbours by rank take each far end's rank from the member's cut, which looks the far end up for its
   * organization (organizationNeighborRanks), not from a lookup of their own after it (off only to compare, in tests).
   */
  memberRanksFarEnds: true,
};

/** How a batch's members place their neighbours (firstNeighbors). */
interface Placing {
  /** On PostgreSQL, with their far ends' records from the month's hashed, not looked up by key. */
  fromMonth: boolean;
  /** Each member's first `end` neighbours alone (memberCuts). */
  cutsMembers: boolean;
}

/** The walkers of at least `minLinks` links (and fewer than the next arm's) and how far each walks: `steps`. */
export interface NeighborWalkArm {
  minLinks: number;
  steps: number;
}

/**
 * Which members walk to their first `end` neighbours, and how far (neighborWalk): those of at least one arm's `minLinks`
 * links, over the month's first records in the page's order, as many as their arm's `steps` (arms by `minLinks`
 * ascending, the first's the least walker's: walkerLinks).
 */
export interface NeighborWalk {
  arms: readonly NeighborWalkArm[];
  /** A class walk's (neighborClassWalk): the column of the order's key and the first value, which the walk reads. */
  firstClass?: { column: string; value: string | number };
  /** A walk of the month's: where it starts, the first key's first value among the records with links (monthWalk). */
  from?: WalkStart;
}

/** The least links a member walks with (`walk`'s first arm's): members of fewer place theirs. */
export function walkerLinks(walk: NeighborWalk): number {
  return walk.arms[0]!.minLinks;
}

/** The records of a month from `value` of `column` on, in `direction`: those before it have no links. */
interface WalkStart {
  column: string;
  value: string | number;
  direction: 'asc' | 'desc';
}

/** `v`'s records of a month from `start` on (WalkStart), or every one. */
function fromStart(start: WalkStart | undefined) {
  if (start === undefined) return sql<boolean>`true`;
  const column = sql.ref(`v.${start.column}`);
  return start.direction === 'asc'
    ? sql<boolean>`${column} >= ${start.value}`
    : sql<boolean>`${column} <= ${start.value}`;
}

/**
 * The records of the month in the page's order that its first walkers pass at most (neighborWalk), for a page ending at
 * row `end` of a month of `monthAsns` records: stepsPerLink for each link of the least member that a month whose links
 * spread evenly would let reach `end` (L² >= end * A / stepsPerLink; the generated month's 88,000 records, a page of 4:
 * 839 links, 420 steps).
 */
export function neighborWalkSteps(
  end: number,
  monthAsns: number,
  stepsPerLink = organizationNeighborTuning.stepsPerLink,
): number {
  return Math.ceil(stepsPerLink * leastWalkerLinks(end, monthAsns, stepsPerLink));
}

/** The links of the first arm's least walker (neighborWalkSteps): L² >= end * A / stepsPerLink. */
function leastWalkerLinks(end: number, monthAsns: number, stepsPerLink: number): number {
  return Math.max(1, Math.ceil(Math.sqrt((end * monthAsns) / stepsPerLink)));
}

/**
 * The walk for a page ending at row `end` of a month of `monthAsns` records and `monthLinks` links, of which
 * `walkedLinks` are the link counts of the month's first records in the page's order (neighborWalkSteps of them).
 * - A member's L links spread evenly over the month would put about end * A / L records before its first `end`
 *   neighbours, which is within stepsPerLink * L steps from L² >= end * A / stepsPerLink: the first arm, which walks
 *   as far as its least member may. Neighbours are not spread evenly, though: the real month's largest ASes' neighbours
 *   are few among the ASes of the smallest cones, and walking to them by `cone.numberAsns` took 25,000 steps for
 *   members of 1,254 links (the 100 largest organizations' 41 members of over 1,000 links: 990,000 steps against
 *   their 63,000 links). So no walk goes further than its arm's `steps`, and a member whose walk ends short of `end`
 *   places its links too.
 * - Below it, arms of members of 2^k links walk stepsPerLink * 2^k records each, as long as those first records hold
 *   link ends enough to put shorterWalkEnds * `end` of the member's links among them (2^k * ends(steps) >=
 *   shorterWalkEnds * end * monthLinks). Ordered by a size they do: the largest ASes are most ASes' neighbours. A walk
 *   cut short costs half of what placing its member's links does.
 */
export function neighborWalk(
  end: number,
  monthAsns: number,
  walkedLinks: readonly number[],
  monthLinks: number,
  stepsPerLink = organizationNeighborTuning.stepsPerLink,
): NeighborWalk {
  const minLinks = leastWalkerLinks(end, monthAsns, stepsPerLink);
  const arms = [{ minLinks, steps: neighborWalkSteps(end, monthAsns, stepsPerLink) }];
  const endsWithin = (steps: number) => walkedLinks.slice(0, steps).reduce((sum, links) => sum + links, 0);
  for (let links = 2 ** Math.floor(Math.log2(minLinks - 1)); links >= 1; links /= 2) {
    const steps = Math.ceil(stepsPerLink * links);
    if (
      steps < end ||
      links * endsWithin(steps) < organizationNeighborTuning.shorterWalkEnds * end * monthLinks
    )
      break;
    arms.unshift({ minLinks: links, steps });
  }
  return { arms };
}

/**
 * The class walk for a page ending at row `end` of a month of `monthAsns` records, `classSize` of which hold the order's
 * first value among the records with links (`firstClass`). Where the order is one key (then the ASN ascending) and the
 * class is most of the month (`cone.numberAsns`: the stubs, 79,795 of the generated month's 87,903 records
 * and 50,774 of the real month's 83,137), a member's first neighbours are most likely of that value, and none can come
 * before it: the member's own links, read by ASN with each far end's record, reach its first `end` of the class after
 * about end * A / classSize steps (4 to 77 for the real month's largest members, 4 to 6 for the generated month's). A
 * walk of the month's records in the order would first pass those without links (cone 0: the real month's first
 * 23,384), and found none of the 100 largest organizations' neighbours in its 420 steps. Members of fewer than twice the
 * expected steps' links place theirs.
 */
export function neighborClassWalk(
  end: number,
  monthAsns: number,
  classSize: number,
  firstClass: { column: string; value: string | number },
): NeighborWalk {
  const expectedSteps = (end * monthAsns) / Math.max(1, classSize);
  const minLinks = Math.ceil(2 * expectedSteps);
  const steps = Math.ceil(organizationNeighborTuning.classWalkSteps * expectedSteps);
  return { arms: [{ minLinks, steps }], firstClass };
}

/**
 * The key of an order a class walk can take (neighborClassWalk): one key, either way, then the ASN ascending, as a
 * member's links are read. (Descending, the first class is most often a few records, and no walk is taken.)
 */
function classWalkKey(keys: readonly SortKey[]): SortKey | null {
  const [first, ...rest] = keys;
  if (first === undefined || first.key === 'asn') return null;
  const thenAsn = rest.every((key) => key.key === 'asn' && key.direction === 'asc');
  return thenAsn ? first : null;
}

/** The first value of an order's key among a month's records with links, and how many of the month's records hold it. */
interface FirstClass {
  value: string | number;
  size: number;
}

/**
 * What the walks know of a month, kept per data version and handle: each read once (a month's first class by
 * `cone.numberAsns` passes its records without links one by one: the real month's 23,384, ~20 ms).
 */
const monthWalkFactsOf = perHandle<object, { version: string; byId: Map<string, Promise<unknown>> }>(() => ({
  version: '',
  byId: new Map(),
}));

/**
 * `read()`'s value kept under `id` for the request's data version (monthWalkFactsOf); null when the read fails. `read`
 * takes the version from the same statement as the value (dataVersionColumn): a value read at another version (a load
 * committed in between) serves this request but is not kept, since a class's value or a walk's start from other data
 * could leave neighbours out of a page.
 */
async function keptMonthWalkFact<T>(
  context: AsrankContext,
  id: string,
  read: () => Promise<{ version: string | null; value: T }>,
): Promise<T | null> {
  const version = await context.dataVersion();
  const kept = monthWalkFactsOf(context.db);
  if (kept.version !== version) {
    kept.version = version;
    kept.byId.clear();
  }
  let fact = kept.byId.get(id) as Promise<T> | undefined;
  if (!fact) {
    const dropped = () => {
      if (kept.version === version) kept.byId.delete(id);
    };
    fact = read().then((answer) => {
      if (answer.version !== version) dropped();
      return answer.value;
    });
    kept.byId.set(id, fact);
    // A failed read is not kept either: the page walks otherwise or places, and the next one asks again.
    fact.catch(dropped);
  }
  return fact.catch(() => null);
}

/** A month's first class of `key`'s order (FirstClass), or null when no record with links has a value. */
function monthFirstClass(context: AsrankContext, date: string, key: SortKey): Promise<FirstClass | null> {
  const { column } = ASN_SORT_COLUMNS[key.key]!;
  // The first value is the order's: the least ascending, the greatest descending.
  return keptMonthWalkFact(context, `class\u0000${date}\u0000${column}\u0000${key.direction}`, async () => {
    const { db, dialect } = context;
    const value = sql.ref<string | number | null>(column);
    const first = await db
      .selectFrom('asns')
      .select([value.as('value'), dataVersionColumn()])
      .where('date', '=', date)
      .where('number_asn_links', '>', 0)
      .where(value, 'is not', null)
      // The order's own (a text column's in PostgreSQL's "C" collation), so the value is the order's first.
      .orderBy(orderByList(dialect, [key], ASN_SORT_COLUMNS, ASN_ORDER))
      .limit(1)
      .executeTakeFirst();
    const version = first?.data_version ?? null;
    if (first?.value === null || first?.value === undefined) return { version, value: null };
    const counted = await db
      .selectFrom('asns')
      .select((eb) => eb.fn.countAll<number | string>().as('size'))
      .where('date', '=', date)
      .where(value, '=', first.value)
      .executeTakeFirstOrThrow();
    return { version, value: { value: first.value, size: Number(counted.size) } };
  });
}

/** How the members of a page ending at row `end` of a month of `monthAsns` records walk, or null: none does. */
type WalkOfPage = (
  context: AsrankContext,
  date: string,
  keys: readonly SortKey[],
  end: number,
  monthAsns: number,
) => Promise<NeighborWalk | null>;

/**
 * A walk of the month's records in the page's order (neighborWalk) where an index serves the order, from the link
 * counts of its first records (kept per data version) and the month's count of links (kept by the loads, migration
 * 019), or null.
 */
const monthWalk: WalkOfPage = async (context, date, keys, end, monthAsns) => {
  if (!(await neighborWalkServed(context, date, keys))) return null;
  const { db, dialect } = context;
  const steps = neighborWalkSteps(end, monthAsns);
  // A month's first records in an ascending order of a count are often those without links (cone 0, no prefixes:
  // the real month's first 23,384 by `asnDegree.total`), which no walk can find a neighbour among: walks start at the
  // first key's first value among the records with links. Not for a text or nullable key (a collation or the nulls
  // would move the bound off the order).
  const [first] = keys;
  const firstColumn = first && ASN_SORT_COLUMNS[first.key];
  const firstValue =
    first && firstColumn && !firstColumn.text && !firstColumn.nullable
      ? await monthFirstClass(context, date, first)
      : null;
  const from: WalkStart | undefined = firstValue
    ? { column: firstColumn!.column, value: firstValue.value, direction: first!.direction }
    : undefined;
  // Read for the next power of two of steps, so that pages ending at any row keep a few reads an order, not one each
  // (a read for a page ending at row 10,000 of the generated month holds 21,000 counts).
  const readSteps = 2 ** Math.ceil(Math.log2(steps));
  const [walkedLinks, monthLinks] = await Promise.all([
    keptMonthWalkFact(context, `links\u0000${date}\u0000${sortKeysNamed(keys)}\u0000${readSteps}`, () =>
      db
        .selectFrom('asns as v')
        .select(['v.number_asn_links', dataVersionColumn()])
        .where('v.date', '=', date)
        .where(fromStart(from))
        .orderBy(orderByList(dialect, keys, ASN_SORT_COLUMNS, ASN_ORDER, { table: 'v' }))
        .limit(readSteps)
        .execute()
        .then((rows) => ({
          version: rows[0]?.data_version ?? null,
          value: rows.map((row) => Number(row.number_asn_links)),
        })),
    ),
    monthCount(context, 'asn_links', date),
  ]);
  return { ...neighborWalk(end, monthAsns, walkedLinks?.slice(0, steps) ?? [], monthLinks), from };
};

/** A class walk for the page's order where one pays (neighborClassWalk), or null. */
const firstClassWalk: WalkOfPage = async (context, date, keys, end, monthAsns) => {
  const key = classWalkKey(keys);
  if (key === null) return null;
  const firstClass = await monthFirstClass(context, date, key);
  if (firstClass === null) return null;
  if (
    firstClass.size < organizationNeighborTuning.classWalkShare * monthAsns &&
    !(await holdsLinkShare(context, date, key, firstClass))
  )
    return null;
  const { column } = ASN_SORT_COLUMNS[key.key]!;
  return neighborClassWalk(end, monthAsns, firstClass.size, { column, value: firstClass.value });
};

/**
 * The links of the members of organizations `orgIds` with fewer than `minLinks` links (as their rows keep them,
 * migration 020): the links a batch places, but for those of walks that end short; and of those, the ones beyond
 * each member's `end`, which cuts of each member's first `end` drop (memberCuts).
 */
async function placedLinks(
  context: AsrankContext,
  date: string,
  orgIds: readonly string[],
  minLinks: number,
  end: number,
): Promise<{ links: number; beyondEnd: number }> {
  const row = await organizationMembers(context, date, orgIds)
    .select((eb) => [
      eb.fn.sum<number | string | null>('a.number_asn_links').as('links'),
      sql<number | string | null>`sum(greatest(a.number_asn_links - ${end}, 0))`.as('beyond_end'),
    ])
    .where('a.number_asn_links', '<', minLinks)
    .executeTakeFirst();
  return { links: Number(row?.links ?? 0), beyondEnd: Number(row?.beyond_end ?? 0) };
}

/**
 * Whether `firstClass` holds at least classWalkLinkShare of the month's link ends: its records' links (as their rows
 * keep them, migration 020) against the month's links (its list's total, kept by the loads). Read once a data version.
 */
async function holdsLinkShare(
  context: AsrankContext,
  date: string,
  key: SortKey,
  firstClass: FirstClass,
): Promise<boolean> {
  const share = organizationNeighborTuning.classWalkLinkShare;
  if (!Number.isFinite(share)) return false;
  const { column } = ASN_SORT_COLUMNS[key.key]!;
  const [classLinks, monthLinks] = await Promise.all([
    keptMonthWalkFact(context, `class links\u0000${date}\u0000${column}\u0000${key.direction}`, async () => {
      const row = await context.db
        .selectFrom('asns')
        .select((eb) => [
          eb.fn.sum<number | string | null>('number_asn_links').as('links'),
          dataVersionColumn(),
        ])
        .where('date', '=', date)
        .where(sql.ref(column), '=', firstClass.value)
        .executeTakeFirstOrThrow();
      return { version: row.data_version ?? null, value: Number(row.links ?? 0) };
    }),
    monthCount(context, 'asn_links', date),
  ]);
  // Each link has two ends, one in each of its two rows.
  return classLinks !== null && monthLinks > 0 && classLinks >= share * 2 * monthLinks;
}

/**
 * The month's count of ASN records or of links (each link once, though it has two rows): its list's total, which the
 * loads keep (migration 019).
 */
function monthCount(context: AsrankContext, table: 'asns' | 'asn_links', date: string): Promise<number> {
  return listTotal(
    context,
    context.db.selectFrom(table).where('date', '=', date),
    monthListScope(table, [date], {}),
  );
}

/**
 * The month's records (`alias`) outside a member's (`a`) organization that it links to. PostgreSQL would make the
 * EXISTS a join, drive it from the member's links and sort them, which is what a walk is for avoiding; an OFFSET keeps
 * it a test of each record.
 */
function linkedOutside(dialect: DialectName, alias: string) {
  const apart = dialect === 'postgres' ? sql` offset 0` : sql``;
  return sql<boolean>`${outsideOrganization(alias)} and exists (select 1 from asn_links x where x.date = a.date
    and x.asn0 = a.asn and x.asn1 = ${sql.ref(`${alias}.asn`)}${apart})`;
}

/**
 * Whether the database reads the month's records in the neighbour order of `keys` from an index, without a sort, as a
 * member's walk does. Asked once per order and process (servedByIndex).
 */
function neighborWalkServed(
  context: AsrankContext,
  date: string,
  keys: readonly SortKey[],
): Promise<boolean> {
  const { db, dialect } = context;
  const walk = db
    .selectFrom('asns as v')
    .select('v.asn')
    .where('v.date', '=', date)
    .orderBy(orderByList(dialect, keys, ASN_SORT_COLUMNS, ASN_ORDER, { table: 'v' }))
    .limit(sql<number>`cast(${1} as integer)`);
  return servedByIndex(db, dialect, walk);
}

/**
 * Each organization's (`parent_key`) neighbours that a page from row `offset` to `end` in the order of `keys`
 * (`order`) can show: in an order of the neighbours' records those of the page alone, numbered (`place`); by ASN its
 * first `end`, or more. An organization's first `end` neighbours are among its members' first `end` each. `walk`: how
 * the members of many links find theirs, where an index serves the order (neighborWalk); `placing`: how the others
 * place theirs.
 */
function firstNeighbors(
  context: AsrankContext,
  date: string,
  orgIds: string[],
  keys: readonly SortKey[],
  order: RawBuilder<unknown>,
  { offset, end }: { offset: number; end: number },
  walk: NeighborWalk | null,
  placing: Placing,
  // In an order of a member's links, the page's neighbours numbered before they are read whole (numbersLinkOrder).
  numbered: boolean,
) {
  const { dialect } = context;
  const linkOrder = neighborLinkOrder(keys);
  if (linkOrder) {
    if (numbered && linkOrder.length === 0 && organizationNeighborTuning.memberRanksFarEnds)
      return firstPlaced(organizationNeighborRanks(context, date, orgIds, end), order, offset, end);
    const pairs = organizationMemberLinks(context, date, orgIds, linkOrder, end, { recordedFarEnd: true })
      .select(['a.org_id as parent_key', 'l.asn1 as neighbor'])
      .distinct();
    if (!numbered) return sql<NeighborKey>`${pairs}`;
    // By ASN the pair is all the order reads; by rank, each neighbour's rank from the narrow index of the records.
    const fromPairs = context.db.selectFrom(pairs.as('o'));
    const placedPairs =
      linkOrder.length > 0
        ? fromPairs.select(['o.parent_key', 'o.neighbor as asn'])
        : withNeighborRecords(dialect, date, fromPairs, 'b', ['date', 'asn', 'rank']).select([
            'o.parent_key',
            'b.asn',
            'b.rank',
          ]);
    return firstPlaced(placedPairs, order, offset, end);
  }
  // Otherwise each member's neighbours are placed by the columns the order reads, and only the first `end` of each
  // organization are read whole: ranking the whole records of the 100 largest organizations' 115,000 neighbours (the
  // generated month) took 680 ms on SQLite and 1.2 s on PostgreSQL.
  const orderColumns = withOrderColumns(['asn'], keys, ASN_SORT_COLUMNS, ASN_ORDER)!;
  const placedColumns = (alias: string) =>
    orderColumns.map((column) => sql.ref(`${alias}.${column}`).as(column));
  const farEndColumns = ['date', 'org_id', ...orderColumns];
  // The OFFSET keeps the month's records a whole PostgreSQL hashes, not one it looks into for each link.
  const farEnds = placing.fromMonth
    ? sql<Database['asns']>`(select ${sql.join(farEndColumns.map((column) => sql.ref(column)))} from asns
        where date = ${date} offset 0)`.as('b')
    : byPrimaryKey(dialect, 'asns', 'b', farEndColumns);
  // The placed neighbours of the members that pass `members` (a test of `a`): every link of each, or each member's
  // first `end` neighbours alone, so that the organization's distinct and window rank those and not all of its links
  // (the real month's 100 largest organizations' first 4 by `asnDegree.total`: 76,000 links placed). A member of more
  // than `end` links finds its own by a top-N sort of its links (membersFirstNeighbors); on PostgreSQL where the
  // month's records are hashed for the batch, each member's links are numbered in the order instead, as a member's cut
  // would look each of its far ends up by key.
  const placedOf = (members: RawBuilder<boolean>) => {
    const everyLink = allMemberLinks(context, date, orgIds)
      .innerJoin(farEnds, (join) => join.onRef('b.date', '=', 'l.date').onRef('b.asn', '=', 'l.asn1'))
      .where(outsideOrganization())
      .where(members);
    const withOrganization = [sql.ref('a.org_id').as('parent_key'), ...placedColumns('b')];
    if (!placing.cutsMembers) return everyLink.select(withOrganization).distinct();
    if (placing.fromMonth) {
      const memberOrder = orderByList(dialect, keys, ASN_SORT_COLUMNS, ASN_ORDER, { table: 'b' });
      const numbered = everyLink.select([
        ...withOrganization,
        sql<number>`row_number() over (partition by a.asn order by ${memberOrder})`.as('member_place'),
      ]);
      return context.db
        .selectFrom(numbered.as('numbered'))
        .select(['parent_key', ...orderColumns] as never[])
        .where('member_place', '<=', end)
        .distinct();
    }
    return everyLink
      .where('a.number_asn_links', '<=', end)
      .select(withOrganization)
      .union(
        membersFirstNeighbors(context, date, orgIds, keys, end, farEndColumns)
          .where('a.number_asn_links', '>', end)
          .where(members)
          .select(withOrganization) as never,
      );
  };
  if (!walk) return firstPlaced(placedOf(sql<boolean>`true`), order, offset, end);
  // A member of many links walks the month's records in the order instead, each tested for a link from it, until it
  // has its first `end` neighbours outside the organization or has gone its arm's steps: the 21 members of 839 links
  // or more of the generated month's 100 largest organizations hold 78,000 of their 115,000 links. SQLite knows that the
  // walk's records come in the order from the co-routine of its first steps, and stops at `end` as PostgreSQL does.
  const walkOrder = orderByList(dialect, keys, ASN_SORT_COLUMNS, ASN_ORDER, { table: 'v' });
  // What a walk reads of each record it passes, which the order's index holds on SQLite (its whole record, `v.*`, was
  // read from the table at every step: the 1,000 first organizations' first 2 by `-cone.numberAsns` on the generated
  // month, 186 -> 169 ms in process; PostgreSQL read the index alone either way).
  const walkedRecordColumns = sql.join(farEndColumns.map((column) => sql.ref(`v.${column}`)));
  const { firstClass } = walk;
  const memberWalk = (columns: RawBuilder<unknown>, steps: RawBuilder<number>) =>
    firstClass
      ? // A class walk (neighborClassWalk): the member's first links by ASN, each far end's record tested for the
        // class's value.
        sql`select ${columns} from (
          select l.asn1 from asn_links l where l.date = a.date and l.asn0 = a.asn
          order by l.asn1 limit ${steps}
        ) l cross join ${byPrimaryKey(dialect, 'asns', 'v', farEndColumns)} where v.date = a.date and v.asn = l.asn1
          and ${sql.ref(`v.${firstClass.column}`)} = ${firstClass.value} and ${outsideOrganization('v')}
        order by l.asn1 limit cast(${end} as integer)`
      : sql`select ${columns} from (
          select ${walkedRecordColumns} from asns v where v.date = a.date and ${fromStart(walk.from)}
          order by ${walkOrder} limit ${steps}
        ) v where ${linkedOutside(dialect, 'v')} order by ${walkOrder} limit cast(${end} as integer)`;
  const walkedColumns = (walked: SelectQueryBuilder<never, never, never>) =>
    walked.select([
      sql.ref('a.org_id').as('parent_key'),
      sql.ref('a.asn').as('member'),
      ...placedColumns('w'),
    ]);
  // On PostgreSQL one walk for every arm, its LIMIT by the member's links: an arm a statement is one more subquery to
  // plan (3.5-10 ms for a page's statement). SQLite refuses a LIMIT that names the outer row, so there each arm's
  // walks have their own.
  const armsWalked =
    dialect === 'postgres'
      ? [
          walkedColumns(
            organizationMembers(context, date, orgIds)
              .where('a.number_asn_links', '>=', walkerLinks(walk))
              .crossJoinLateral(sql`(${memberWalk(sql`v.*`, armSteps(walk))})`.as('w')) as never,
          ),
        ]
      : walk.arms.map(({ minLinks, steps }, arm) => {
          const below = walk.arms[arm + 1]?.minLinks;
          // SQLite has no LATERAL: each walk is the list of an IN, as organizationMemberLinks cuts a member's links.
          return walkedColumns(
            organizationMembers(context, date, orgIds)
              .where('a.number_asn_links', '>=', minLinks)
              .$if(below !== undefined, (members) => members.where('a.number_asn_links', '<', below!))
              .crossJoin(byPrimaryKey(dialect, 'asns', 'w', farEndColumns))
              .whereRef('w.date', '=', 'a.date')
              .where(
                sql<boolean>`w.asn in (${memberWalk(sql`v.asn`, sql`cast(${steps} as integer)`)})`,
              ) as never,
          );
        });
  // A member whose walk ended short of `end` (or found none) places its links too.
  const walkedThrough = sql<boolean>`a.asn in (select member from walks group by member
    having count(*) >= ${end})`;
  const neighbors = context.db
    .with(
      (cte) => cte('walks').materialized(),
      () => armsWalked.slice(1).reduce((arms, arm) => arms.unionAll(arm as never), armsWalked[0]!),
    )
    .selectFrom('walks')
    .select(['parent_key', ...orderColumns] as never[])
    .union(
      placedOf(sql<boolean>`(a.number_asn_links < ${walkerLinks(walk)} or not ${walkedThrough})`) as never,
    );
  return firstPlaced(neighbors, order, offset, end);
}

/**
 * Each member's (`a`) first `end` neighbours outside its organization (`b`, with `farEndColumns`) in the order of
 * `keys`: an organization's first `end` neighbours are among them.
 */
function membersFirstNeighbors(
  context: AsrankContext,
  date: string,
  orgIds: readonly string[],
  keys: readonly SortKey[],
  end: number,
  farEndColumns: readonly string[],
) {
  const { dialect } = context;
  const order = orderByList(dialect, keys, ASN_SORT_COLUMNS, ASN_ORDER, { table: 'c' });
  const firstOfMember = (columns: RawBuilder<unknown>) => sql`select ${columns} from asn_links l
      cross join ${byPrimaryKey(dialect, 'asns', 'c', farEndColumns)}
      where l.date = a.date and l.asn0 = a.asn and c.date = l.date and c.asn = l.asn1 and ${outsideOrganization('c')}
      order by ${order} limit cast(${end} as integer)`;
  const members = organizationMembers(context, date, orgIds);
  return dialect === 'postgres'
    ? // The columns the order reads alone, which an index of them can give without the records (c.*: a read of each).
      members.crossJoinLateral(
        sql<
          Database['asns']
        >`(${firstOfMember(sql.join(farEndColumns.map((column) => sql.ref(`c.${column}`))))})`.as('b'),
      )
    : members
        .crossJoin(byPrimaryKey(dialect, 'asns', 'b', farEndColumns))
        .whereRef('b.date', '=', 'a.date')
        .where(sql<boolean>`b.asn in (${firstOfMember(sql`c.asn`)})`);
}

/** A walker's (`a`) steps by its arm (NeighborWalk): those of the last arm whose least links it holds. */
function armSteps(walk: NeighborWalk): RawBuilder<number> {
  const byLinks = [...walk.arms].reverse();
  return sql<number>`(case ${sql.join(
    byLinks.map(
      ({ minLinks, steps }) => sql`when a.number_asn_links >= ${minLinks} then cast(${steps} as integer)`,
    ),
    sql` `,
  )} end)`;
}

/**
 * Each organization's neighbours from row `offset` to `end` of `neighbors` (its neighbours with the columns the order
 * reads) in `order`, numbered (`place`): only the page's are looked up whole (the 100 largest organizations' 20 at
 * offset 100: 2,000 records, not 12,000).
 */
function firstPlaced(
  neighbors: Expression<unknown>,
  order: RawBuilder<unknown>,
  offset: number,
  end: number,
) {
  return sql<NeighborKey>`(select parent_key, asn as neighbor, place from (
      select p.*, row_number() over (partition by parent_key order by ${order}) as place from ${neighbors} p
    ) firsts where place > ${offset} and place <= ${end})`;
}

/**
 * Whether a page of neighbours in an order of a member's links (`linkOrder`) numbers them from the columns the order
 * reads before the page's alone are read whole (organizationNeighborTuning.numberedLinkOrder). By ASN the pair is
 * all it reads. By rank each neighbour's rank is one more lookup, and on PostgreSQL a first page, whose neighbours are
 * not many more than it shows, lost by it (30 organizations at rank 50, first 4: 5.4 -> 5.7 ms).
 */
function numbersLinkOrder(dialect: DialectName, linkOrder: readonly SortKey[], offset: number): boolean {
  if (!organizationNeighborTuning.numberedLinkOrder) return false;
  return dialect === 'sqlite' || linkOrder.length > 0 || offset > 0;
}

/** ASNs outside the organization linked to any of its members, as Asn records of the same month. */
function neighborsOfOrganizations(
  context: AsrankContext,
  date: string,
  page: { first: number; offset: number },
  sort: string | null | undefined,
  needs: ConnectionNeeds,
) {
  const keys = parseSort(sort, 'asns', { argument: 'sort' });
  const { dialect } = context;
  return nestedPage<string, AsnRow>(
    context,
    `orgNeighbors|${date}|${sort ?? ''}`,
    page,
    // Built once a batch, not once an organization.
    async (batch) => {
      const order = orderByList(dialect, keys, ASN_SORT_COLUMNS, ASN_ORDER);
      const end = page.offset + page.first;
      const linkOrder = neighborLinkOrder(keys);
      const places = linkOrder === null;
      const numbered = places || numbersLinkOrder(dialect, linkOrder, page.offset);
      const monthAsns = places ? await monthCount(context, 'asns', date) : 0;
      const walk =
        places && organizationNeighborTuning.stepsPerLink > 0
          ? ((await firstClassWalk(context, date, keys, end, monthAsns)) ??
            (await monthWalk(context, date, keys, end, monthAsns)))
          : null;
      const placed =
        places && dialect === 'postgres'
          ? await placedLinks(context, date, batch, walk ? walkerLinks(walk) : 2 ** 31 - 1, end)
          : null;
      const placing: Placing = {
        fromMonth: placed !== null && placed.links >= organizationNeighborTuning.monthJoinShare * monthAsns,
        cutsMembers:
          organizationNeighborTuning.memberCuts &&
          (placed === null || placed.beyondEnd >= organizationNeighborTuning.memberCutLinks),
      };
      return {
        partitionColumn: 'parent_key',
        order,
        numbered,
        rows: (orgIds: string[]) => {
          const neighbors = context.db.selectFrom(
            firstNeighbors(
              context,
              date,
              orgIds,
              keys,
              order,
              { offset: page.offset, end },
              walk,
              placing,
              numbered,
            ).as('o'),
          );
          // The page's place last, as a window would number it: the rows keep the shape of other pages' records (the
          // place first, the real month's 200 organizations at rank 1,000 read their first 4 neighbours 10% slower).
          const place = sql.ref<number>('o.place').as('position_in_parent');
          return withNeighborRecords(dialect, date, neighbors, 'n')
            .selectAll('n')
            .select('o.parent_key')
            .$if(numbered, (rows) => rows.select(place));
        },
      };
    },
    // Kept by the loads (017): counting the set looked up the organization of every far end of the members' links.
    { kept: true, counts: (orgIds) => keptOrganizationCounts(context, date, orgIds, 'number_neighbors') },
    needs,
  );
}

/**
 * `rows` (as `o`, each naming a `neighbor`) with each neighbour's record of `date` joined by its key as `alias`
 * (`readColumns` of it, or all). On PostgreSQL in a subquery it keeps apart (its LIMIT): estimating the rows at
 * thousands, it hashed every record of the month (the real month's 100 largest organizations: 105 ms of 140 to join
 * 1,185 neighbours' records; 24 ms of their first 5 numbered by rank). On SQLite by a CROSS JOIN on the record's key,
 * which it then reads by key from the rows; as an inner join it read every record of the month for rows united from
 * two parts (the walks of firstNeighbors).
 */
function withNeighborRecords<O extends { neighbor: unknown }, A extends string>(
  dialect: DialectName,
  date: string,
  rows: SelectQueryBuilder<Database & { o: O }, 'o', object>,
  alias: A,
  readColumns?: readonly string[],
): SelectQueryBuilder<Database & { o: O } & { [key in A]: Database['asns'] }, 'o' | A, object> {
  // Typed here for one alias: Kysely's types of a join under a generic alias do not resolve.
  const keyed = rows as unknown as SelectQueryBuilder<Database & { o: { neighbor: number } }, 'o', object>;
  const as = alias as string as 'joined';
  const joined =
    dialect === 'postgres'
      ? keyed.innerJoinLateral(
          sql<Database['asns']>`(select ${
            readColumns ? sql.join(readColumns.map((column) => sql.ref(`x.${column}`))) : sql`x.*`
          } from asns x where x.date = ${date} and x.asn = o.neighbor limit 1)`.as(as),
          (join) => join.onTrue(),
        )
      : keyed
          .crossJoin(byPrimaryKey(dialect, 'asns', as, readColumns))
          .whereRef(`${as}.asn`, '=', 'o.neighbor')
          .where(`${as}.date`, '=', date);
  return joined as unknown as SelectQueryBuilder<
    Database & { o: O } & { [key in A]: Database['asns'] },
    'o' | A,
    object
  >;
}

/**
 * An organization's nested connection (its links, its neighbours). When the client reads only the total and the row
 * was read with the count it keeps for it (migration 017, ORGANIZATION_FIELD_COLUMNS), the total is the row's and no
 * statement runs: a list of 1,000 organizations with their neighbour counts otherwise read them again by key in a
 * second statement (the real month on PostgreSQL: 14 ms of its 40). The sort is checked either way.
 */
function organizationConnection<T>(
  kept: number | null | undefined,
  sortedAs: 'asns' | 'asnLinks',
  args: PageArgs & { sort?: string | null },
  info: GraphQLResolveInfo,
  load: (page: { first: number; offset: number }, needs: ConnectionNeeds) => Promise<ConnectionPage<T>>,
): ConnectionPage<T> | Promise<ConnectionPage<T>> {
  const page = pageOf(args);
  const needs = connectionNeeds(info);
  if (needs.nodes || kept === undefined || kept === null) return load(page, needs);
  parseSort(args.sort, sortedAs, { argument: 'sort' });
  return { nodes: [], totalCount: Number(kept), ...page };
}

OrganizationRef.implement({
  description: 'An organization owning ASNs, in one monthly dataset.',
  fields: (t) => ({
    orgId: t.exposeString('org_id'),
    orgName: t.exposeString('org_name'),
    // Exposed, not resolved, like Asn.rank (graphql-jit reads it inline; the Int serializer checks it).
    rank: t.exposeInt('rank', { nullable: true }),
    date: t.exposeString('date'),
    seen: t.boolean({ resolve: (org) => org.seen === 1 }),
    country: t.field({
      type: CountryRef,
      nullable: true,
      resolve: (org, _args, context) => (org.country_iso ? context.country(org.country_iso) : null),
    }),
    members: t.field({ type: MembersRef, ...PARENT_ITSELF }),
    asnLinks: t.field({
      type: AsnLinkConnection,
      description: 'Links from the organization’s ASNs (asn0) to ASNs of other organizations (asn1).',
      args: { first: t.arg.int(), offset: t.arg.int(), sort: t.arg.string() },
      resolve: (org, args, context, info) =>
        organizationConnection(org.number_asn_links, 'asnLinks', args, info, (page, needs) =>
          asnLinksOfOrganizations(context, org.date, page, args.sort, needs).load(org.org_id),
        ),
    }),
    neighbors: t.field({
      type: AsnConnection,
      description: 'ASNs of other organizations linked to any of its ASNs (default order: rank, then ASN).',
      args: {
        first: t.arg.int(),
        offset: t.arg.int(),
        sort: t.arg.string({ description: 'The sort keys of `asns`.' }),
      },
      resolve: (org, args, context, info) =>
        organizationConnection(org.number_neighbors, 'asns', args, info, (page, needs) =>
          neighborsOfOrganizations(context, org.date, page, args.sort, needs).load(org.org_id),
        ),
    }),
    cone: t.field({ type: ConeRef, ...PARENT_ITSELF }),
    asnDegree: t.field({
      type: AsnDegreeRef,
      description: 'Degrees summed over member ASNs.',
      ...PARENT_ITSELF,
    }),
    orgDegree: t.field({
      type: OrgDegreeRef,
      description: 'Degree counted between organizations.',
      ...PARENT_ITSELF,
    }),
  }),
});

builder.queryFields((t) => ({
  organization: t.field({
    type: OrganizationRef,
    nullable: true,
    description: 'One organization in the latest month, or in the month `date`; null when unknown.',
    args: {
      orgId: t.arg.string({ required: true }),
      date: t.arg.string({ description: 'Month (YYYY-MM-DD or YYYYMMDD); default the latest.' }),
    },
    resolve: (_root, args, context) => {
      const month = monthNow(context, args.date);
      if (month === null) return null;
      return loadInMonth(context, args.date, month, (date) =>
        context.loaders.organization.load({ date, id: args.orgId }),
      );
    },
  }),
  organizations: t.field({
    type: OrganizationConnection,
    description:
      'Organizations of the latest month, or one record per organization and month of [dateStart, dateEnd].',
    args: {
      first: t.arg.int(),
      offset: t.arg.int(),
      name: t.arg.string({ description: 'Case-insensitive substring of the organization name or id.' }),
      seen: t.arg.boolean(),
      sort: t.arg.string({ description: 'Comma-separated sort keys, "-" prefix for descending.' }),
      dateStart: t.arg.string(),
      dateEnd: t.arg.string(),
    },
    resolve: async (_root, args, context, info): Promise<ConnectionPage<OrganizationRow>> => {
      const page = pageOf(args);
      const interval = intervalOf(args);
      const sortKeys = parseSort(args.sort, 'organizations', {
        historic: interval !== null,
        argument: 'sort',
      });
      const months = await monthsIn(context, interval);
      if (months.length === 0) return { nodes: [], totalCount: 0, ...page };
      const { historic, keys } = monthOrderOf(interval !== null, months, sortKeys, {
        key: 'orgId',
        direction: 'asc',
      });
      const monthQuery = (inMonths = dateIn(context.dialect, 'date', months)) =>
        context.db.selectFrom('organizations').where(inMonths);
      const filtered = args.name != null || args.seen != null;
      // The filters that bookmarks, month arms and kept totals name (`seen`); a name they cannot.
      const namedFilter: NamedListFilter =
        args.name != null ? null : args.seen == null ? {} : { seen: args.seen };
      const seenAsAsked = (records: ReturnType<typeof monthQuery>) =>
        args.seen == null ? records : records.where('seen', '=', args.seen ? 1 : 0);
      /** The name filter's conditions over `pageMonths` (none without one). */
      const namedIn = async (pageMonths: readonly string[]) =>
        args.name != null ? await nameConditions(context, 'organizations', args.name, pageMonths) : [];
      /** The list over `pageMonths`, filtered as asked (`named`: the name filter's conditions). */
      const listQuery = (pageMonths: readonly string[], named: readonly RawBuilder<boolean>[]) =>
        seenAsAsked(
          named.reduce(
            (records, condition) => records.where(condition),
            monthQuery(dateIn(context.dialect, 'date', pageMonths)),
          ),
        );
      const named = await namedIn(months);
      const query = listQuery(months, named);
      const totalScope = monthListScope('organizations', months, {
        seen: args.seen,
        name: args.name?.toLowerCase(),
      });
      /** Organizations `limit`, `offset` of `pageMonths` in the order of `pageKeys` (`historicOrder`: by month first). */
      const pageIn = async (
        pageMonths: readonly string[],
        pageKeys: readonly SortKey[],
        historicOrder: boolean,
        limit: number,
        offset: number,
      ) => {
        const pageScope = monthListScope('organizations', pageMonths, {
          seen: args.seen,
          name: args.name?.toLowerCase(),
        });
        return listPage({
          db: context.db,
          dialect: context.dialect,
          table: 'organizations',
          rankedTotal: rankedListTotal(context, pageScope),
          key: 'org_id',
          query: pageMonths === months ? query : listQuery(pageMonths, await namedIn(pageMonths)),
          selectRows: (rows) => rows.selectAll(),
          rowsOf: (result) => result as unknown as OrganizationRow[],
          page: { first: limit, offset },
          keys: pageKeys,
          columns: ORGANIZATION_SORT_COLUMNS,
          order: historicOrder ? ORGANIZATION_HISTORIC_ORDER : ORGANIZATION_ORDER,
          singleMonth: pageMonths.length === 1,
          filtered: namedFilter === null,
          keyList: false,
          bookmarks: monthBookmarks(context, pageMonths, namedFilter),
          monthQuery: monthsOfList(context, 'organizations', pageMonths, namedFilter, (month) =>
            seenAsAsked(monthQuery(dateIn(context.dialect, 'date', [month]))),
          ),
          monthArms:
            pageMonths === months
              ? await monthArmsOfName(context, 'organizations', months, pageKeys, args.name, named, (month) =>
                  listQuery([month], named),
                )
              : undefined,
          // One month's unfiltered page: SQL compiled once per order and form, as an ASN page (listPage.ts).
          compiled:
            pageMonths.length === 1 && !filtered
              ? {
                  shape: 'organizations|*',
                  queryOver: (month) => monthQuery(boundDateIn(context.dialect, 'date', 1, month)),
                  month: pageMonths[0]!,
                  run: context.compiled.bind(context),
                }
              : undefined,
        });
      };
      // Without a name filter, over several months in an order that starts with the month: month by month
      // (monthByMonth.ts).
      const organizationTotals = monthTotals(
        context,
        'organizations',
        { seen: args.seen, name: undefined },
        (month) => seenAsAsked(monthQuery(dateIn(context.dialect, 'date', [month]))),
      );
      // Several months without a name filter: the sum of the months' totals; with one (its candidates are the months'
      // together), the total over the months, kept whole (monthListScope names the months).
      const totalCount =
        months.length > 1 && args.name == null
          ? () => organizationTotals.sum(months)
          : () => listTotal(context, query, totalScope);
      // Only the total asked (no edges, no pageInfo): no page is read.
      if (!connectionNeeds(info).nodes) return { nodes: [], totalCount, ...page };
      let nodes: OrganizationRow[];
      if (args.name == null && readsMonthByMonth(months, keys)) {
        const walk = monthWalkOf(months, keys, { key: 'orgId', direction: 'asc' });
        nodes = await pageMonthByMonth(
          walk.months,
          page.first,
          page.offset,
          organizationTotals.of,
          (month, limit, offset) => pageIn([month], walk.monthKeys, false, limit, offset),
        );
      } else nodes = await pageIn(months, keys, historic, page.first, page.offset);
      return { nodes, totalCount, ...page };
    },
  }),
}));
