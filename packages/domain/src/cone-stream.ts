import { ArgumentError, quoteValue } from './errors';

/**
 * Where the depth-first cone walk stands, mirroring the spec's `cone,asnIndex,prefixIndex` text: while the cone's ASN
 * walk is unfinished the prefix position is empty (`3,17,`); once all its ASNs are passed the ASN position is empty
 * (`3,,42`).
 */
export type ConeStreamCursor =
  | { cone: number; asnIndex: number; prefixIndex: null }
  | { cone: number; asnIndex: null; prefixIndex: number };

/** Items per asnConesStream page when the caller does not choose. */
export const DEFAULT_CONE_STREAM_BUDGET = 1000;
/** Largest page budget accepted (the same cap as `first`). */
export const MAX_CONE_STREAM_BUDGET = 10000;

/**
 * The walk's input, in order. `fromIndex` lets a database source start with OFFSET (or a keyset) instead of reading
 * what earlier pages already returned; the paginator stops consuming (calls `return()`) as soon as the page is full,
 * after peeking at most one item past it, so a source may stream in chunks.
 */
export interface ConeStreamSource<Cone, Member, Prefix> {
  cones(fromIndex: number): AsyncIterable<Cone>;
  asns(cone: Cone, fromIndex: number): AsyncIterable<Member>;
  prefixes(cone: Cone, fromIndex: number): AsyncIterable<Prefix>;
  /**
   * Optional batch forms of `asns` / `prefixes`: items `fromIndex` .. `fromIndex + count - 1` (fewer only where the
   * list ends). When present the paginator uses them, one call per cone and page, instead of awaiting every item
   * of an iterator (which costs more than the rest of the page for a source that holds the list in memory). The
   * returned array must be fresh: the paginator may shorten it.
   */
  asnSlice?(cone: Cone, fromIndex: number, count: number): Promise<Member[]>;
  prefixSlice?(cone: Cone, fromIndex: number, count: number): Promise<Prefix[]>;
}

/**
 * Takes up to `remaining` items of a list from `fromIndex`, peeking one more to know whether the list goes on.
 * `more` is true when an item beyond the taken ones exists (so the page is full and the next one starts there).
 */
async function takeFrom<T>(
  iterable: () => AsyncIterable<T>,
  slice: ((fromIndex: number, count: number) => Promise<T[]>) | undefined,
  fromIndex: number,
  remaining: number,
): Promise<{ taken: T[]; more: boolean }> {
  if (slice) {
    const items = await slice(fromIndex, remaining + 1);
    if (items.length <= remaining) return { taken: items, more: false };
    items.length = remaining;
    return { taken: items, more: true };
  }
  const taken: T[] = [];
  for await (const value of iterable()) {
    if (taken.length === remaining) return { taken, more: true };
    taken.push(value);
  }
  return { taken, more: false };
}

/** One cone on a page with the slices of its member ASNs and prefixes that fall on this page. */
export interface ConeStreamItem<Cone, Member, Prefix> {
  cone: Cone;
  coneIndex: number;
  asns: Member[];
  prefixes: Prefix[];
}

export interface ConeStreamPage<Cone, Member, Prefix> {
  items: ConeStreamItem<Cone, Member, Prefix>[];
  /** Canonical form of the cursor this page started at. */
  pageCursor: string;
  /** Where the next page starts; when the walk is complete, the end position (resuming there gives an empty page). */
  nextPageCursor: string;
  hasNextPage: boolean;
}

const CURSOR_FORMS =
  'empty (start), "cone,asnIndex," or "cone,,prefixIndex" with whole numbers (e.g. "0,0," or "3,,12")';

function cursorError(cursor: string, reason: string): ArgumentError {
  return new ArgumentError(
    'pageCursor',
    `pageCursor ${quoteValue(cursor)} ${reason}; it must be ${CURSOR_FORMS}`,
  );
}

/** The start of cone `cone`. */
export function coneStartCursor(cone: number): ConeStreamCursor {
  return { cone, asnIndex: 0, prefixIndex: null };
}

/** Parses a `pageCursor`; null, undefined or blank means the start of the walk (`0,0,`). */
export function parseConeStreamCursor(cursor: string | null | undefined): ConeStreamCursor {
  if (cursor === null || cursor === undefined || cursor.trim() === '') return coneStartCursor(0);
  const match = /^(\d{1,15}),(\d{0,15}),(\d{0,15})$/.exec(cursor.trim());
  if (!match) throw cursorError(cursor, 'is malformed');
  const [, coneText = '', asnText = '', prefixText = ''] = match;
  if ((asnText === '') === (prefixText === '')) {
    throw cursorError(cursor, 'must leave exactly one of the asn and prefix positions empty');
  }
  const cone = Number(coneText);
  return asnText !== ''
    ? { cone, asnIndex: Number(asnText), prefixIndex: null }
    : { cone, asnIndex: null, prefixIndex: Number(prefixText) };
}

export function formatConeStreamCursor(cursor: ConeStreamCursor): string {
  return cursor.asnIndex !== null
    ? `${cursor.cone},${cursor.asnIndex},`
    : `${cursor.cone},,${cursor.prefixIndex}`;
}

function checkBudget(budget: number): void {
  if (!Number.isSafeInteger(budget) || budget < 1 || budget > MAX_CONE_STREAM_BUDGET) {
    throw new ArgumentError(
      'budget',
      `budget must be a whole number from 1 to ${MAX_CONE_STREAM_BUDGET}; got ${quoteValue(budget)}`,
    );
  }
}

async function firstOf<T>(iterable: AsyncIterable<T>): Promise<{ found: true; value: T } | { found: false }> {
  for await (const value of iterable) return { found: true, value };
  return { found: false };
}

/**
 * One page of asnConesStream's depth-first walk: cone 0's ASNs, then its prefixes, then cone 1's ASNs, and so on.
 *
 * Budget: every member ASN and every prefix placed on the page costs one item. A cone with no ASNs and no prefixes at
 * all costs one item when the walk reaches its start, so it still appears (with empty lists) and the walk always moves
 * forward. A cone appears on every page its walk touches, carrying only that page's slice.
 *
 * Cursors (canonical; the paginator peeks one item past a full page to make them so, and to make `hasNextPage` exact):
 * start of cone c = `c,0,`; inside the ASN walk = `c,i,` (i = next ASN); once the ASNs are done and the cone has
 * prefixes = `c,,0`, inside the prefix walk = `c,,j`; after the cone's last item = `c+1,0,`. A finished walk reports
 * `hasNextPage: false` and the end position `n,0,` (n = number of cones), from which a resume returns an empty page.
 * Resuming from any cursor this function produced continues exactly where the previous page stopped. A cursor past
 * the end of a cone's lists, or a cone beyond the end position, is an ArgumentError; `c,,0` on a cone without prefixes
 * is accepted and moves on to cone c+1.
 */
export async function paginateConeStream<C, M, P>(
  source: ConeStreamSource<C, M, P>,
  cursor: string | null | undefined,
  budget: number = DEFAULT_CONE_STREAM_BUDGET,
): Promise<ConeStreamPage<C, M, P>> {
  checkBudget(budget);
  const start = parseConeStreamCursor(cursor);
  const pageCursor = formatConeStreamCursor(start);
  const items: ConeStreamItem<C, M, P>[] = [];
  let remaining = budget;
  let next: ConeStreamCursor | null = null;
  let coneIndex = start.cone;
  let position: ConeStreamCursor = start;
  const { asnSlice, prefixSlice } = source;

  for await (const cone of source.cones(start.cone)) {
    if (remaining === 0) {
      next = coneStartCursor(coneIndex);
      break;
    }
    const item: ConeStreamItem<C, M, P> = { cone, coneIndex, asns: [], prefixes: [] };
    const atConeStart = position.asnIndex === 0;

    let prefixFrom = 0;
    if (position.asnIndex !== null) {
      const asnFrom = position.asnIndex;
      const { taken, more } = await takeFrom(
        () => source.asns(cone, asnFrom),
        asnSlice && ((fromIndex, count) => asnSlice.call(source, cone, fromIndex, count)),
        asnFrom,
        remaining,
      );
      item.asns = taken;
      remaining -= taken.length;
      if (more) next = { cone: coneIndex, asnIndex: asnFrom + taken.length, prefixIndex: null };
      else if (taken.length === 0 && asnFrom > 0) {
        throw cursorError(pageCursor, `points past the last ASN of cone ${coneIndex}`);
      }
    } else {
      prefixFrom = position.prefixIndex;
    }

    if (next === null) {
      const { taken, more } = await takeFrom(
        () => source.prefixes(cone, prefixFrom),
        prefixSlice && ((fromIndex, count) => prefixSlice.call(source, cone, fromIndex, count)),
        prefixFrom,
        remaining,
      );
      item.prefixes = taken;
      remaining -= taken.length;
      if (more) next = { cone: coneIndex, asnIndex: null, prefixIndex: prefixFrom + taken.length };
      else if (taken.length === 0 && prefixFrom > 0) {
        throw cursorError(pageCursor, `points past the last prefix of cone ${coneIndex}`);
      }
    }

    const placed = item.asns.length + item.prefixes.length;
    if (placed > 0) {
      items.push(item);
    } else if (atConeStart) {
      // A cone with nothing in it still costs one item, so it is listed and the walk advances.
      items.push(item);
      remaining -= 1;
    }
    if (next !== null) break;
    coneIndex += 1;
    position = coneStartCursor(coneIndex);
  }

  if (next === null && coneIndex === start.cone && items.length === 0) {
    // The first cone asked for does not exist. Only the end position (`n,0,`) is acceptable then.
    const endPosition =
      start.asnIndex === 0 && (start.cone === 0 || (await firstOf(source.cones(start.cone - 1))).found);
    if (!endPosition) throw cursorError(pageCursor, 'is beyond the end of the stream');
  }
  const nextCursor = next ?? coneStartCursor(coneIndex);
  return {
    items,
    pageCursor,
    nextPageCursor: formatConeStreamCursor(nextCursor),
    hasNextPage: next !== null,
  };
}
