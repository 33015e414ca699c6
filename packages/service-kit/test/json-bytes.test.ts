// largeJsonBytes must give exactly the UTF-8 bytes of JSON.stringify for any answer it is handed, whatever mix of
// large and small lists, nesting, holes, undefined members and non-ASCII text; holdsLargeArray decides which
// answers take that path.
import fc from 'fast-check';
import { LARGE_ARRAY_ELEMENTS, holdsLargeArray, largeJsonBytes } from '../src';

const expectSameBytes = (value: object) => {
  const bytes = largeJsonBytes(value);
  const expected = Buffer.from(JSON.stringify(value), 'utf8');
  expect(bytes.length).toBe(expected.length);
  expect(bytes.equals(expected)).toBe(true);
};

/** An array of `length` items cycling through `items` (generating thousands of distinct values is slow). */
const tiled = <T>(items: T[], length: number): T[] =>
  Array.from({ length }, (_, index) => items[index % items.length] as T);

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  // Lone surrogates: JSON.stringify escapes them.
  fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) }),
);
const leafItem = fc.oneof(
  fc.record({ asn: text, rank: fc.option(fc.integer(), { nil: null }) }),
  fc.record({ network: text, length: fc.integer({ min: 0, max: 128 }), extra: fc.constant(undefined) }),
  fc.jsonValue({ maxDepth: 2 }),
);
const largeList = fc
  .tuple(fc.array(leafItem, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 3000 }))
  .map(([items, extra]) => tiled(items, LARGE_ARRAY_ELEMENTS + extra));
const page = fc.record({
  coneIndex: fc.integer(),
  asn: fc.oneof(fc.constant(null), fc.record({ asn: text })),
  asns: fc.oneof(largeList, fc.array(leafItem, { maxLength: 5 })),
  prefixes: largeList,
  skipped: fc.constant(undefined),
});
const answer = fc.record({
  data: fc.record({
    stream: fc.record({
      pageInfo: fc.record({ hasNextPage: fc.boolean(), nextPageCursor: text }),
      // Pages whose large lists sit past the sampled first elements, or in every page.
      pages: fc.oneof(
        fc.array(page, { minLength: 1, maxLength: 3 }),
        fc
          .tuple(fc.array(leafItem, { minLength: 600, maxLength: 700 }), page)
          .map(([small, last]) => [...small, last]),
      ),
    }),
    other: fc.jsonValue({ maxDepth: 3 }),
  }),
});

describe('largeJsonBytes', () => {
  it('gives the bytes of JSON.stringify for generated answers with large lists', () => {
    fc.assert(
      fc.property(answer, (value) => {
        expectSameBytes(value);
      }),
      { numRuns: 60 },
    );
  });

  it('writes holes as null, leaves out undefined members and calls toJSON, as JSON.stringify does', () => {
    const list: unknown[] = tiled([{ a: 1 }, [1, 2], 'x'], LARGE_ARRAY_ELEMENTS + 700);
    list[5] = undefined;
    list[600] = () => 1;
    delete list[1200];
    const nested = Object.assign(Object.create(null) as object, { when: new Date(0), list });
    expectSameBytes({ data: { nested, gone: undefined, list, empty: {}, none: [] } });
    // A large list whose items hold large lists themselves.
    expectSameBytes({ data: tiled([{ inner: list }, { inner: [] }], 3) });
    expectSameBytes(tiled([{ inner: list }], LARGE_ARRAY_ELEMENTS));
    // Beside items that hold large lists: undefined, a function and a hole are each written as null.
    const mixed: unknown[] = [{ inner: list }, undefined, () => 1, 'x', { inner: [] }];
    mixed.length = 7;
    expectSameBytes({ data: mixed });
  });

  it('counts bytes, not characters, once a piece is not ASCII', () => {
    const names = ['LEVEL3 – Lumen', 'Ростелеком', '中国电信', '🛰️ orbit'];
    const value = {
      data: {
        asns: tiled(
          names.map((asnName, asn) => ({ asn, asnName })),
          5000,
        ),
        tail: 'é',
      },
    };
    expectSameBytes(value);
    expect(largeJsonBytes(value).length).toBeGreaterThan(JSON.stringify(value).length);
  });
});

describe('holdsLargeArray', () => {
  it('finds a large array below objects and the first items of shorter arrays', () => {
    const large = new Array(LARGE_ARRAY_ELEMENTS).fill(0);
    expect(holdsLargeArray({ data: { stream: { pages: [{ asns: [], prefixes: large }] } } })).toBe(true);
    expect(holdsLargeArray(Object.assign(Object.create(null) as object, { list: large }))).toBe(true);
    expect(holdsLargeArray(large)).toBe(true);
  });

  it('is false for small answers, non-plain objects and arrays shorter than the threshold', () => {
    expect(holdsLargeArray({ data: { asns: new Array(LARGE_ARRAY_ELEMENTS - 1).fill({ asn: '1' }) } })).toBe(
      false,
    );
    expect(holdsLargeArray({ data: { when: new Date(0), n: 1, s: 'x', none: null } })).toBe(false);
    expect(holdsLargeArray({ toJSON: () => new Array(LARGE_ARRAY_ELEMENTS).fill(0) })).toBe(false);
    expect(holdsLargeArray('text')).toBe(false);
    expect(holdsLargeArray(null)).toBe(false);
  });
});
