// A deep page of ASNs over several months in one numeric sort column starts from every month's bookmarks merged
// (monthsBookmarks.ts). Its pages are the pages of one statement's ORDER BY ... OFFSET over the months, for ascending
// and descending columns full of ties across months, at offsets around and between bookmarks and past the end, on
// SQLite and PostgreSQL. A step of 5 makes the sample's three months cross many bookmarks.
import { graphql } from 'graphql';
import { createContext, createSchema, createStoreFacts, type StoreFacts } from '../src';
import { monthArmsTuning } from '../src/monthArms';
import { monthsBookmarksTuning } from '../src/monthsBookmarks';
import { LOAD_TIMEOUT_MS, openLoadedStore, STORE_KINDS, type LoadedStore } from './support/store';

jest.setTimeout(LOAD_TIMEOUT_MS);

const STEP = 5;
const schema = createSchema();

describe.each(STORE_KINDS)('deep pages over several months from every month’s bookmarks, on %s', (kind) => {
  let store: LoadedStore;
  const defaultArms = { ...monthArmsTuning };
  const defaultBookmarks = { ...monthsBookmarksTuning };

  beforeAll(async () => {
    store = await openLoadedStore(kind);
  }, LOAD_TIMEOUT_MS);
  afterAll(() => store?.close());
  afterEach(() => {
    Object.assign(monthArmsTuning, defaultArms);
    Object.assign(monthsBookmarksTuning, defaultBookmarks);
  });

  const page = async (
    facts: StoreFacts,
    sort: string,
    first: number,
    offset: number,
    fromBookmarks: boolean,
  ) => {
    monthsBookmarksTuning.enabled = fromBookmarks;
    const [dateStart, dateEnd] = [store.dates[0]!, store.dates.at(-1)!];
    const result = await graphql({
      schema,
      source: `{ asns(first: ${first}, offset: ${offset}, sort: "${sort}", dateStart: "${dateStart}",
        dateEnd: "${dateEnd}") { edges { node { asn date cone { numberAsns } asnDegree { total } } } } }`,
      contextValue: createContext(store.handle, { facts }),
    });
    if (result.errors?.length) throw new Error(result.errors.map((error) => error.message).join('; '));
    return (result.data as { asns: { edges: unknown[] } }).asns.edges;
  };

  it('answers every deep page as one statement over the months does', async () => {
    expect(store.dates.length).toBeGreaterThan(1);
    // Pages only ever as arms or from the bookmarks: never arms here.
    monthArmsTuning.maxArmRows = 0;
    const facts = createStoreFacts(store.handle, undefined, {
      step: STEP,
      linkStep: STEP,
      waitedHops: Number.MAX_SAFE_INTEGER,
    });
    const [{ total }] = (await store.handle.db
      .selectFrom('asns')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('date', 'in', store.dates)
      .execute()) as [{ total: number | string }];
    const records = Number(total);
    expect(records).toBeGreaterThan(100 * STEP);
    const offsets = [STEP * store.dates.length, 17, 18, 19, 20, 57, 133, 134];
    for (let offset = 0; offset < records + 10; offset += Math.floor(records / 23)) offsets.push(offset);
    offsets.push(records - 1, records, records + 4);
    let compared = 0;
    for (const sort of [
      '-cone.numberAsns',
      'asnDegree.total',
      '-asnDegree.customer',
      'cone.numberPrefixes',
      'asn',
      '-asn',
    ])
      for (const offset of offsets)
        for (const first of [1, 3, 2 * STEP + 1]) {
          const expected = await page(facts, sort, first, offset, false);
          const fromBookmarks = await page(facts, sort, first, offset, true);
          expect({ sort, offset, first, page: fromBookmarks }).toEqual({
            sort,
            offset,
            first,
            page: expected,
          });
          compared += expected.length;
        }
    expect(compared).toBeGreaterThan(6 * 3 * 20);
    // The deep pages did read every month's bookmarks: each month's whole order, for each of the six sorts.
    expect(facts.pageBookmarks.count()).toBeGreaterThan(
      6 * (Math.floor(records / STEP) - 2 * store.dates.length),
    );
  });
});
