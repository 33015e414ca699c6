import fc from 'fast-check';
import {
  ArgumentError,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  buildConnection,
  buildPageInfo,
  offsetCursor,
  parseOffsetCursor,
  parsePageArgs,
} from '../src';

describe('parsePageArgs', () => {
  it('defaults to 40 items from offset 0', () => {
    expect(DEFAULT_PAGE_SIZE).toBe(40);
    expect(parsePageArgs({})).toEqual({ first: 40, offset: 0 });
    expect(parsePageArgs({ first: null, offset: null })).toEqual({ first: 40, offset: 0 });
  });

  it('accepts the bounds', () => {
    expect(parsePageArgs({ first: 0, offset: 0 })).toEqual({ first: 0, offset: 0 });
    expect(parsePageArgs({ first: MAX_PAGE_SIZE, offset: 123456 })).toEqual({ first: 10000, offset: 123456 });
  });

  it.each([
    [{ first: 10001 }, 'first', /0 to 10000/],
    [{ first: -1 }, 'first', /0 to 10000/],
    [{ first: 2.5 }, 'first', /whole number/],
    [{ first: Number.NaN }, 'first', /whole number/],
    [{ offset: -3 }, 'offset', />= 0/],
    [{ offset: 1.5 }, 'offset', /whole number/],
    [{ offset: Number.POSITIVE_INFINITY }, 'offset', /whole number/],
  ])('rejects %j naming %s', (args, argument, message) => {
    let caught: unknown;
    try {
      parsePageArgs(args);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ArgumentError);
    expect((caught as ArgumentError).argument).toBe(argument);
    expect((caught as ArgumentError).message).toMatch(message);
  });
});

describe('offset cursors', () => {
  it('round-trip every position', () => {
    fc.assert(
      fc.property(fc.nat(), (position) => parseOffsetCursor(offsetCursor(position), 'after') === position),
    );
  });

  it('are opaque strings, not bare numbers', () => {
    expect(offsetCursor(7)).not.toBe('7');
    expect(offsetCursor(7)).not.toBe(offsetCursor(8));
  });

  it.each(['', '7', 'b2Zmc2V0Oi0x', offsetCursor(3) + 'x', 'not base64!'])(
    'rejects the foreign cursor %j',
    (cursor) => {
      expect(() => parseOffsetCursor(cursor, 'after')).toThrow(/after is not a cursor/);
    },
  );
});

describe('buildPageInfo', () => {
  it('describes a middle page', () => {
    const info = buildPageInfo({ first: 10, offset: 20 }, 10, 45);
    expect(info).toMatchObject({
      first: 10,
      offset: 20,
      status: 'success',
      hasPreviousPage: true,
      hasNextPage: true,
    });
    expect(parseOffsetCursor(info.startCursor, 'c')).toBe(20);
    expect(parseOffsetCursor(info.endCursor, 'c')).toBe(29);
  });

  it('describes the first and the last page', () => {
    expect(buildPageInfo({ first: 10, offset: 0 }, 10, 45)).toMatchObject({
      hasPreviousPage: false,
      hasNextPage: true,
    });
    expect(buildPageInfo({ first: 10, offset: 40 }, 5, 45)).toMatchObject({
      hasPreviousPage: true,
      hasNextPage: false,
    });
    expect(buildPageInfo({ first: 10, offset: 35 }, 10, 45)).toMatchObject({ hasNextPage: false });
  });

  it('gives non-null cursors to an empty page', () => {
    const info = buildPageInfo({ first: 10, offset: 50 }, 0, 45);
    expect(info.hasNextPage).toBe(false);
    expect(info.startCursor).toEqual(expect.any(String));
    expect(info.endCursor).toBe(info.startCursor);
    const none = buildPageInfo({ first: 0, offset: 0 }, 0, 3);
    expect(none).toMatchObject({ first: 0, hasNextPage: true, hasPreviousPage: false });
  });

  it('lets a client walk the list with offset += pageInfo.first and see every item once', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 50 }), (total, pageSize) => {
        const all = Array.from({ length: total }, (_, index) => index);
        const seen: number[] = [];
        let offset = 0;
        for (;;) {
          const page = parsePageArgs({ first: pageSize, offset });
          const connection = buildConnection(page, all.slice(page.offset, page.offset + page.first), total);
          for (const edge of connection.edges) {
            expect(parseOffsetCursor(edge.cursor, 'cursor')).toBe(edge.node);
            seen.push(edge.node);
          }
          if (!connection.pageInfo.hasNextPage) break;
          offset += connection.pageInfo.first;
        }
        expect(seen).toEqual(all);
      }),
    );
  });
});
