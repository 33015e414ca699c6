// In-memory indexes that let a large cone's members and prefixes be paged by array position instead of SQL.
//
// A large cone holds a good share of a month's prefixes, so finding "its prefixes in prefix_id order" in SQL costs
// either an EXISTS probe per prefix of the month or a join over tens of thousands of members plus a big sort, on
// every page. Here a month is read once into compact arrays (every prefix's text in prefix_id order, and each origin
// ASN's prefixes), a cone's distinct prefixes are computed once from its members by marking positions in a bitmap,
// and a page is then a slice of that list.
//
// Memory is bounded, not proportional to traffic:
// - month indexes: at most MONTH_INDEXES_KEPT per database handle, each about 27 bytes per prefix of the month
//   (network text + offsets + length + id, plus the origin lists): ~27 MB for a 1M-prefix month;
// - cone lists: at most CONE_ITEMS_KEPT members + prefix positions in total per handle (4 bytes each: 32 MB), enough
//   for the ten largest cones of the real December 2017 month (5.65M items), which a 4M bound evicted one by one
//   as a walk of all ten went round (least recently used: every walk read every cone again).
// Both are keyed by the store's data_version, so a reloaded month never serves cached rows.
import { sql, type Kysely } from 'kysely';
import type { Database, DialectName } from '@asrank/db';
import { perHandle } from './perHandle';
import { readStoreDataVersion } from './sql';

/** Months whose prefix index is kept per database handle (a walk of one month needs one). */
export const MONTH_INDEXES_KEPT = 2;
/** Member ASNs + prefix positions of all cached cones together, per database handle. */
export const CONE_ITEMS_KEPT = 8_000_000;

/** A month's prefixes in prefix_id order (a "position" is an index into these arrays) and who originates them. */
export interface MonthPrefixIndex {
  /** prefix_id at each position, ascending. */
  prefixIds: Float64Array;
  /** Prefix lengths by position. */
  lengths: Uint8Array;
  /** Networks joined by ',' in position order; network p is text[textStart[p], textStart[p + 1] - 1). */
  text: string;
  textStart: Uint32Array;
  /** Origin ASNs, ascending; the positions originated by originAsns[i] are originPositions[originStart[i] .. originStart[i + 1]). */
  originAsns: Float64Array;
  originStart: Uint32Array;
  originPositions: Uint32Array;
}

/** A large cone's members (ascending) and, once asked for, its distinct prefix positions (ascending). */
export interface ConeLists {
  members: Uint32Array;
  prefixPositions: Uint32Array | null;
}

/** Least-recently-used map bounded by the total weight of its values. */
class WeightedLru<V> {
  private readonly entries = new Map<string, { value: V; weight: number }>();
  private total = 0;

  constructor(private readonly maxWeight: number) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, weight: number): void {
    const previous = this.entries.get(key);
    if (previous) {
      this.total -= previous.weight;
      this.entries.delete(key);
    }
    this.entries.set(key, { value, weight });
    this.total += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxWeight || oldest === key) break;
      this.entries.delete(oldest);
      this.total -= entry.weight;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.total -= entry.weight;
    this.entries.delete(key);
  }
}

interface HandleCaches {
  /** Promises, so concurrent requests share one load; weight 1 per month. */
  months: WeightedLru<Promise<MonthPrefixIndex>>;
  cones: WeightedLru<Promise<ConeLists>>;
}

const cachesOf = perHandle<object, HandleCaches>(() => ({
  months: new WeightedLru(MONTH_INDEXES_KEPT),
  cones: new WeightedLru(CONE_ITEMS_KEPT),
}));

/** Parses "12,7,3" (decimal integers joined by ',') into `into`, returning how many were read. */
function parseIntegerList(text: string, into: { [index: number]: number }): number {
  let count = 0;
  let value = 0;
  let digits = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 44 /* , */) {
      if (digits > 0) into[count++] = value;
      value = 0;
      digits = 0;
    } else {
      value = value * 10 + (code - 48);
      digits += 1;
    }
  }
  if (digits > 0) into[count++] = value;
  return count;
}

/** The aggregate that joins a column's text with ',' (PostgreSQL needs text input). */
function joinedText(dialect: DialectName, column: string) {
  return dialect === 'postgres'
    ? sql<string | null>`string_agg(${sql.ref(column)}::text, ',')`
    : sql<string | null>`group_concat(${sql.ref(column)}, ',')`;
}

export const monthIndexTuning = {
  /**
   * Prefixes a statement of a month's index reads, and origin ASNs (with their prefixes). On SQLite each statement
   * runs on the service's only thread: a generated full month (960,000 prefixes, 85,000 origins) took 0.9-1.0 s for
   * its prefixes and 0.8-1.0 s for its origins in one statement each, during which no other request was answered.
   * In chunks of these sizes each holds the thread ~100 ms, and other requests are answered between them.
   */
  prefixesPerChunk: 100_000,
  originAsnsPerChunk: 10_000,
  /**
   * On PostgreSQL, prefix chunks read at once, each a range of prefix_id (prefixChunksByRange): the chunks were read
   * one after the other, each waiting for the last one's end, while the server has cores to spare.
   */
  prefixChunksTogether: 2,
  /** ...as long as the month's prefix_id range holds at most this many chunks (a month's ids are dense as loaded). */
  maxPrefixRangeChunks: 64,
};

/**
 * One statement's worth of the month's prefixes, after `afterId` (and through `throughId`, where given), in prefix_id
 * order, aggregated: their networks and lengths, their least and greatest id, and the ids themselves only `withIds`
 * (readPrefixes says when they are needed).
 */
async function prefixChunk(
  db: Kysely<Database>,
  dialect: DialectName,
  date: string,
  afterId: number,
  throughId?: number,
  withIds = false,
) {
  const ordered = db
    .selectFrom('prefixes')
    .select(['prefix_id', 'network', 'length'])
    .where('date', '=', date)
    .where('prefix_id', '>', afterId)
    .$if(throughId !== undefined, (range) => range.where('prefix_id', '<=', throughId!))
    .orderBy('prefix_id')
    .limit(monthIndexTuning.prefixesPerChunk)
    .as('p');
  return db
    .selectFrom(ordered)
    .select([
      sql<number | string>`count(*)`.as('total'),
      sql<number | string | null>`min(p.prefix_id)`.as('first'),
      sql<number | string | null>`max(p.prefix_id)`.as('last'),
      (withIds ? joinedText(dialect, 'p.prefix_id') : sql<string | null>`null`).as('ids'),
      joinedText(dialect, 'p.network').as('networks'),
      joinedText(dialect, 'p.length').as('lengths'),
    ])
    .executeTakeFirstOrThrow();
}

/** One statement's worth of the month's origin ASNs after `afterAsn`, each with its prefix ids aggregated. */
function originChunk(db: Kysely<Database>, dialect: DialectName, date: string, afterAsn: number) {
  return db
    .selectFrom('prefix_origins')
    .select(['asn', joinedText(dialect, 'prefix_id').as('ids'), sql<number | string>`count(*)`.as('count')])
    .where('date', '=', date)
    .where('asn', '>', afterAsn)
    .groupBy('asn')
    .orderBy('asn')
    .limit(monthIndexTuning.originAsnsPerChunk)
    .execute();
}

/** Lets the event loop answer other requests between two statements of a long read (SQLite runs each inline). */
const otherRequestsFirst = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Reads a month: its prefixes (ids, networks and lengths aggregated in the same pass, hence in the same order) and
 * each origin ASN with its prefix ids, in chunks (monthIndexTuning). Aggregated strings because materialising a
 * million rows as JS objects costs ~1 µs each; this costs a few hundred ms to 2 s per month, once. The chunks run in
 * separate statements, so a load that commits between them would mix two versions of the month: the store's data
 * version is read before and after, and the month read again when it moved (three reads at most: a store reloaded
 * faster than that is served the last read).
 */
async function loadMonth(
  db: Kysely<Database>,
  dialect: DialectName,
  date: string,
): Promise<MonthPrefixIndex> {
  for (let attempt = 1; ; attempt += 1) {
    const before = await readStoreDataVersion(db);
    const month = await readMonth(db, dialect, date);
    if ((await readStoreDataVersion(db)) === before || attempt === 3) return month;
  }
}

type PrefixChunk = Awaited<ReturnType<typeof prefixChunk>>;

/**
 * Whether a chunk's ids are implied: they follow one another from its least, as the loads number a month's. Aggregating
 * the ids as text was 40% of a chunk's statement on PostgreSQL (48.6 -> 29.3 ms for 100,000 prefixes) and 15% on
 * SQLite, so chunks are read without them until one shows a gap (`reading.withIds`), and such a chunk is read again
 * with them (readPrefixes).
 */
function idsImplied(chunk: PrefixChunk): boolean {
  return Number(chunk.last) - Number(chunk.first) + 1 === Number(chunk.total);
}

/** How the chunks of one month are read: with their ids once one of them has shown a gap (idsImplied). */
interface ChunkReading {
  withIds: boolean;
}

/** The month's prefix chunks one after another, each after the last one's end (SQLite answers others between them). */
async function prefixChunksInTurn(
  db: Kysely<Database>,
  dialect: DialectName,
  date: string,
  reading: ChunkReading,
): Promise<PrefixChunk[]> {
  const chunks: PrefixChunk[] = [];
  for (let afterId = -1; ;) {
    const chunk = await prefixChunk(db, dialect, date, afterId, undefined, reading.withIds);
    const count = Number(chunk.total);
    if (count === 0) break;
    if (!idsImplied(chunk)) reading.withIds = true;
    chunks.push(chunk);
    afterId = Number(chunk.last);
    if (count < monthIndexTuning.prefixesPerChunk) break;
    await otherRequestsFirst();
  }
  return chunks;
}

/**
 * The month's prefix chunks as ranges of prefix_id from its least to its greatest, `prefixChunksTogether` at a time
 * (monthIndexTuning), in order; null where the range holds more than `maxPrefixRangeChunks` chunks (ids far apart).
 */
async function prefixChunksByRange(
  db: Kysely<Database>,
  dialect: DialectName,
  date: string,
  reading: ChunkReading,
): Promise<PrefixChunk[] | null> {
  const { prefixesPerChunk: size, prefixChunksTogether: together } = monthIndexTuning;
  const bounds = await db
    .selectFrom('prefixes')
    .select([
      sql<number | string | null>`min(prefix_id)`.as('least'),
      sql<number | string | null>`max(prefix_id)`.as('greatest'),
    ])
    .where('date', '=', date)
    .executeTakeFirstOrThrow();
  if (bounds.least === null || bounds.greatest === null) return [];
  const least = Number(bounds.least);
  const greatest = Number(bounds.greatest);
  if ((greatest - least + 1) / size > monthIndexTuning.maxPrefixRangeChunks) return null;
  const starts: number[] = [];
  for (let afterId = least - 1; afterId < greatest; afterId += size) starts.push(afterId);
  const chunks: PrefixChunk[] = [];
  for (let first = 0; first < starts.length; first += together) {
    const read = await Promise.all(
      starts
        .slice(first, first + together)
        .map((afterId) => prefixChunk(db, dialect, date, afterId, afterId + size, reading.withIds)),
    );
    if (read.some((chunk) => Number(chunk.total) > 0 && !idsImplied(chunk))) reading.withIds = true;
    chunks.push(...read);
  }
  return chunks.filter((chunk) => Number(chunk.total) > 0);
}

/** The month's prefixes in prefix_id order: their ids, lengths and networks (readMonth). */
async function readPrefixes(db: Kysely<Database>, dialect: DialectName, date: string) {
  const idChunks: Float64Array[] = [];
  const lengthChunks: Uint8Array[] = [];
  const networkChunks: string[] = [];
  const reading: ChunkReading = { withIds: false };
  const chunks =
    (dialect === 'postgres' ? await prefixChunksByRange(db, dialect, date, reading) : null) ??
    (await prefixChunksInTurn(db, dialect, date, reading));
  for (const read of chunks) {
    const count = Number(read.total);
    const first = Number(read.first);
    const ids = new Float64Array(count);
    const implied = read.ids === null && idsImplied(read);
    let chunk = read;
    if (!implied && read.ids === null) {
      // The chunk that showed a gap (and on PostgreSQL the one read beside it), read again with its ids: the same
      // prefixes, from its least to its greatest.
      if (dialect === 'sqlite') await otherRequestsFirst();
      chunk = await prefixChunk(db, dialect, date, first - 1, Number(read.last), true);
    }
    if (implied) for (let position = 0; position < count; position += 1) ids[position] = first + position;
    else parseIntegerList(chunk.ids ?? '', ids);
    const chunkLengths = new Uint8Array(count);
    parseIntegerList(chunk.lengths ?? '', chunkLengths);
    idChunks.push(ids);
    lengthChunks.push(chunkLengths);
    networkChunks.push(chunk.networks ?? '');
  }
  const total = idChunks.reduce((sum, ids) => sum + ids.length, 0);
  let prefixIds = new Float64Array(total);
  let lengths = new Uint8Array(total);
  for (let chunk = 0, at = 0; chunk < idChunks.length; at += idChunks[chunk]!.length, chunk += 1) {
    prefixIds.set(idChunks[chunk]!, at);
    lengths.set(lengthChunks[chunk]!, at);
  }
  let text = networkChunks.join(',');
  let textStart = new Uint32Array(total + 1);
  for (let position = 0, at = 0; position < total; position += 1) {
    textStart[position] = at;
    const comma = text.indexOf(',', at);
    at = comma < 0 ? text.length + 1 : comma + 1;
  }
  textStart[total] = text.length + 1;

  // The aggregates saw the rows in the same order, but SQL does not promise it is the subquery's: re-order if not.
  if (!isStrictlyAscending(prefixIds)) {
    const order = Array.from({ length: total }, (_, position) => position).sort(
      (a, b) => prefixIds[a]! - prefixIds[b]!,
    );
    const networks = order.map((position) => text.slice(textStart[position], textStart[position + 1]! - 1));
    prefixIds = Float64Array.from(order, (position) => prefixIds[position]!);
    lengths = Uint8Array.from(order, (position) => lengths[position]!);
    text = networks.join(',');
    textStart = new Uint32Array(total + 1);
    let at = 0;
    networks.forEach((network, position) => {
      textStart[position] = at;
      at += network.length + 1;
    });
    textStart[total] = at;
  }

  return { prefixIds, lengths, text, textStart };
}

/** The month's origin ASNs, ascending, each with its prefix ids aggregated (readMonth). */
async function readOrigins(db: Kysely<Database>, dialect: DialectName, date: string) {
  const originRows: Awaited<ReturnType<typeof originChunk>> = [];
  for (let afterAsn = -1; ;) {
    const chunk = await originChunk(db, dialect, date, afterAsn);
    originRows.push(...chunk);
    if (chunk.length < monthIndexTuning.originAsnsPerChunk) break;
    afterAsn = Number(chunk.at(-1)!.asn);
    await otherRequestsFirst();
  }
  return originRows;
}

async function readMonth(
  db: Kysely<Database>,
  dialect: DialectName,
  date: string,
): Promise<MonthPrefixIndex> {
  // The prefixes and the origins are two reads apart, each in chunks. On PostgreSQL they run together, each on a
  // connection of its own (the generated month's first cone prefixes: 890 ms, 467 of them the prefixes' chunks and 256
  // the origins'); SQLite runs every statement on the service's thread, so there they come one after the other.
  const [{ prefixIds, lengths, text, textStart }, originRows] =
    dialect === 'postgres'
      ? await Promise.all([readPrefixes(db, dialect, date), readOrigins(db, dialect, date)])
      : [
          await readPrefixes(db, dialect, date),
          await otherRequestsFirst().then(() => readOrigins(db, dialect, date)),
        ];
  const total = prefixIds.length;
  const originAsns = new Float64Array(originRows.length);
  const originStart = new Uint32Array(originRows.length + 1);
  const originPositions = new Uint32Array(originRows.reduce((sum, row) => sum + Number(row.count), 0));
  const dense = total === 0 || prefixIds[total - 1]! - prefixIds[0]! === total - 1;
  const firstId = total === 0 ? 0 : prefixIds[0]!;
  const ids = new Float64Array(originRows.reduce((max, row) => Math.max(max, Number(row.count)), 0));
  let filled = 0;
  originRows.forEach((row, index) => {
    originAsns[index] = Number(row.asn);
    originStart[index] = filled;
    const count = parseIntegerList(row.ids ?? '', ids);
    for (let at = 0; at < count; at += 1) {
      const position = dense ? ids[at]! - firstId : positionOf(prefixIds, ids[at]!);
      // An origin whose prefix row is missing is not a cone prefix (the SQL definitions join prefixes too).
      if (position >= 0 && position < total) originPositions[filled++] = position;
    }
  });
  originStart[originRows.length] = filled;
  return {
    prefixIds,
    lengths,
    text,
    textStart,
    originAsns,
    originStart,
    originPositions: filled === originPositions.length ? originPositions : originPositions.slice(0, filled),
  };
}

/** Whether each value is greater than the one before it (the order the aggregated lists are read in). */
function isStrictlyAscending(values: Float64Array | Uint32Array): boolean {
  for (let at = 1; at < values.length; at += 1) if (values[at - 1]! >= values[at]!) return false;
  return true;
}

/** Binary search: the position of `id` in the ascending `ids`, or -1. */
function positionOf(ids: Float64Array, id: number): number {
  let low = 0;
  let high = ids.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = ids[middle]!;
    if (value === id) return middle;
    if (value < id) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/** Where a cached structure belongs: the handle, its dialect, and the store's data version. */
export interface IndexScope {
  db: Kysely<Database>;
  dialect: DialectName;
  dataVersion: string;
}

export function monthPrefixIndex(scope: IndexScope, date: string): Promise<MonthPrefixIndex> {
  const { months } = cachesOf(scope.db);
  const key = `${scope.dataVersion}|${date}`;
  let index = months.get(key);
  if (!index) {
    index = loadMonth(scope.db, scope.dialect, date);
    months.set(key, index, 1);
    // A failed load is not kept: the next request tries again.
    index.catch(() => months.delete(key));
  }
  return index;
}

/**
 * A cone's members, ascending, as one aggregated string rather than one row each: a tier-1 cone has tens of
 * thousands of members, and as rows they cost ~31 ms per cone on the real month (an object per row, then a copy
 * into the typed array), against a few ms as text (twenty-first round in docs/performance.md).
 */
async function loadMembers(
  db: Kysely<Database>,
  dialect: DialectName,
  date: string,
  asn: number,
): Promise<Uint32Array> {
  const ordered = db
    .selectFrom('cone_members')
    .select('member_asn')
    .where('date', '=', date)
    .where('asn', '=', asn)
    .orderBy('member_asn')
    .as('m');
  const row = await db
    .selectFrom(ordered)
    .select([sql<number | string>`count(*)`.as('total'), joinedText(dialect, 'm.member_asn').as('members')])
    .executeTakeFirstOrThrow();
  const members = new Uint32Array(Number(row.total));
  parseIntegerList(row.members ?? '', members);
  // As for a month's prefixes: SQL does not promise the aggregate sees the subquery's order.
  return isStrictlyAscending(members) ? members : members.sort();
}

/** The distinct positions of the prefixes originated by `members` (ascending ASNs), ascending. */
export function conePrefixPositions(month: MonthPrefixIndex, members: Uint32Array): Uint32Array {
  const marked = new Uint8Array(month.prefixIds.length);
  let count = 0;
  let origin = 0;
  for (const member of members) {
    // Both lists are ascending: walk them together.
    while (origin < month.originAsns.length && month.originAsns[origin]! < member) origin += 1;
    if (origin === month.originAsns.length) break;
    if (month.originAsns[origin] !== member) continue;
    for (let at = month.originStart[origin]!; at < month.originStart[origin + 1]!; at += 1) {
      const position = month.originPositions[at]!;
      if (marked[position] === 0) {
        marked[position] = 1;
        count += 1;
      }
    }
  }
  const positions = new Uint32Array(count);
  for (let position = 0, filled = 0; position < marked.length; position += 1) {
    if (marked[position] === 1) positions[filled++] = position;
  }
  return positions;
}

function coneKey(scope: IndexScope, cone: { date: string; asn: number }): string {
  return `${scope.dataVersion}|${cone.date}|${cone.asn}`;
}

/** A large cone's members, read once per data version and kept (bounded, see CONE_ITEMS_KEPT). */
export function coneListsOf(scope: IndexScope, cone: { date: string; asn: number }): Promise<ConeLists> {
  const { cones } = cachesOf(scope.db);
  const key = coneKey(scope, cone);
  let lists = cones.get(key);
  if (!lists) {
    const loading = loadMembers(scope.db, scope.dialect, cone.date, cone.asn).then((members): ConeLists => ({
      members,
      prefixPositions: null,
    }));
    lists = loading;
    cones.set(key, loading, 1);
    loading.then(
      (loaded) => cones.set(key, loading, loaded.members.length),
      () => cones.delete(key),
    );
  }
  return lists;
}

/** A large cone's distinct prefix positions in the month index (computed once per data version, kept bounded). */
export async function conePrefixPositionsOf(
  scope: IndexScope,
  cone: { date: string; asn: number },
): Promise<{ month: MonthPrefixIndex; positions: Uint32Array }> {
  const [month, lists] = await Promise.all([monthPrefixIndex(scope, cone.date), coneListsOf(scope, cone)]);
  if (!lists.prefixPositions) {
    lists.prefixPositions = conePrefixPositions(month, lists.members);
    const { cones } = cachesOf(scope.db);
    const key = coneKey(scope, cone);
    const cached = cones.get(key);
    if (cached) cones.set(key, cached, lists.members.length + lists.prefixPositions.length);
  }
  return { month, positions: lists.prefixPositions };
}

/** The network text at a position of the month index. */
export function networkAt(month: MonthPrefixIndex, position: number): string {
  return month.text.slice(month.textStart[position], month.textStart[position + 1]! - 1);
}
