// Customer cones read from the database in chunks for the domain's cone-stream paginator (and asnCone's pages).
// Members come in ASN order and prefixes in prefix_id (= address) order, each read with keyset queries of at most
// one page's worth of rows, so a 50,000-ASN / several-hundred-thousand-prefix cone is never held in memory.
// Cone prefixes = the distinct prefixes originated by any cone member: a MOAS prefix whose several origins
// are in the cone is listed once.
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Database, PrefixesTable } from '@asrank/db';
import type { ConeStreamSource } from '@asrank/domain';
import type { PrefixRecord } from './types/refs';

/**
 * Rows per keyset query, and the cone size (member ASNs) above which a cone's prefixes are found by scanning the
 * month's prefixes in order (see conePrefixChunk). Mutable so tests can drive both strategies and chunk edges on
 * the small sample.
 */
export const coneStreamTuning = { chunk: 10001, largeConeAsns: 2000 };

/** Cones are listed in chunks of this many rows (a page rarely needs more). */
const CONE_LIST_CHUNK = 1000;

export interface StreamCone {
  date: string;
  asn: number;
  rank: number | null;
  coneAsns: number;
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
const resumeKeysByDb = new WeakMap<object, Map<string, number>>();
const RESUME_KEYS_MAX = 10000;

function resumeKeysOf(db: object): Map<string, number> {
  let keys = resumeKeysByDb.get(db);
  if (!keys) {
    keys = new Map();
    resumeKeysByDb.set(db, keys);
  }
  return keys;
}

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

export function coneMembers(
  scope: WalkScope,
  cone: { date: string; asn: number },
  fromIndex: number,
): AsyncGenerator<StreamMember> {
  const { db } = scope;
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
 * One chunk of a cone's distinct prefixes in prefix_id order. Small cones join members → origins → prefixes and
 * de-duplicate (cheap: few rows). Large cones (which hold a good share of all prefixes) instead scan the month's
 * prefixes in order and keep those with an origin in the cone (index probes per prefix, no big sort), so each
 * chunk costs about coneStreamTuning.chunk × (all prefixes / cone prefixes) probes.
 */
async function conePrefixChunk(
  db: Kysely<Database>,
  cone: { date: string; asn: number; coneAsns: number },
  after: { key: number; inclusive: boolean } | null,
  offset: number,
  limit: number,
): Promise<PrefixRecord[]> {
  const afterOp = after?.inclusive ? '>=' : '>';
  let rows: { prefix_id: number; network: string; length: number }[];
  if (cone.coneAsns > coneStreamTuning.largeConeAsns) {
    let query = db
      .selectFrom('prefixes as p')
      .select(['p.prefix_id', 'p.network', 'p.length'])
      .where('p.date', '=', cone.date)
      .where((eb) => originatedInCone(eb, cone.asn));
    if (after) query = query.where('p.prefix_id', afterOp, after.key);
    rows = await query.orderBy('p.prefix_id').limit(limit).offset(offset).execute();
  } else {
    let query = db
      .selectFrom('cone_members as cm')
      .innerJoin('prefix_origins as po', (join) =>
        join.onRef('po.date', '=', 'cm.date').onRef('po.asn', '=', 'cm.member_asn'),
      )
      .innerJoin('prefixes as p', (join) =>
        join.onRef('p.date', '=', 'po.date').onRef('p.prefix_id', '=', 'po.prefix_id'),
      )
      .select(['p.prefix_id', 'p.network', 'p.length'])
      .distinct()
      .where('cm.date', '=', cone.date)
      .where('cm.asn', '=', cone.asn);
    if (after) query = query.where('po.prefix_id', afterOp, after.key);
    rows = await query.orderBy('p.prefix_id').limit(limit).offset(offset).execute();
  }
  return rows.map((row) => ({
    date: cone.date,
    prefixId: Number(row.prefix_id),
    network: row.network,
    length: row.length,
  }));
}

/**
 * The prefix row `p` is originated by a member of `coneAsn`'s cone (of the same month). Used by the large-cone
 * prefix walk and by the prefix count, which must agree on what a cone's prefixes are.
 */
function originatedInCone(eb: ExpressionBuilder<Database & { p: PrefixesTable }, 'p'>, coneAsn: number) {
  return eb.exists(
    eb
      .selectFrom('prefix_origins as po')
      .innerJoin('cone_members as cm', (join) =>
        join.onRef('cm.date', '=', 'po.date').onRef('cm.member_asn', '=', 'po.asn'),
      )
      .select(sql`1`.as('one'))
      .whereRef('po.date', '=', 'p.date')
      .whereRef('po.prefix_id', '=', 'p.prefix_id')
      .where('cm.asn', '=', coneAsn),
  );
}

export function conePrefixes(
  scope: WalkScope,
  cone: { date: string; asn: number; coneAsns: number },
  fromIndex: number,
): AsyncGenerator<PrefixRecord> {
  const { db } = scope;
  return keysetWalk<PrefixRecord>(
    resumeKeysOf(db),
    `p|${scope.dataVersion}|${cone.date}|${cone.asn}`,
    fromIndex,
    (prefix) => prefix.prefixId,
    scope.rows,
    (after, offset, limit) => conePrefixChunk(db, cone, after, offset, limit),
  );
}

/** Number of distinct prefixes of a cone (asnCone's prefixes totalCount; computed only when asked for). */
export async function countConePrefixes(
  db: Kysely<Database>,
  cone: { date: string; asn: number },
): Promise<number> {
  const row = await db
    .selectFrom('prefixes as p')
    .select((eb) => eb.fn.countAll().as('total'))
    .where('p.date', '=', cone.date)
    .where((eb) => originatedInCone(eb, cone.asn))
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/** The paginator's source: cones from an ordered query (chunked by OFFSET), members and prefixes by keyset. */
export function coneStreamSource(
  scope: WalkScope,
  coneChunk: (offset: number, limit: number) => Promise<StreamCone[]>,
): ConeStreamSource<StreamCone, StreamMember, PrefixRecord> {
  return {
    async *cones(fromIndex) {
      const rows = Math.min(CONE_LIST_CHUNK, coneStreamTuning.chunk);
      for (let offset = fromIndex; ; offset += rows) {
        const cones = await coneChunk(offset, rows);
        yield* cones;
        if (cones.length < rows) return;
      }
    },
    asns: (cone, fromIndex) => coneMembers(scope, cone, fromIndex),
    prefixes: (cone, fromIndex) => conePrefixes(scope, cone, fromIndex),
  };
}
