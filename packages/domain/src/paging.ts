import { ArgumentError, quoteValue } from './errors';

/** Page size applied when `first` is omitted (the spec's sample reports 40). */
export const DEFAULT_PAGE_SIZE = 40;
/** Largest `first` accepted; larger is an error, not a silent clamp, so a client never mistakes a short page for the end. */
export const MAX_PAGE_SIZE = 10000;
/** Largest `offset`: GraphQL's Int is a 32-bit signed integer, so a larger one cannot be sent as a variable. */
export const MAX_OFFSET = 2147483647;

/** A validated offset page request. */
export interface PageArgs {
  first: number;
  offset: number;
}

/** Metadata of one offset page, as the spec's PageInfo (plus the observed `first`, `offset` and `status`). */
export interface PageInfo {
  first: number;
  offset: number;
  status: 'success';
  hasPreviousPage: boolean;
  hasNextPage: boolean;
  startCursor: string;
  endCursor: string;
}

function checkCount(value: number, argument: string, max: number | null): number {
  if (
    typeof value !== 'number' ||
    !Number.isSafeInteger(value) ||
    value < 0 ||
    (max !== null && value > max)
  ) {
    const range = max === null ? 'a whole number >= 0' : `a whole number from 0 to ${max}`;
    throw new ArgumentError(argument, `${argument} must be ${range}; got ${quoteValue(value)}`);
  }
  return value;
}

/** Validates `first` (default 40, 0..10000) and `offset` (default 0, >= 0); both must be whole numbers. */
export function parsePageArgs(args: { first?: number | null; offset?: number | null }): PageArgs {
  const first =
    args.first === null || args.first === undefined
      ? DEFAULT_PAGE_SIZE
      : checkCount(args.first, 'first', MAX_PAGE_SIZE);
  const offset =
    args.offset === null || args.offset === undefined ? 0 : checkCount(args.offset, 'offset', null);
  return { first, offset };
}

const CURSOR_PREFIX = 'offset:';

/** Opaque cursor of the item at absolute position `position` of a list (base64 so clients do not parse it). */
export function offsetCursor(position: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${position}`, 'utf8').toString('base64');
}

/** Inverse of offsetCursor; anything it did not produce is an ArgumentError naming `argument`. */
export function parseOffsetCursor(cursor: string, argument: string): number {
  const decoded = typeof cursor === 'string' ? Buffer.from(cursor, 'base64').toString('utf8') : '';
  const digits = decoded.startsWith(CURSOR_PREFIX) ? decoded.slice(CURSOR_PREFIX.length) : '';
  const position = /^\d{1,15}$/.test(digits) ? Number(digits) : NaN;
  if (!Number.isSafeInteger(position) || offsetCursor(position) !== cursor) {
    throw new ArgumentError(
      argument,
      `${argument} is not a cursor returned by this service: ${quoteValue(cursor)}`,
    );
  }
  return position;
}

/**
 * Builds PageInfo for a page of `returnedCount` items starting at `page.offset` in a list of `totalCount`. `first` is
 * the page size applied, so clients advancing with `offset += pageInfo.first` work. Cursors are never null: an empty
 * page reports the cursor of its offset for both.
 */
export function buildPageInfo(page: PageArgs, returnedCount: number, totalCount: number): PageInfo {
  const lastPosition = page.offset + Math.max(returnedCount - 1, 0);
  return {
    first: page.first,
    offset: page.offset,
    status: 'success',
    hasPreviousPage: page.offset > 0,
    hasNextPage: page.offset + returnedCount < totalCount,
    startCursor: offsetCursor(page.offset),
    endCursor: offsetCursor(lastPosition),
  };
}

/** One edge of an offset connection. */
export interface Edge<T> {
  node: T;
  cursor: string;
}

/** A page of a list as the API returns it (any `...Connection` type). */
export interface Connection<T> {
  totalCount: number;
  pageInfo: PageInfo;
  edges: Edge<T>[];
}

/** Assembles a connection from the page's nodes, giving each edge the cursor of its absolute position. */
export function buildConnection<T>(page: PageArgs, nodes: readonly T[], totalCount: number): Connection<T> {
  return {
    totalCount,
    pageInfo: buildPageInfo(page, nodes.length, totalCount),
    edges: nodes.map((node, index) => ({ node, cursor: offsetCursor(page.offset + index) })),
  };
}
