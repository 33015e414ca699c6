// Deep pages of ASNs and organizations from bookmarks: over several months in one sort column or by the key, from
// every month's bookmarks merged (monthsBookmarks.ts); over one month by an organization's text key or a name too.
// Their pages are the pages of one statement's ORDER BY ... OFFSET, for ascending and descending columns full of ties
// across months, at offsets around and between bookmarks and past the end, on SQLite and PostgreSQL. A step of 5
// makes the sample's three months cross many bookmarks.
import { graphql } from 'graphql';
import { createContext, createSchema, createStoreFacts, type StoreFacts } from '../src';
import { monthArmsTuning } from '../src/monthArms';
import {
  compareByteOrder,
  monthsBookmarkStart,
  monthsBookmarksTuning,
  placeInMonths,
  plannedEachCall,
  type Known,
  type MonthSeekRange,
} from '../src/monthsBookmarks';
import { PageBookmarks, pageBookmarksTuning } from '../src/pageBookmarks';
import { LOAD_TIMEOUT_MS, withLoadedStore, STORE_KINDS, type LoadedStore } from './support/store';

jest.setTimeout(LOAD_TIMEOUT_MS);

const STEP = 5;
const schema = createSchema();

const LISTS = {
  asns: {
    table: 'asns',
    selection: 'asn date asnName cone { numberAsns } asnDegree { total }',
    sorts: [
      '-cone.numberAsns',
      'asnDegree.total',
      '-asnDegree.customer',
      'asn',
      '-asn',
      'asnName',
      '-asnName',
      'rank',
      '-source',
    ],
  },
  organizations: {
    table: 'organizations',
    selection: 'orgId orgName date asnDegree { total } cone { numberAsns }',
    sorts: [
      '-cone.numberAsns',
      'asnDegree.total',
      'orgId',
      '-orgId',
      'orgName',
      '-orgName',
      'rank',
      '-rank',
      null,
    ],
  },
} as const;

describe.each(STORE_KINDS)('deep pages of ASNs and organizations from bookmarks, on %s', (kind) => {
  let store: LoadedStore;

  withLoadedStore(
    kind,
    (opened) => (store = opened),
    monthArmsTuning,
    pageBookmarksTuning,
    monthsBookmarksTuning,
  );

  const page = async (
    facts: StoreFacts,
    list: keyof typeof LISTS,
    sort: string | null,
    months: readonly string[],
    first: number,
    offset: number,
    seen?: boolean,
  ) => {
    const range = months.length > 1 ? `, dateStart: "${months[0]}", dateEnd: "${months.at(-1)}"` : '';
    const sorted = sort === null ? '' : `, sort: "${sort}"`;
    const filter = seen === undefined ? '' : `, seen: ${seen}`;
    const result = await graphql({
      schema,
      source: `{ ${list}(first: ${first}, offset: ${offset}${sorted}${range}${filter}) {
        edges { node { ${LISTS[list].selection} } } } }`,
      contextValue: createContext(store.handle, { facts }),
    });
    if (result.errors?.length) throw new Error(result.errors.map((error) => error.message).join('; '));
    return (result.data as Record<string, { edges: unknown[] }>)[list]!.edges;
  };

  /**
   * Every page `read` gives of `sorts` from bookmarks against the same page with none (a step no page reaches), at
   * offsets around and between bookmarks over `records` records and past them; the bookmarks read.
   */
  const compareDeepPages = async (
    read: (facts: StoreFacts, sort: string | null, first: number, offset: number) => Promise<unknown[]>,
    sorts: readonly (string | null)[],
    records: number,
    months: number,
  ) => {
    // Pages only ever from one statement or from the bookmarks: never as month arms.
    monthArmsTuning.enabled = false;
    const waiting = { step: STEP, linkStep: STEP, waitedHops: Number.MAX_SAFE_INTEGER };
    const facts = createStoreFacts(store.handle, undefined, waiting);
    const plain = createStoreFacts(store.handle, undefined, { ...waiting, step: 1e9, linkStep: 1e9 });
    expect(records).toBeGreaterThan(30 * STEP);
    const offsets = [STEP * months, 16, 17, 18, 19, 20, 57, 61, 133, 134];
    for (let offset = 0; offset < records + 10; offset += Math.floor(records / 23)) offsets.push(offset);
    offsets.push(records - 1, records, records + 4);
    let compared = 0;
    for (const sort of sorts)
      for (const offset of offsets)
        for (const first of [1, 3, 2 * STEP + 1]) {
          const expected = await read(plain, sort, first, offset);
          const fromBookmarks = await read(facts, sort, first, offset);
          expect({ sort, offset, first, page: fromBookmarks }).toEqual({
            sort,
            offset,
            first,
            page: expected,
          });
          compared += expected.length;
        }
    expect(compared).toBeGreaterThan(sorts.length * 3 * 15);
    expect(plain.pageBookmarks.count()).toBe(0);
    return facts.pageBookmarks.count();
  };

  /** The records of `list` over `months`, and every deep page of its sorts compared (compareDeepPages). */
  const compareListPages = async (list: keyof typeof LISTS, months: readonly string[], seen?: boolean) => {
    let counted = store.handle.db
      .selectFrom(LISTS[list].table)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('date', 'in', months);
    if (seen !== undefined) counted = counted.where('seen', '=', seen ? 1 : 0);
    const [{ total }] = (await counted.execute()) as [{ total: number | string }];
    const records = Number(total);
    const read = (facts: StoreFacts, sort: string | null, first: number, offset: number) =>
      page(facts, list, sort, months, first, offset, seen);
    return { records, bookmarks: await compareDeepPages(read, LISTS[list].sorts, records, months.length) };
  };

  it.each(['asns', 'organizations'] as const)(
    'answers every deep page of %s over several months as one statement over the months does',
    async (list) => {
      expect(store.dates.length).toBeGreaterThan(1);
      const { records, bookmarks } = await compareListPages(list, store.dates);
      // The deep pages did read every month's bookmarks: each month's whole order, for each sort they serve whole
      // (not nullable columns, whose records with a value alone they serve, nor the default order, which starts with
      // the month).
      const served = list === 'asns' ? LISTS.asns.sorts.length - 2 : LISTS.organizations.sorts.length - 3;
      expect(bookmarks).toBeGreaterThan(served * (Math.floor(records / STEP) - 2 * store.dates.length));
    },
  );

  it.each(['asns', 'organizations'] as const)(
    'answers every deep page of seen %s, over several months and in one month, as one statement does',
    async (list) => {
      for (const months of [store.dates, [store.dates.at(-1)!]]) {
        const { records, bookmarks } = await compareListPages(list, months, true);
        // From bookmarks of the seen records' own (before, none: a `seen` filter kept every page on one statement).
        expect([months.length, bookmarks > 3 * (Math.floor(records / STEP) - 2 * months.length)]).toEqual([
          months.length,
          true,
        ]);
      }
    },
  );

  it("answers every deep page of one month's organizations, by their text key or name too, as the offset does", async () => {
    const { records, bookmarks } = await compareListPages('organizations', [store.dates.at(-1)!]);
    // Each sort column holds a month's worth of bookmarks, and the ranked and unranked ranges (rank, the default order)
    // one between them; a month's pages by the key alone keep the plain OFFSET.
    expect(bookmarks).toBeGreaterThan(5 * (Math.floor(records / STEP) - 3));
  });

  // On SQLite bookmarks by descending ASN come from hops or from each AS's count of links (findFromValueCounts).
  const bookmarkSources: [string, number][] = [['hops', Number.MAX_SAFE_INTEGER]];
  if (kind === 'sqlite') bookmarkSources.push(["each AS's count of links", 0]);
  it.each(bookmarkSources)(
    'answers every deep page of links over several months as one statement over the months does (bookmarks by descending ASN from %s)',
    async (_from, countedMinHops) => {
      pageBookmarksTuning.countedMinHops = countedMinHops;
      const [dateStart, dateEnd] = [store.dates[0]!, store.dates.at(-1)!];
      const links = async (facts: StoreFacts, sort: string | null, first: number, offset: number) => {
        const result = await graphql({
          schema,
          source: `{ asnLinks(first: ${first}, offset: ${offset}, sort: "${sort}", dateStart: "${dateStart}",
          dateEnd: "${dateEnd}") { totalCount edges { node { asn0 { asn } asn1 { asn } date relationship } } } }`,
          contextValue: createContext(store.handle, { facts }),
        });
        if (result.errors?.length) throw new Error(result.errors.map((error) => error.message).join('; '));
        return (result.data as { asnLinks: { totalCount: number; edges: unknown[] } }).asnLinks;
      };
      const { totalCount } = await links(createStoreFacts(store.handle), 'asn0', 1, 0);
      const sorts = ['asn0', 'asn1', 'relationship', '-asn1', '-asn0', '-relationship'];
      const read = async (facts: StoreFacts, sort: string | null, first: number, offset: number) =>
        (await links(facts, sort, first, offset)).edges;
      const bookmarks = await compareDeepPages(read, sorts, totalCount, store.dates.length);
      // asn0 and asn1 (the reversed rows) each read every month's bookmarks, and `-asn0` and `-asn1` too; the
      // relationship orders none (they walk their blocks).
      expect(bookmarks).toBeGreaterThan(4 * (Math.floor(totalCount / STEP) - 2 * store.dates.length));
    },
  );

  it('pages ASNs over several months by a nullable column, its records with a value then the others, as stored', async () => {
    monthArmsTuning.enabled = false;
    const facts = createStoreFacts(store.handle, undefined, {
      step: STEP,
      linkStep: STEP,
      waitedHops: Number.MAX_SAFE_INTEGER,
    });
    const stored = await store.handle.db
      .selectFrom('asns')
      .select(['date', 'asn', 'rank', 'source'])
      .where('date', 'in', store.dates)
      .execute();
    // Unranked ASNs in every month of the sample (its sources are all set: `source` is the text case).
    expect(stored.filter((row) => row.rank === null).length).toBeGreaterThan(3 * STEP);
    let compared = 0;
    for (const [sort, column] of [
      ['rank', 'rank'],
      ['-rank', 'rank'],
      ['source', 'source'],
      ['-source', 'source'],
    ] as const) {
      const descending = sort.startsWith('-') ? -1 : 1;
      const valueOrder = (a: unknown, b: unknown) =>
        typeof a === 'string' ? compareByteOrder(a, b as string) : Number(a) - Number(b);
      // Nulls last in both directions, then the month, then the ASN.
      const expected = [...stored]
        .sort(
          (a, b) =>
            (a[column] === null ? 1 : 0) - (b[column] === null ? 1 : 0) ||
            (a[column] !== null && b[column] !== null ? descending * valueOrder(a[column], b[column]) : 0) ||
            (a.date < b.date ? -1 : a.date > b.date ? 1 : 0) ||
            Number(a.asn) - Number(b.asn),
        )
        .map((row) => `${row.date} ${row.asn}`);
      const valued = stored.filter((row) => row[column] !== null).length;
      for (const offset of [0, 16, 97, valued - 3, valued, valued + 2, stored.length - 2])
        for (const first of [1, 5, 2 * STEP + 1]) {
          const edges = (await page(facts, 'asns', sort, store.dates, first, offset)) as {
            node: { asn: string; date: string };
          }[];
          const got = edges.map(({ node }) => `${node.date} ${node.asn}`);
          expect({ sort, offset, first, got }).toEqual({
            sort,
            offset,
            first,
            got: expected.slice(offset, offset + first),
          });
          compared += got.length;
        }
    }
    expect(compared).toBeGreaterThan(4 * 7 * 5);
  });

  it("starts a deep page in a tie from the threshold month's later bookmarks of its value, nearer the page", async () => {
    // ASNs over every month by descending cone: most of each month ties at the smallest cones, and the months' order
    // keeps each month's ties together, so a page deep in them lies in one month's bookmarks of one value.
    const months = [...store.dates].sort();
    const bookmarks = new PageBookmarks({ step: STEP, waitedHops: Number.MAX_SAFE_INTEGER });
    const ranges: MonthSeekRange[] = months.map((month) => ({
      month,
      range: {
        db: store.handle.db,
        dialect: store.handle.dialect,
        range: store.handle.db.selectFrom('asns').where('date', '=', month),
        keyColumns: ['asn'],
        term: { column: 'cone_asns', direction: 'desc' },
        bookmarks,
        step: STEP,
        scope: `ties\u0000${month}`,
      },
    }));
    const [{ total, tied }] = (await store.handle.db
      .selectFrom('asns')
      .select((eb) => [
        eb.fn.countAll<number>().as('total'),
        eb.fn.sum<number>(eb.case().when('cone_asns', '=', 1).then(1).else(0).end()).as('tied'),
      ])
      .where('date', 'in', months)
      .execute()) as [{ total: number | string; tied: number | string }];
    const firstTied = Number(total) - Number(tied);
    expect(Number(tied)).toBeGreaterThan(20 * STEP * months.length);
    const skips: { offset: number; before: number; after: number }[] = [];
    const count = plannedEachCall(store.handle.db);
    for (let offset = firstTied + 2 * STEP; offset < Number(total) - 20; offset += 7) {
      monthsBookmarksTuning.withinTies = false;
      const before = await monthsBookmarkStart(count, ranges, offset, 10);
      monthsBookmarksTuning.withinTies = true;
      const after = await monthsBookmarkStart(count, ranges, offset, 10);
      expect(after).not.toBeNull();
      skips.push({ offset, before: before!.skip, after: after!.skip });
    }
    // Never further from the page, and within a step of it wherever the threshold's month goes on in the tie.
    expect(skips.filter(({ before, after }) => after > before)).toEqual([]);
    expect(skips.filter(({ before, after }) => after < before).length).toBeGreaterThan(skips.length / 2);
    expect(skips.filter(({ after }) => after < STEP).length).toBeGreaterThan(skips.length / 2);
    // The pages read from either start are the same (the other tests compare every deep page with one statement's).
  });

  it('compares text in byte order, as both dialects do', () => {
    // U+FF5E (a unit past the surrogates) against U+1F600 (a surrogate pair): JavaScript's `<` says the other way.
    expect(['\u{1F600}', 'b', '\uFF5E', 'a', 'ab', ''].sort(compareByteOrder)).toEqual([
      '',
      'a',
      'ab',
      'b',
      '\uFF5E',
      '\u{1F600}',
    ]);
    expect('\u{1F600}' < '\uFF5E').toBe(true);
  });
});

describe("a page's place among the months' bookmarks", () => {
  // Random months of bookmarks, against the bounds each bookmark's counts give, counted bookmark by bookmark: the
  // threshold is the furthest bookmark whose most records not after it fit the offset, the end the earliest with at
  // least the offset and the page not after it.
  const step = 4;
  let seed = 7;
  const random = () => {
    // A small linear congruential generator: the same months at every run.
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const below = (n: number) => Math.floor(random() * n);

  type Point = { monthIndex: number; index: number; value: number | string; key: number };
  const compareValue = (a: number | string, b: number | string) =>
    typeof a === 'string' ? compareByteOrder(a, b as string) : a - (b as number);

  it.each([
    ['numbers ascending', 'asc', false],
    ['numbers descending', 'desc', false],
    ['text ascending', 'asc', true],
    ['text descending', 'desc', true],
  ] as const)('as the bounds say, for %s', (_label, direction, text) => {
    const order = (a: Point, b: Point) => {
      const byValue = compareValue(a.value, b.value);
      if (byValue !== 0) return direction === 'desc' ? -byValue : byValue;
      return a.monthIndex - b.monthIndex || a.key - b.key;
    };
    let compared = 0;
    let thresholds = 0;
    for (let trial = 0; trial < 300; trial += 1) {
      const monthCount = 1 + below(5);
      const months: Known[] = [];
      const points: Point[][] = [];
      for (let monthIndex = 0; monthIndex < monthCount; monthIndex += 1) {
        // Few values, so ties run across bookmarks and months; some months much longer than others.
        const records = Array.from({ length: below(random() < 0.3 ? 200 : 40) }, (_, key) => {
          const drawn = below(1 + below(12));
          return { monthIndex, index: 0, key, value: text ? String.fromCharCode(97 + drawn) : drawn };
        }).sort(order);
        const bookmarked = records.filter((_, position) => position % step === step - 1);
        // Some months are known only part of the way.
        const known = random() < 0.3 ? bookmarked.slice(0, below(bookmarked.length + 1)) : bookmarked;
        known.forEach((point, index) => (point.index = index));
        points.push(known);
        months.push({
          bookmarks: known.map(({ value, key }) => ({ value, key: [key] })),
          complete: known.length === bookmarked.length,
        });
      }
      const all = points.flat();
      const bounds = (point: Point) => {
        let least = (point.index + 1) * step;
        let most = least;
        points.forEach((other, otherIndex) => {
          if (otherIndex === point.monthIndex) return;
          const notAfter = other.filter((candidate) => order(candidate, point) <= 0).length;
          least += notAfter * step;
          most +=
            notAfter === other.length && !months[otherIndex]!.complete
              ? Number.POSITIVE_INFINITY
              : (notAfter + 1) * step - 1;
        });
        return { least, most };
      };
      for (let ask = 0; ask < 6; ask += 1) {
        const offset = below((all.length + 3) * step);
        const limit = 1 + below(3 * step);
        const fits = all.filter((point) => bounds(point).most <= offset).sort(order);
        const reaches = all.filter((point) => bounds(point).least >= offset + limit).sort(order);
        const expected = { threshold: fits.at(-1) ?? null, end: reaches[0] ?? null };
        const placed = placeInMonths({ column: 'value', direction }, step, months, offset, limit);
        const where = (point: { monthIndex: number; index: number } | null) =>
          point && { monthIndex: point.monthIndex, index: point.index };
        expect({ threshold: where(placed.threshold), end: where(placed.end) }).toEqual({
          threshold: where(expected.threshold),
          end: where(expected.end),
        });
        compared += 1;
        if (expected.threshold) thresholds += 1;
      }
    }
    // The draws reach both outcomes: pages placed after a threshold, and pages too near the start for one.
    expect(compared).toBe(1800);
    expect(thresholds).toBeGreaterThan(600);
    expect(thresholds).toBeLessThan(1700);
  });
});
