// An interval of one month (dateStart = dateEnd) lists that month's records, paged as the month's own list is
// (monthOrderOf): the same pages as in the interval's order (the date first), for every month of the sample, sorts with
// and without the date, offsets inside and past the month, on SQLite and PostgreSQL; and for the latest month the very
// statements its list reads without an interval.
import { monthByMonthTuning } from '../src';
import { LOAD_TIMEOUT_MS, withLoadedStore, queryData, STORE_KINDS, type LoadedStore } from './support/store';
import { BuiltStatements, throughPlugin } from './support/statementCounter';

jest.setTimeout(LOAD_TIMEOUT_MS);

type ListPage = Record<string, { totalCount: number; edges: { node: Record<string, unknown> }[] }>;

const LISTS = [
  {
    list: 'asns',
    table: 'asns',
    selection: 'asn asnName date rank seen cone { numberAsns } organization { orgId orgName }',
    sorts: ['asnName', '-cone.numberAsns', 'date,-rank', '-rank,-date', 'source'],
  },
  {
    list: 'organizations',
    table: 'organizations',
    selection: 'orgId orgName date rank asnDegree { total }',
    sorts: ['orgName', '-date,-cone.numberAsns', 'rank'],
  },
  {
    list: 'asnLinks',
    table: 'asn_links',
    selection: 'date relationship numberPaths asn0 { asn } asn1 { asn asnName }',
    sorts: ['-numberPaths', 'relationship,date', 'asn1', 'correctedBy', '-date,-asn0'],
  },
] as const;

describe.each(STORE_KINDS)('an interval of one month on %s', (kind) => {
  let store: LoadedStore;

  withLoadedStore(kind, (opened) => (store = opened), monthByMonthTuning);

  it.each(LISTS)(
    'pages $list as in the interval order, in every month and order',
    async ({ list, table, selection, sorts }) => {
      expect(store.dates.length).toBeGreaterThan(1);
      let compared = 0;
      for (const month of store.dates) {
        const records = store.handle.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('date', '=', month);
        // A link is stored both ways; its canonical row (asn0 < asn1) stands for it.
        const row = await (
          table === 'asn_links' ? records.where('canonical', '=', 1) : records
        ).executeTakeFirstOrThrow();
        const inMonth = Number(row.n);
        for (const sort of [null, 'date', '-date', ...sorts])
          for (const offset of [0, 3, inMonth - 5, inMonth + 2]) {
            const query = `{ ${list}(dateStart: "${month}", dateEnd: "${month}", first: 7, offset: ${offset}${
              sort ? `, sort: "${sort}"` : ''
            }) { totalCount edges { node { ${selection} } } } }`;
            monthByMonthTuning.oneMonthAsMonth = false;
            const intervalOrder = await queryData<ListPage>(store.handle, query);
            monthByMonthTuning.oneMonthAsMonth = true;
            const monthOrder = await queryData<ListPage>(store.handle, query);
            expect([query, monthOrder]).toEqual([query, intervalOrder]);
            expect(monthOrder[list]!.totalCount).toBe(inMonth);
            compared += monthOrder[list]!.edges.length;
          }
      }
      // Most of those pages hold records (the last offset of each is past the month on purpose).
      expect(compared).toBeGreaterThan(store.dates.length * (3 + sorts.length) * 3 * 7 - 60);
    },
  );

  it.each(LISTS)(
    "reads the latest month's $list through the statements of its list without an interval",
    async ({ list, selection, sorts }) => {
      const latest = store.dates.at(-1)!;
      // Every statement built, run or not: the month's compiled pages are built through Kysely, then run apart from it.
      const recorder = new BuiltStatements(store.handle);
      const traced = throughPlugin(store.handle, recorder);
      /** The statements built since the last call, as text and parameters. */
      const ranSince = () =>
        recorder.statements.splice(0).map(({ sql, parameters }) => ({ sql, parameters }));
      const monthSorts = sorts.filter((sort) => !sort.includes('date'));
      for (const sort of [null, ...monthSorts])
        for (const offset of [0, 4]) {
          const page = `first: 6, offset: ${offset}${sort ? `, sort: "${sort}"` : ''}`;
          const latestList = `{ ${list}(${page}) { edges { node { ${selection} } } } }`;
          const oneMonth = `{ ${list}(dateStart: "${latest}", dateEnd: "${latest}", ${page}) { edges { node { ${selection} } } } }`;
          // Once first, so what the month's list finds and keeps (its bookmarks, its totals) is there for both.
          await queryData(traced, latestList);
          ranSince();
          const latestPage = await queryData<ListPage>(traced, latestList);
          const latestStatements = ranSince();
          const monthPage = await queryData<ListPage>(traced, oneMonth);
          expect([oneMonth, monthPage]).toEqual([oneMonth, latestPage]);
          expect([oneMonth, ranSince()]).toEqual([oneMonth, latestStatements]);
        }
    },
  );
});
