import fc from 'fast-check';
import {
  ArgumentError,
  formatConeStreamCursor,
  paginateConeStream,
  parseConeStreamCursor,
  type ConeStreamCursor,
  type ConeStreamPage,
  type ConeStreamSource,
} from '../src';

interface TestCone {
  name: string;
  asns: string[];
  prefixes: string[];
}

/** A cone with `asnCount` member ASNs named a<cone>.<i> and `prefixCount` prefixes named p<cone>.<j>. */
function makeCones(shape: readonly (readonly [number, number])[]): TestCone[] {
  return shape.map(([asnCount, prefixCount], cone) => ({
    name: `c${cone}`,
    asns: Array.from({ length: asnCount }, (_, index) => `a${cone}.${index}`),
    prefixes: Array.from({ length: prefixCount }, (_, index) => `p${cone}.${index}`),
  }));
}

async function* fromArray<T>(values: readonly T[], fromIndex: number): AsyncGenerator<T> {
  for (let index = fromIndex; index < values.length; index += 1) yield values[index] as T;
}

/** In-memory source that counts how many values the paginator pulled and whether it closed what it opened. */
function arraySource(cones: readonly TestCone[]) {
  const stats = { pulled: 0, opened: 0, closed: 0 };
  async function* tracked<T>(values: readonly T[], fromIndex: number): AsyncGenerator<T> {
    stats.opened += 1;
    try {
      for await (const value of fromArray(values, fromIndex)) {
        stats.pulled += 1;
        yield value;
      }
    } finally {
      stats.closed += 1;
    }
  }
  const source: ConeStreamSource<TestCone, string, string> = {
    cones: (fromIndex) => tracked(cones, fromIndex),
    asns: (cone, fromIndex) => tracked(cone.asns, fromIndex),
    prefixes: (cone, fromIndex) => tracked(cone.prefixes, fromIndex),
  };
  return { source, stats };
}

/** The whole depth-first walk as events: each ASN, each prefix, and an "empty" marker for a cone with neither. */
function fullWalk(cones: readonly TestCone[]): string[] {
  return cones.flatMap((cone) =>
    cone.asns.length + cone.prefixes.length === 0 ? [`empty:${cone.name}`] : [...cone.asns, ...cone.prefixes],
  );
}

/** Canonical cursor of each event of fullWalk, in the same order. */
function walkCursors(cones: readonly TestCone[]): ConeStreamCursor[] {
  return cones.flatMap((cone, index): ConeStreamCursor[] => {
    if (cone.asns.length + cone.prefixes.length === 0)
      return [{ cone: index, asnIndex: 0, prefixIndex: null }];
    return [
      ...cone.asns.map((_, asnIndex): ConeStreamCursor => ({
        cone: index,
        asnIndex: asnIndex,
        prefixIndex: null,
      })),
      ...cone.prefixes.map((_, prefixIndex): ConeStreamCursor =>
        cone.asns.length === 0 && prefixIndex === 0
          ? { cone: index, asnIndex: 0, prefixIndex: null }
          : { cone: index, asnIndex: null, prefixIndex },
      ),
    ];
  });
}

function pageEvents(page: ConeStreamPage<TestCone, string, string>): string[] {
  return page.items.flatMap((item) =>
    item.asns.length + item.prefixes.length === 0
      ? [`empty:${item.cone.name}`]
      : [...item.asns, ...item.prefixes],
  );
}

async function walkAllPages(
  source: ConeStreamSource<TestCone, string, string>,
  budget: number,
  cursor: string | null = null,
) {
  const pages: ConeStreamPage<TestCone, string, string>[] = [];
  for (;;) {
    const page = await paginateConeStream(source, cursor, budget);
    pages.push(page);
    if (!page.hasNextPage) return pages;
    cursor = page.nextPageCursor;
    if (pages.length > 10000) throw new Error('the walk does not end');
  }
}

describe('cone stream cursors', () => {
  it('parse and format the three-position form', () => {
    expect(parseConeStreamCursor('3,17,')).toEqual({ cone: 3, asnIndex: 17, prefixIndex: null });
    expect(parseConeStreamCursor('3,,42')).toEqual({ cone: 3, asnIndex: null, prefixIndex: 42 });
    expect(formatConeStreamCursor({ cone: 3, asnIndex: null, prefixIndex: 42 })).toBe('3,,42');
    expect(formatConeStreamCursor({ cone: 0, asnIndex: 0, prefixIndex: null })).toBe('0,0,');
  });

  it('treat an empty cursor as the start', () => {
    for (const empty of [undefined, null, '', '  '])
      expect(parseConeStreamCursor(empty)).toEqual({ cone: 0, asnIndex: 0, prefixIndex: null });
  });

  it.each([
    '1,2,3',
    '1,,',
    ',,',
    ',0,',
    '1,2',
    'a,b,c',
    '-1,0,',
    '1,0,,',
    '1.5,0,',
    '0,0,x',
    '9999999999999999,0,',
  ])('reject %j naming pageCursor and the accepted forms', (cursor) => {
    let caught: unknown;
    try {
      parseConeStreamCursor(cursor);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ArgumentError);
    expect((caught as ArgumentError).argument).toBe('pageCursor');
    expect((caught as ArgumentError).message).toContain('cone,asnIndex,');
  });
});

describe('paginateConeStream', () => {
  // Cone 0: 3 ASNs + 2 prefixes; cone 1: 2 ASNs, no prefixes; cone 2: empty; cone 3: no ASNs, 2 prefixes.
  const cones = makeCones([
    [3, 2],
    [2, 0],
    [0, 0],
    [0, 2],
  ]);

  it('walks cone, its ASNs, then its prefixes, and marks every boundary with a canonical cursor', async () => {
    const { source } = arraySource(cones);
    const pages = await walkAllPages(source, 3);
    expect(pages.map((page) => [page.pageCursor, page.nextPageCursor, page.hasNextPage])).toEqual([
      ['0,0,', '0,,0', true], // page fills exactly at the end of cone 0's ASNs
      ['0,,0', '1,1,', true], // cone 0's prefixes, then cone 1's first ASN
      ['1,1,', '3,,1', true], // cone 1's last ASN (no prefixes), empty cone 2 costs one, cone 3's first prefix
      ['3,,1', '4,0,', false], // cone 3's last prefix; the end position
    ]);
    expect(pages.map((page) => page.items.map((item) => [item.coneIndex, item.asns, item.prefixes]))).toEqual(
      [
        [[0, ['a0.0', 'a0.1', 'a0.2'], []]],
        [
          [0, [], ['p0.0', 'p0.1']],
          [1, ['a1.0'], []],
        ],
        [
          [1, ['a1.1'], []],
          [2, [], []],
          [3, [], ['p3.0']],
        ],
        [[3, [], ['p3.1']]],
      ],
    );
  });

  it('moves one item at a time with a budget of 1', async () => {
    const { source } = arraySource(cones);
    const pages = await walkAllPages(source, 1);
    expect(pages.map((page) => page.pageCursor)).toEqual([
      '0,0,',
      '0,1,',
      '0,2,',
      '0,,0',
      '0,,1',
      '1,0,',
      '1,1,',
      '2,0,',
      '3,0,',
      '3,,1',
    ]);
    expect(pages.every((page) => page.items.length === 1)).toBe(true);
    expect(pages[pages.length - 1]).toMatchObject({ nextPageCursor: '4,0,', hasNextPage: false });
  });

  it('returns everything on one page when the budget allows, with hasNextPage false', async () => {
    const { source } = arraySource(cones);
    const page = await paginateConeStream(source, '', 100);
    expect(pageEvents(page)).toEqual(fullWalk(cones));
    expect(page).toMatchObject({ pageCursor: '0,0,', nextPageCursor: '4,0,', hasNextPage: false });
  });

  it('says hasNextPage false when the page ends exactly at the last item', async () => {
    const { source } = arraySource(makeCones([[2, 1]]));
    await expect(paginateConeStream(source, null, 3)).resolves.toMatchObject({
      hasNextPage: false,
      nextPageCursor: '1,0,',
    });
    await expect(paginateConeStream(source, null, 2)).resolves.toMatchObject({
      hasNextPage: true,
      nextPageCursor: '0,,0',
    });
  });

  it('gives an empty final page from the end position, and for an empty stream', async () => {
    const { source } = arraySource(cones);
    await expect(paginateConeStream(source, '4,0,', 5)).resolves.toEqual({
      items: [],
      pageCursor: '4,0,',
      nextPageCursor: '4,0,',
      hasNextPage: false,
    });
    const empty = arraySource([]);
    await expect(paginateConeStream(empty.source, null, 5)).resolves.toEqual({
      items: [],
      pageCursor: '0,0,',
      nextPageCursor: '0,0,',
      hasNextPage: false,
    });
  });

  it('accepts c,,0 on a cone without prefixes and moves on', async () => {
    const { source } = arraySource(cones);
    const page = await paginateConeStream(source, '1,,0', 1);
    expect(page.items.map((item) => item.coneIndex)).toEqual([2]);
    expect(page.nextPageCursor).toBe('3,0,');
  });

  it.each([
    ['0,3,', /past the last ASN of cone 0/],
    ['1,7,', /past the last ASN of cone 1/],
    ['0,,2', /past the last prefix of cone 0/],
    ['3,,5', /past the last prefix of cone 3/],
    ['5,0,', /beyond the end of the stream/],
    ['4,,0', /beyond the end of the stream/],
    ['4,1,', /beyond the end of the stream/],
  ])('rejects the out-of-range cursor %s', async (cursor, message) => {
    const { source } = arraySource(cones);
    const result = paginateConeStream(source, cursor, 10);
    await expect(result).rejects.toBeInstanceOf(ArgumentError);
    await expect(result).rejects.toThrow(message);
  });

  it.each([0, -1, 1.5, 10001, Number.NaN])('rejects the budget %p', async (budget) => {
    const { source } = arraySource(cones);
    await expect(paginateConeStream(source, null, budget)).rejects.toThrow(
      /budget must be a whole number from 1 to 10000/,
    );
  });

  it('streams: pulls at most one item past the page and closes every iterator it opened', async () => {
    let conesPulled = 0;
    let closed = false;
    const endless: ConeStreamSource<number, string, string> = {
      async *cones(fromIndex) {
        try {
          for (let index = fromIndex; ; index += 1) {
            conesPulled += 1;
            yield index;
          }
        } finally {
          closed = true;
        }
      },
      asns: (cone, fromIndex) => fromArray([`a${cone}.0`, `a${cone}.1`], fromIndex),
      prefixes: (cone, fromIndex) => fromArray([`p${cone}.0`], fromIndex),
    };
    const page = await paginateConeStream(endless, '1000,,0', 7);
    expect(page.items.map((item) => item.cone)).toEqual([1000, 1001, 1002]);
    // Cone 1000 from its first prefix (1 item), cones 1001 and 1002 whole (3 each): the page is full, and the
    // paginator peeked at cone 1003 only to know it exists.
    expect(page.nextPageCursor).toBe('1003,0,');
    expect(conesPulled).toBe(4);
    expect(closed).toBe(true);

    const tracked = arraySource(
      makeCones([
        [50, 50],
        [50, 50],
      ]),
    );
    await paginateConeStream(tracked.source, '0,10,', 5);
    expect(tracked.stats.pulled).toBeLessThanOrEqual(1 + 5 + 1);
    expect(tracked.stats.closed).toBe(tracked.stats.opened);
  });
});

describe('paginateConeStream properties', () => {
  const shapeArbitrary = fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 })), {
    maxLength: 8,
  });

  it('the concatenation of all pages is the full depth-first walk, each page but the last exactly full', async () => {
    await fc.assert(
      fc.asyncProperty(shapeArbitrary, fc.integer({ min: 1, max: 12 }), async (shape, budget) => {
        const cones = makeCones(shape);
        const { source, stats } = arraySource(cones);
        const pages = await walkAllPages(source, budget);
        expect(pages.flatMap(pageEvents)).toEqual(fullWalk(cones));
        pages.slice(0, -1).forEach((page) => expect(pageEvents(page)).toHaveLength(budget));
        expect(
          pageEvents(pages[pages.length - 1] as ConeStreamPage<TestCone, string, string>).length,
        ).toBeLessThanOrEqual(budget);
        pages.slice(1).forEach((page, index) => expect(page.pageCursor).toBe(pages[index]?.nextPageCursor));
        expect(stats.closed).toBe(stats.opened);
      }),
    );
  });

  it('resuming from any position of the walk, with any budget, gives exactly the rest of the walk', async () => {
    await fc.assert(
      fc.asyncProperty(shapeArbitrary, fc.integer({ min: 1, max: 12 }), async (shape, budget) => {
        const cones = makeCones(shape);
        const { source } = arraySource(cones);
        const walk = fullWalk(cones);
        const cursors = walkCursors(cones);
        for (let position = 0; position < walk.length; position += 1) {
          const cursor = formatConeStreamCursor(cursors[position] as ConeStreamCursor);
          const pages = await walkAllPages(source, budget, cursor);
          expect(pages[0]?.pageCursor).toBe(cursor);
          expect(pages.flatMap(pageEvents)).toEqual(walk.slice(position));
        }
      }),
      { numRuns: 60 },
    );
  });

  it('every nextPageCursor is the canonical cursor of the first item of the next page', async () => {
    await fc.assert(
      fc.asyncProperty(shapeArbitrary, fc.integer({ min: 1, max: 5 }), async (shape, budget) => {
        const cones = makeCones(shape);
        const { source } = arraySource(cones);
        const walk = fullWalk(cones);
        const cursors = walkCursors(cones).map(formatConeStreamCursor);
        let consumed = 0;
        for (const page of await walkAllPages(source, budget)) {
          consumed += pageEvents(page).length;
          if (page.hasNextPage) expect(page.nextPageCursor).toBe(cursors[consumed]);
          else expect(consumed).toBe(walk.length);
        }
      }),
    );
  });
});

describe('paginateConeStream with the batch forms (asnSlice / prefixSlice)', () => {
  /** The same cones as arraySource, answered by slices; records every count asked for. */
  function sliceSource(cones: readonly TestCone[]) {
    const asked: { remainingPlusOne: number }[] = [];
    const { source } = arraySource(cones);
    const sliced: ConeStreamSource<TestCone, string, string> = {
      ...source,
      // Iterators must not be used when slices are given: make them fail loudly.
      asns: () => {
        throw new Error('asns iterator used');
      },
      prefixes: () => {
        throw new Error('prefixes iterator used');
      },
      asnSlice: async (cone, fromIndex, count) => {
        asked.push({ remainingPlusOne: count });
        return cone.asns.slice(fromIndex, fromIndex + count);
      },
      prefixSlice: async (cone, fromIndex, count) => {
        asked.push({ remainingPlusOne: count });
        return cone.prefixes.slice(fromIndex, fromIndex + count);
      },
    };
    return { source: sliced, asked };
  }

  const shapeArbitrary = fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 })), {
    maxLength: 8,
  });

  it('gives exactly the pages of the iterators, from every position and with any budget', async () => {
    await fc.assert(
      fc.asyncProperty(shapeArbitrary, fc.integer({ min: 1, max: 12 }), async (shape, budget) => {
        const cones = makeCones(shape);
        const iterated = arraySource(cones).source;
        const { source: sliced, asked } = sliceSource(cones);
        const cursors = [null, ...walkCursors(cones).map(formatConeStreamCursor)];
        for (const cursor of cursors) {
          expect(await walkAllPages(sliced, budget, cursor)).toEqual(
            await walkAllPages(iterated, budget, cursor),
          );
        }
        // Never more than one item past the page.
        for (const { remainingPlusOne } of asked) expect(remainingPlusOne).toBeLessThanOrEqual(budget + 1);
      }),
      { numRuns: 60 },
    );
  });

  it.each([
    ['0,3,', /past the last ASN of cone 0/],
    ['0,,2', /past the last prefix of cone 0/],
    ['5,0,', /beyond the end of the stream/],
  ])('rejects the out-of-range cursor %s as the iterators do', async (cursor, message) => {
    const { source } = sliceSource(
      makeCones([
        [3, 2],
        [2, 0],
        [0, 0],
        [0, 2],
      ]),
    );
    await expect(paginateConeStream(source, cursor, 10)).rejects.toThrow(message);
  });
});
