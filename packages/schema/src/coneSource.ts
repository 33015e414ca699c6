// Customer cones for the domain's cone-stream paginator (and asnCone's pages). Members come in ASN order and
// prefixes in prefix_id (= address) order. Cone prefixes = the distinct prefixes originated by any cone member: a
// MOAS prefix whose several origins are in the cone is listed once.
// Two strategies, which must return the same sequences:
// - small cones: keyset queries of at most one page's worth of rows (members; members -> origins -> prefixes);
// - large cones: the cone's member and distinct prefix lists computed once and kept in bounded in-memory caches
//   (conePrefixIndex.ts), so a page is an array slice instead of a scan over the month's prefixes.
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Database, DialectName } from '@asrank/db';
import type { ConeStreamSource } from '@asrank/domain';
import type { PrefixRecord } from './types/refs';
import { coneListsOf, conePrefixPositionsOf, networkAt, type MonthPrefixIndex } from './conePrefixIndex';
import { perHandle } from './perHandle';
import { inValues } from './sql';

/**
 * A prefix of a stream page whose items select no `prefixes`: its key alone, its network and length not read. The
 * paginator then needs only how many prefixes each cone holds, so a group of small cones does not read the rows of
 * `prefixes` (groupPrefixKeys). Its fields are a record's, in a record's order: a process whose walks held keys of
 * another shape beside records read the records' walks 15% slower (the paginator's code seeing both shapes).
 */
export type PrefixKey = Pick<PrefixRecord, 'date' | 'prefixId'> & { network: null; length: null };

/** A stream page's prefix: its record, or its key alone where the page shows no prefix. */
export type StreamPrefix = PrefixRecord | PrefixKey;

/**
 * Rows per keyset query, the cone size (member ASNs) above which a cone's lists are computed once and kept in
 * memory (conePrefixIndex.ts), and the number of cone prefixes (the ASN's cone_prefixes) above which its prefixes
 * are: a cone of few ASNs may hold many prefixes (AS58453's 196 ASNs hold 11,220 in December 2017), and SQL finds
 * the distinct prefixes of the whole cone again for every page (86-118 ms for a page of 100 there, 3-6 ms from
 * memory once the month's prefix index is loaded). Mutable so tests can drive both strategies and chunk edges on
 * the small sample. `smallConeGroup`: the small cones of a walk whose whole member and prefix lists are read in one
 * statement each (smallConeGroups; 0 turns it off). `fewMembers`: the members up to which a small cone's prefix page
 * is cut from its whole list, read as a group of one cone (fewMemberPrefixes; 0 turns it off). `keysWhereUnshown`:
 * a group's prefixes as keys alone where the page's items select no `prefixes` (groupPrefixKeys; false reads their
 * records anyway, to compare).
 */
export const coneStreamTuning = {
  chunk: 10001,
  largeConeAsns: 2000,
  largeConePrefixes: 1000,
  smallConeGroup: 256,
  fewMembers: 256,
  keysWhereUnshown: true,
};

/** Cones are listed in chunks of this many rows (a page rarely needs more). */
const CONE_LIST_CHUNK = 1000;

export interface StreamCone {
  date: string;
  asn: number;
  rank: number | null;
  /** Its members: the count its row keeps (memberCount) where it keeps one, else cone_asns, which only estimates them. */
  coneAsns: number;
  conePrefixes: number;
  /** Its member rows as its ASN's row keeps them (migration 021), when it keeps them. */
  memberCount?: number;
  /** The value of the walk's one sort column, where the next chunk of the list continues after this cone. */
  sortValue?: unknown;
}

export interface StreamMember {
  date: string;
  asn: number;
}

/**
 * Keyset positions remembered across requests: "item `index` of cone (date, asn) has key `value`", recorded where a
 * page stopped, so the next page starts with `key >= value` instead of an OFFSET over everything before it.
 * Bounded; a miss only costs an OFFSET. Kept per database handle, and keyed by the store's data_version (which
 * every load or drop changes), so a reloaded month never resumes from a stale key.
 */
const resumeKeysOf = perHandle<object, Map<string, number>>(() => new Map());
const RESUME_KEYS_MAX = 10000;

function rememberResumeKey(resumeKeys: Map<string, number>, key: string, value: number): void {
  resumeKeys.delete(key);
  resumeKeys.set(key, value);
  if (resumeKeys.size > RESUME_KEYS_MAX) {
    const oldest = resumeKeys.keys().next();
    if (!oldest.done) resumeKeys.delete(oldest.value);
  }
}

/**
 * Walks an ordered key space in chunks from item `fromIndex`: the first chunk starts at a remembered key when known,
 * else with OFFSET; later chunks continue after the last key. Records where the consumer stopped.
 */
async function* keysetWalk<T>(
  resumeKeys: Map<string, number>,
  cacheKey: string,
  fromIndex: number,
  keyOf: (item: T) => number,
  rowsPerQuery: number,
  chunk: (after: { key: number; inclusive: boolean } | null, offset: number, limit: number) => Promise<T[]>,
): AsyncGenerator<T> {
  const remembered = resumeKeys.get(`${cacheKey}|${fromIndex}`);
  let after: { key: number; inclusive: boolean } | null =
    remembered === undefined ? null : { key: remembered, inclusive: true };
  let offset = remembered === undefined ? fromIndex : 0;
  let index = fromIndex;
  let last: T | undefined;
  let exhausted = false;
  try {
    for (;;) {
      const rows = await chunk(after, offset, rowsPerQuery);
      for (const row of rows) {
        last = row;
        yield row;
        index += 1;
      }
      if (rows.length < rowsPerQuery || last === undefined) {
        exhausted = true;
        return;
      }
      after = { key: keyOf(last), inclusive: false };
      offset = 0;
    }
  } finally {
    // The paginator stops right after receiving the first item of the next page (index `index`, not yet counted):
    // remember its key, so the page starting there begins with `key >= it`.
    if (!exhausted && last !== undefined) rememberResumeKey(resumeKeys, `${cacheKey}|${index}`, keyOf(last));
  }
}

/** Where a walk may resume: the handle's resume keys and the store's data version. */
export interface WalkScope {
  db: Kysely<Database>;
  dialect: DialectName;
  dataVersion: string;
  /**
   * Rows per keyset query: what the caller will consume at most (a stream page's budget + 1, an asnCone page's
   * `first`), capped by coneStreamTuning.chunk. Each prefix query of a large cone costs about the same whatever its
   * LIMIT (PostgreSQL hashes the cone's origins), so one query per page beats many small ones.
   */
  rows: number;
}

export function rowsPerQuery(wanted: number): number {
  return Math.max(1, Math.min(coneStreamTuning.chunk, wanted));
}

/** A cone as the member and prefix walks need it; without `coneAsns` (`conePrefixes`) it is taken as small. */
export interface WalkCone {
  date: string;
  asn: number;
  coneAsns?: number;
  conePrefixes?: number;
  /** Every member in ASN order, when already read whole (withCheckedSize, a cone of at most `fewMembers`). */
  members?: readonly number[];
  /**
   * Its member rows as the ASN's row keeps them (number_cone_members, migration 021); 0 or absent when not known (a
   * row written without it), and then counted.
   */
  memberCount?: number;
}

function isLargeCone(cone: WalkCone): boolean {
  return cone.coneAsns !== undefined && cone.coneAsns > coneStreamTuning.largeConeAsns;
}

/** The first `bound` + 1 members of `cone` in ASN order (more than `bound`: the cone has more than that). */
async function membersUpTo(scope: WalkScope, cone: WalkCone, bound: number): Promise<number[]> {
  const rows = await scope.db
    .selectFrom('cone_members')
    .select('member_asn')
    .where('date', '=', cone.date)
    .where('asn', '=', cone.asn)
    .orderBy('member_asn')
    .limit(bound + 1)
    .execute();
  return rows.map((row) => Number(row.member_asn));
}

/**
 * `cone` as large when its counts call it small but it has more than `largeConeAsns` members, counted up to one past
 * that bound: cone_asns may come from CAIDA's files and understate the members (AS1251: 19 in December 2017, against
 * 6,934), and such a cone's prefixes counted in SQL took 110-170 ms for every `asnCone` page with a total. Read as a
 * large cone, its lists are computed once and kept (conePrefixIndex.ts). A cone of at most `fewMembers` members
 * carries the list read to find that out, for its pages and counts (`members`).
 */
export async function withCheckedSize(scope: WalkScope, cone: WalkCone): Promise<WalkCone> {
  if (cone.coneAsns === undefined || isLargeCone(cone)) return cone;
  const bound = coneStreamTuning.largeConeAsns;
  const few = coneStreamTuning.fewMembers;
  // The kept count says what the statements below would find, but for the members of a cone of few, which its pages
  // read from the list.
  const kept = cone.memberCount ?? 0;
  if (kept > bound) return { ...cone, coneAsns: kept };
  if (kept > 0 && (few <= 0 || kept > few)) return cone;
  if (few > 0) {
    const members = await membersUpTo(scope, cone, few);
    if (members.length <= few)
      return members.length > bound ? { ...cone, coneAsns: members.length } : { ...cone, members };
  }
  const row = await scope.db
    .selectFrom((eb) =>
      eb
        .selectFrom('cone_members')
        .select('member_asn')
        .where('date', '=', cone.date)
        .where('asn', '=', cone.asn)
        .limit(bound + 1)
        .as('members'),
    )
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  const members = Number(row?.n ?? 0);
  return members > bound ? { ...cone, coneAsns: members } : cone;
}

/** The cone's prefixes are paged from memory: a large cone, or one whose few ASNs hold many prefixes. */
function hasManyPrefixes(cone: WalkCone): boolean {
  return (
    isLargeCone(cone) ||
    (cone.conePrefixes !== undefined && cone.conePrefixes > coneStreamTuning.largeConePrefixes)
  );
}

/** Items `fromIndex`.. of a list held in memory, made on demand. */
async function* listFrom<T>(
  length: number,
  fromIndex: number,
  itemAt: (index: number) => T,
): AsyncGenerator<T> {
  for (let index = fromIndex; index < length; index += 1) yield itemAt(index);
}

/** Items `fromIndex` .. `fromIndex + count - 1` of a list held in memory (fewer at its end), in a fresh array. */
function sliceOf<T>(length: number, fromIndex: number, count: number, itemAt: (index: number) => T): T[] {
  const end = Math.min(length, fromIndex + count);
  const items = new Array<T>(Math.max(0, end - fromIndex));
  for (let index = fromIndex; index < end; index += 1) items[index - fromIndex] = itemAt(index);
  return items;
}

/** The first `count` items of an async walk (stopping it there). */
export async function take<T>(walk: AsyncIterable<T>, count: number): Promise<T[]> {
  const items: T[] = [];
  if (count === 0) return items;
  for await (const item of walk) {
    items.push(item);
    if (items.length >= count) break;
  }
  return items;
}

const memberAt =
  (cone: WalkCone, members: ArrayLike<number>) =>
  (index: number): StreamMember => ({ date: cone.date, asn: members[index]! });

const prefixAt =
  (cone: WalkCone, { month, positions }: { month: MonthPrefixIndex; positions: Uint32Array }) =>
  (index: number): PrefixRecord => {
    const position = positions[index]!;
    return {
      date: cone.date,
      prefixId: month.prefixIds[position]!,
      network: networkAt(month, position),
      length: month.lengths[position]!,
    };
  };

/** Members `fromIndex` .. `fromIndex + count - 1` of a cone (the paginator's batch form). */
export async function coneMemberSlice(
  scope: WalkScope,
  cone: WalkCone,
  fromIndex: number,
  count: number,
): Promise<StreamMember[]> {
  if (cone.members) return sliceOf(cone.members.length, fromIndex, count, memberAt(cone, cone.members));
  if (!isLargeCone(cone)) return take(coneMembers(scope, cone, fromIndex), count);
  const { members } = await coneListsOf(scope, cone);
  return sliceOf(members.length, fromIndex, count, memberAt(cone, members));
}

/** Prefixes `fromIndex` .. `fromIndex + count - 1` of a cone (the paginator's batch form). */
export async function conePrefixSlice(
  scope: WalkScope,
  cone: WalkCone,
  fromIndex: number,
  count: number,
): Promise<PrefixRecord[]> {
  if (!hasManyPrefixes(cone)) {
    const whole = await fewMemberPrefixes(scope, cone);
    if (whole) return whole.slice(fromIndex, fromIndex + count);
    return take(conePrefixes(scope, cone, fromIndex), count);
  }
  const lists = await conePrefixPositionsOf(scope, cone);
  return sliceOf(lists.positions.length, fromIndex, count, prefixAt(cone, lists));
}

export function coneMembers(
  scope: WalkScope,
  cone: WalkCone,
  fromIndex: number,
): AsyncGenerator<StreamMember> {
  const { db } = scope;
  if (isLargeCone(cone)) {
    return (async function* () {
      const { members } = await coneListsOf(scope, cone);
      yield* listFrom(members.length, fromIndex, memberAt(cone, members));
    })();
  }
  return keysetWalk<StreamMember>(
    resumeKeysOf(db),
    `m|${scope.dataVersion}|${cone.date}|${cone.asn}`,
    fromIndex,
    (member) => member.asn,
    scope.rows,
    async (after, offset, limit) => {
      let query = db
        .selectFrom('cone_members')
        .select('member_asn')
        .where('date', '=', cone.date)
        .where('asn', '=', cone.asn);
      if (after) query = query.where('member_asn', after.inclusive ? '>=' : '>', after.key);
      const rows = await query.orderBy('member_asn').limit(limit).offset(offset).execute();
      return rows.map((row) => ({ date: cone.date, asn: Number(row.member_asn) }));
    },
  );
}

/**
 * The distinct prefix rows originated by a member of `cone` (of its month), found from the cone's members: what a
 * small cone's prefix pages list and its prefix count counts. (Its count tested every prefix of the month for an
 * origin in the cone: 1.4-2.4 s for a cone of one member on the generated 12 months, fifty-second round.)
 */
function conePrefixRows(db: Kysely<Database>, cone: WalkCone) {
  return db
    .selectFrom('cone_members as cm')
    .innerJoin('prefix_origins as po', (join) =>
      join.onRef('po.date', '=', 'cm.date').onRef('po.asn', '=', 'cm.member_asn'),
    )
    .innerJoin('prefixes as p', (join) =>
      join.onRef('p.date', '=', 'po.date').onRef('p.prefix_id', '=', 'po.prefix_id'),
    )
    .where('cm.date', '=', cone.date)
    .where('cm.asn', '=', cone.asn);
}

/**
 * One chunk of a small cone's distinct prefixes in prefix_id order: members → origins → prefixes, de-duplicated.
 */
async function conePrefixChunk(
  db: Kysely<Database>,
  cone: WalkCone,
  after: { key: number; inclusive: boolean } | null,
  offset: number,
  limit: number,
): Promise<PrefixRecord[]> {
  let query = conePrefixRows(db, cone).select(['p.prefix_id', 'p.network', 'p.length']).distinct();
  if (after) query = query.where('po.prefix_id', after.inclusive ? '>=' : '>', after.key);
  const rows = await query.orderBy('p.prefix_id').limit(limit).offset(offset).execute();
  return rows.map((row) => ({
    date: cone.date,
    prefixId: Number(row.prefix_id),
    network: row.network,
    length: row.length,
  }));
}

export function conePrefixes(
  scope: WalkScope,
  cone: WalkCone,
  fromIndex: number,
): AsyncGenerator<PrefixRecord> {
  const { db } = scope;
  if (hasManyPrefixes(cone)) {
    return (async function* () {
      const lists = await conePrefixPositionsOf(scope, cone);
      yield* listFrom(lists.positions.length, fromIndex, prefixAt(cone, lists));
    })();
  }
  return keysetWalk<PrefixRecord>(
    resumeKeysOf(db),
    `p|${scope.dataVersion}|${cone.date}|${cone.asn}`,
    fromIndex,
    (prefix) => prefix.prefixId,
    scope.rows,
    (after, offset, limit) => conePrefixChunk(db, cone, after, offset, limit),
  );
}

/**
 * The whole distinct prefix list of a cone of at most `fewMembers` members, read as a group of one cone is (its
 * members, their origins, those prefixes: three key lookups); null for a cone with more. PostgreSQL planned a small
 * cone's page of prefixes as a walk of the month's prefixes in prefix_id order merged with the cone's origins, which
 * it took to be thousands (AS49605 of December 2017, 18 members and 89 prefixes: 55-97 ms a page, every time; 1 ms
 * this way). The members, unless the cone carries them, are counted by reading at most one past the bound, since
 * cone_asns may come from CAIDA's files and understate them (AS1251: 19 against 6,934).
 */
async function fewMemberPrefixes(scope: WalkScope, cone: WalkCone): Promise<PrefixRecord[] | null> {
  const bound = coneStreamTuning.fewMembers;
  if (bound === 0) return null;
  const members = cone.members ?? (await membersUpTo(scope, cone, bound));
  if (members.length > bound) return null;
  return (await groupPrefixes(scope, [cone], new Map([[cone, [...members]]]))).get(cone) ?? [];
}

/** Number of distinct prefixes of a cone (asnCone's prefixes totalCount; computed only when asked for). */
export async function countConePrefixes(scope: WalkScope, cone: WalkCone): Promise<number> {
  if (hasManyPrefixes(cone)) return (await conePrefixPositionsOf(scope, cone)).positions.length;
  const row = await conePrefixRows(scope.db, cone)
    .select((eb) => eb.fn.count('p.prefix_id').distinct().as('total'))
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

const CONE_CHUNKS_MAX = 64;
const CONE_CHUNKS_MAX_BYTES = 16 * 1024 * 1024;
/**
 * A StreamCone's size in V8, roughly (an object of five or six fields, its date string shared with the others, and
 * a sort value: a number or a name).
 */
const STREAM_CONE_BYTES = 96;

/**
 * Chunks of cone lists, kept per database handle and keyed by the store's data version, the walk (its filters and
 * order) and the chunk's position. Every page of a walk reads its cones from the chunk holding its first cone, and a
 * cone stream page seldom leaves it (a large cone spans many pages), so each page used to read the same rows again:
 * on PostgreSQL one of the two round trips a page paid (docs/performance.md, thirtieth round). Chunks start at
 * multiples of their size, so the pages of one range share one. Bounded by count and by bytes, roughly: a walk's key
 * holds its ASN list, which a request body may make a few hundred KB long.
 */
const coneChunksOf = perHandle<object, LRUCache<string, StreamCone[]>>(
  () =>
    new LRUCache({
      max: CONE_CHUNKS_MAX,
      maxSize: CONE_CHUNKS_MAX_BYTES,
      sizeCalculation: (cones, key) => 2 * key.length + STREAM_CONE_BYTES * cones.length + 1,
    }),
);

/** Rows a group of small cones may bring at most, as their counts (cone_asns, cone_prefixes) estimate them. */
const SMALL_CONE_GROUP_ROWS = 8192;

/**
 * Cones `cones[from]`.. that one statement reads together: at most `smallConeGroup`, about SMALL_CONE_GROUP_ROWS rows
 * by their counts, and only those the page reaches (`reaches`, from the items its walk places before each cone, by
 * the cones' counts): the group used to read ahead a whole group of 256 cones for a page that ended in its fifteenth
 * (a walk by name on the real month: 256 cones' prefixes read, 55-110 ms of a 180-390 ms page).
 */
function coneGroup(
  cones: readonly StreamCone[],
  from: number,
  isSmall: (cone: StreamCone) => boolean,
  rowsOf: (cone: StreamCone) => number,
  itemsOf: (cone: StreamCone) => number,
  reaches: (cone: StreamCone, itemsBefore: number) => boolean,
): StreamCone[] {
  const group: StreamCone[] = [];
  let rows = 0;
  let items = 0;
  for (let index = from; index < cones.length && group.length < coneStreamTuning.smallConeGroup; index += 1) {
    const cone = cones[index]!;
    if (!isSmall(cone)) break;
    if (group.length > 0 && !reaches(cone, items)) break;
    rows += Math.max(1, rowsOf(cone));
    if (group.length > 0 && rows > SMALL_CONE_GROUP_ROWS) break;
    group.push(cone);
    // A cone with nothing in it still costs the page one item.
    items += Math.max(1, itemsOf(cone));
  }
  return group;
}

/** Adds `value` to the list `lists` holds under `key`. */
function appendTo<K, V>(lists: Map<K, V[]>, key: K, value: V): void {
  const list = lists.get(key);
  if (list) list.push(value);
  else lists.set(key, [value]);
}

/** `group`'s cones by month (a walk over several months may hold several in one chunk). */
function byMonth<Cone extends WalkCone>(group: readonly Cone[]): Map<string, Cone[]> {
  const months = new Map<string, Cone[]>();
  for (const cone of group) appendTo(months, cone.date, cone);
  return months;
}

/**
 * The whole member lists of small cones, one statement a month for the group, in ASN order: a page of many small
 * cones read each cone's members, and then its prefixes, in a statement of its own, which on PostgreSQL is a round
 * trip each (10,000 items of the real month's smallest cones: 958 ms against 189 on SQLite).
 */
async function groupMembers<Cone extends WalkCone>(
  scope: WalkScope,
  group: readonly Cone[],
): Promise<Map<Cone, number[]>> {
  const lists = new Map<Cone, number[]>();
  for (const [date, monthCones] of byMonth(group)) {
    // A cone of one member is its own ASN: every load writes a cone with its ASN in it (CAIDA's cone files list the
    // AS first and the parser adds it where not, a computed cone starts from it, an AS without either is its own
    // cone). Most cones of a walk's far end are such stubs: their members need no statement.
    const cones = monthCones.filter((cone) => cone.memberCount !== 1);
    for (const cone of monthCones) if (cone.memberCount === 1) lists.set(cone, [cone.asn]);
    if (cones.length === 0) continue;
    const rows = await scope.db
      .selectFrom('cone_members')
      .select(['asn', 'member_asn'])
      .where('date', '=', date)
      .where(
        inValues(
          scope.dialect,
          'asn',
          cones.map((cone) => cone.asn),
          'bigint',
        ),
      )
      .orderBy('asn')
      .orderBy('member_asn')
      .execute();
    const ofAsn = new Map<number, number[]>();
    for (const row of rows) appendTo(ofAsn, Number(row.asn), Number(row.member_asn));
    for (const cone of cones) lists.set(cone, ofAsn.get(cone.asn) ?? []);
  }
  return lists;
}

/** A month's small cones of a group, and their members' prefixes (groupOrigins). */
interface MonthOrigins<Cone> {
  date: string;
  cones: Cone[];
  /** Each member's prefix ids, as prefix_origins holds them. */
  prefixIdsOf: Map<number, number[]>;
  /** Every prefix id among them, once. */
  prefixIds: number[];
}

/**
 * The prefixes of small cones' members, as their ids: the members, then their prefixes (prefix_origins by its key),
 * two index reads a month. One join of members, origins and prefixes for 256 cones made PostgreSQL hash the month's
 * prefixes (177 ms a group on the real month). The members come from `membersOfCone`, the walk's member lists, where
 * the walk has read them already; the others are read and filed there.
 */
async function groupOrigins<Cone extends WalkCone>(
  scope: WalkScope,
  group: readonly Cone[],
  membersOfCone: Map<Cone, number[]>,
): Promise<MonthOrigins<Cone>[]> {
  const unread = group.filter((cone) => !membersOfCone.has(cone));
  if (unread.length > 0)
    for (const [cone, list] of await groupMembers(scope, unread)) membersOfCone.set(cone, list);
  const months: MonthOrigins<Cone>[] = [];
  for (const [date, cones] of byMonth(group)) {
    const members = [...new Set(cones.flatMap((cone) => membersOfCone.get(cone) ?? []))];
    const origins =
      members.length === 0
        ? []
        : await scope.db
            .selectFrom('prefix_origins')
            .select(['asn', 'prefix_id'])
            .where('date', '=', date)
            .where(inValues(scope.dialect, 'asn', members, 'bigint'))
            .execute();
    const prefixIdsOf = new Map<number, number[]>();
    for (const row of origins) appendTo(prefixIdsOf, Number(row.asn), Number(row.prefix_id));
    months.push({
      date,
      cones,
      prefixIdsOf,
      prefixIds: [...new Set(origins.map((row) => Number(row.prefix_id)))],
    });
  }
  return months;
}

/** The distinct ids of `cone`'s prefixes that `holds` (all by default), ascending, as conePrefixChunk orders them. */
function conePrefixIds(
  members: readonly number[] | undefined,
  prefixIdsOf: Map<number, number[]>,
  holds: (id: number) => boolean = () => true,
): number[] {
  const ids = new Set<number>();
  for (const member of members ?? [])
    for (const id of prefixIdsOf.get(member) ?? []) if (holds(id)) ids.add(id);
  return [...ids].sort((x, y) => x - y);
}

/**
 * The whole distinct prefix lists of small cones (as conePrefixChunk defines them): their members' prefixes
 * (groupOrigins), then those prefixes' rows, one more index read a month.
 */
async function groupPrefixes<Cone extends WalkCone>(
  scope: WalkScope,
  group: readonly Cone[],
  membersOfCone: Map<Cone, number[]>,
): Promise<Map<Cone, PrefixRecord[]>> {
  const lists = new Map<Cone, PrefixRecord[]>();
  for (const { date, cones, prefixIdsOf, prefixIds } of await groupOrigins(scope, group, membersOfCone)) {
    const rows =
      prefixIds.length === 0
        ? []
        : await scope.db
            .selectFrom('prefixes')
            .select(['prefix_id', 'network', 'length'])
            .where('date', '=', date)
            .where(inValues(scope.dialect, 'prefix_id', prefixIds, 'bigint'))
            .execute();
    const prefixOf = new Map<number, PrefixRecord>();
    for (const row of rows) {
      const prefixId = Number(row.prefix_id);
      prefixOf.set(prefixId, { date, prefixId, network: row.network, length: row.length });
    }
    const read = (id: number) => prefixOf.has(id);
    for (const cone of cones)
      lists.set(
        cone,
        conePrefixIds(membersOfCone.get(cone), prefixIdsOf, read).map((id) => prefixOf.get(id)!),
      );
  }
  return lists;
}

/**
 * The distinct prefix keys of small cones (groupOrigins), for a page that shows no prefix: the rows of `prefixes`
 * were read only to be dropped (a walk by `-asn` on the real month: 1,518 of them, 2-4 ms of a 10 ms page on SQLite).
 * The load writes an origin only for a prefix of its month, so the counts are the records'.
 */
async function groupPrefixKeys<Cone extends WalkCone>(
  scope: WalkScope,
  group: readonly Cone[],
  membersOfCone: Map<Cone, number[]>,
): Promise<Map<Cone, PrefixKey[]>> {
  const lists = new Map<Cone, PrefixKey[]>();
  for (const { date, cones, prefixIdsOf } of await groupOrigins(scope, group, membersOfCone))
    for (const cone of cones)
      lists.set(
        cone,
        conePrefixIds(membersOfCone.get(cone), prefixIdsOf).map((prefixId): PrefixKey => ({
          date,
          prefixId,
          network: null,
          length: null,
        })),
      );
  return lists;
}

/**
 * Cones that a group's read found to have more than `largeConeAsns` members, though their counts call them small
 * (cone_asns from CAIDA's files: AS7713's is 274 in December 2017, its members 36,948; 104 ASes of that month are
 * counted under the bound with more members). Read as small, such a cone's whole member list came in a group of its
 * own on every page that reached it (29-45 ms on PostgreSQL for the first page of a walk by `-asnName`). Remembered
 * per handle by data version and month, so later walks read it as the large cone it is (its lists computed once and
 * kept, conePrefixIndex.ts).
 */
class UnderstatedCones {
  private readonly members = new LRUCache<string, number>({ max: 4096 });

  private static key(scope: WalkScope, cone: WalkCone): string {
    return `${scope.dataVersion}\u0000${cone.date}\u0000${cone.asn}`;
  }

  found(scope: WalkScope, cone: WalkCone, members: number): void {
    if (members > coneStreamTuning.largeConeAsns && !isLargeCone(cone))
      this.members.set(UnderstatedCones.key(scope, cone), members);
  }

  asRead<Cone extends WalkCone>(scope: WalkScope, cone: Cone): Cone {
    const members = this.members.get(UnderstatedCones.key(scope, cone));
    return members === undefined ? cone : { ...cone, coneAsns: members };
  }
}

const understatedConesOf = perHandle<object, UnderstatedCones>(() => new UnderstatedCones());

/**
 * A walk's small cones read a group at a time (groupMembers, groupPrefixes), from the cone the paginator asks for
 * on: the cones after it in its chunk of the cone list are the ones the page goes on with, as far as the page's
 * `budget` of items (the paginator's count: what is left of the page, and the one item it peeks past it) reaches by
 * the cones' counts, or their member lists where read. The counts only estimate the lists (they may come from
 * CAIDA's files: AS1251's cone_asns is 19 in December 2017, its members 6,934): a cone the estimate left out is read
 * in a group of its own when the walk gets there. Per walk (one request).
 */
function smallConeGroups(scope: WalkScope, understated: UnderstatedCones, prefixRecords: boolean) {
  let chunk: readonly StreamCone[] = [];
  let position = -1;
  const members = new Map<StreamCone, number[]>();
  const prefixes = new Map<StreamCone, StreamPrefix[]>();
  /** A cone's members as read, else as counted (cone_asns may come from CAIDA's files and differ a lot). */
  const asnsOf = (cone: StreamCone) => members.get(cone)?.length ?? cone.coneAsns;
  const itemsOf = (cone: StreamCone) => asnsOf(cone) + cone.conePrefixes;
  /** The lists of `cone` from `lists`, reading its group first when it is the cone the walk stands at. */
  async function listOf<T>(
    cone: StreamCone,
    lists: Map<StreamCone, T[]>,
    isSmall: (cone: StreamCone) => boolean,
    rowsOf: (cone: StreamCone) => number,
    reaches: (cone: StreamCone, itemsBefore: number) => boolean,
    read: (scope: WalkScope, group: readonly StreamCone[]) => Promise<Map<StreamCone, T[]>>,
  ): Promise<T[] | undefined> {
    const known = lists.get(cone);
    if (known || coneStreamTuning.smallConeGroup === 0 || !isSmall(cone) || chunk[position] !== cone)
      return known;
    const group = coneGroup(chunk, position, isSmall, rowsOf, itemsOf, reaches);
    for (const [groupCone, list] of await read(scope, group)) lists.set(groupCone, list);
    return lists.get(cone);
  }
  /** `cone` as large when an earlier read found it so, though its counts call it small. */
  const asRead = (cone: StreamCone) => understated.asRead(scope, cone);
  return {
    /** The walk now stands at `cones[index]`. */
    at(cones: readonly StreamCone[], index: number) {
      chunk = cones;
      position = index;
    },
    /** `cone`'s members; `budget`: the items the page may still place, its members among them. */
    members: (cone: StreamCone, budget: number) =>
      listOf(
        cone,
        members,
        (small) => !isLargeCone(asRead(small)),
        (small) => small.coneAsns,
        (_next, itemsBefore) => itemsBefore < budget,
        async (walkScope, group) => {
          const lists = await groupMembers(walkScope, group);
          for (const [groupCone, list] of lists) understated.found(walkScope, groupCone, list.length);
          return lists;
        },
      ),
    /** `cone`'s prefixes; `budget`: the items the page may still place, its prefixes among them. */
    prefixes: (cone: StreamCone, budget: number) =>
      listOf(
        cone,
        prefixes,
        (small) => !hasManyPrefixes(asRead(small)),
        (small) => small.conePrefixes,
        // A later cone's prefixes come after its members: a page full within them never reads its prefixes.
        (next, itemsBefore) => itemsBefore + asnsOf(next) < budget,
        (walkScope, group) =>
          prefixRecords
            ? groupPrefixes(walkScope, group, members)
            : groupPrefixKeys(walkScope, group, members),
      ),
  };
}

/**
 * The paginator's source: cones from an ordered query (chunked by position, the chunks kept while the data version
 * lasts), members and prefixes by keyset. `walkKey` names the walk's cone list (filters and order): equal keys must
 * mean equal lists within one data version. `coneChunk` reads `limit` cones from position `offset`; `after` is the
 * cone just before that position when the chunk before is kept, so the list may continue after it instead of
 * counting its way there.
 */
export function coneStreamSource(
  scope: WalkScope,
  walkKey: string,
  coneChunk: (offset: number, limit: number, after: StreamCone | null) => Promise<StreamCone[]>,
  // The page's items show their prefixes: false where they select none (the prefixes are then keys alone).
  showsPrefixes = true,
): ConeStreamSource<StreamCone, StreamMember, StreamPrefix> {
  const chunks = coneChunksOf(scope.db);
  const understated = understatedConesOf(scope.db);
  const groups = smallConeGroups(scope, understated, showsPrefixes || !coneStreamTuning.keysWhereUnshown);
  const asRead = (cone: StreamCone) => understated.asRead(scope, cone);
  const chunkKey = (offset: number, rows: number) => `${scope.dataVersion}|${walkKey}|${rows}|${offset}`;
  const chunkAt = async (offset: number, rows: number): Promise<StreamCone[]> => {
    const key = chunkKey(offset, rows);
    let cones = chunks.get(key);
    if (cones === undefined) {
      const before = offset >= rows ? chunks.get(chunkKey(offset - rows, rows)) : undefined;
      cones = await coneChunk(offset, rows, before?.length === rows ? before.at(-1)! : null);
      chunks.set(key, cones);
    }
    return cones;
  };
  return {
    async *cones(fromIndex) {
      const rows = Math.min(CONE_LIST_CHUNK, coneStreamTuning.chunk);
      const firstChunk = fromIndex - (fromIndex % rows);
      for (let offset = firstChunk; ; offset += rows) {
        const cones = await chunkAt(offset, rows);
        for (let index = Math.max(0, fromIndex - offset); index < cones.length; index += 1) {
          groups.at(cones, index);
          yield cones[index]!;
        }
        if (cones.length < rows) return;
      }
    },
    asns: (cone, fromIndex) => coneMembers(scope, asRead(cone), fromIndex),
    prefixes: (cone, fromIndex) => conePrefixes(scope, asRead(cone), fromIndex),
    async asnSlice(cone, fromIndex, count) {
      const members = await groups.members(cone, count);
      if (!members) return coneMemberSlice(scope, asRead(cone), fromIndex, count);
      return sliceOf(members.length, fromIndex, count, (index) => ({
        date: cone.date,
        asn: members[index]!,
      }));
    },
    async prefixSlice(cone, fromIndex, count) {
      const prefixes = await groups.prefixes(cone, count);
      if (!prefixes) return conePrefixSlice(scope, asRead(cone), fromIndex, count);
      return prefixes.slice(fromIndex, fromIndex + count);
    },
  };
}
