// ASNs and organizations over several months in an order that starts with the month are read month by month (the
// months before a page skipped by their totals); the pages are the same as one statement's ORDER BY ... OFFSET over
// the months, for pages inside a month, across a month's end and past the last one, with and without `seen`, on
// SQLite and PostgreSQL.
import { monthByMonthTuning } from '../src';
import { LOAD_TIMEOUT_MS, withLoadedStore, queryData, STORE_KINDS, type LoadedStore } from './support/store';

jest.setTimeout(LOAD_TIMEOUT_MS);

type ListPage = Record<string, { totalCount: number; edges: { node: Record<string, unknown> }[] }>;

describe.each(STORE_KINDS)('organizations month by month on %s', (kind) => {
  let store: LoadedStore;

  withLoadedStore(kind, (opened) => (store = opened), monthByMonthTuning);

  it.each([
    ['organizations', 'organizations', 'orgId orgName date rank seen asnDegree { total }', ['-date,orgName']],
    [
      'asns',
      'asns',
      'asn asnName date rank seen cone { numberAsns } organization { orgId orgName }',
      ['-date,asnName', 'date,-cone.numberAsns'],
    ],
  ] as const)(
    'pages %s as one statement over the months does, in orders that start with the month',
    async (list, table, selection, sorts) => {
      const months = store.dates;
      expect(months.length).toBeGreaterThan(1);
      const perMonth: number[] = [];
      for (const month of months) {
        const row = await store.handle.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('date', '=', month)
          .executeTakeFirstOrThrow();
        perMonth.push(Number(row.n));
      }
      const total = perMonth.reduce((sum, n) => sum + n, 0);
      const [first, last] = [perMonth[0]!, perMonth.at(-1)!];
      const offsets = [0, 2, first - 5, first, last - 3, total - 4, total + 3];
      const interval = `dateStart: "${months[0]}", dateEnd: "${months.at(-1)}"`;
      let compared = 0;
      for (const sort of [null, 'date', '-date', 'date,-asnDegree.total', ...sorts])
        for (const seen of ['', ', seen: true'])
          for (const offset of offsets) {
            const query = `{ ${list}(${interval}, first: 9, offset: ${offset}${seen}${sort ? `, sort: "${sort}"` : ''}) {
              totalCount edges { node { ${selection} } } } }`;
            monthByMonthTuning.enabled = false;
            const oneStatement = await queryData<ListPage>(store.handle, query);
            monthByMonthTuning.enabled = true;
            const byMonth = await queryData<ListPage>(store.handle, query);
            expect([query, byMonth]).toEqual([query, oneStatement]);
            compared += byMonth[list]!.edges.length;
          }
      // Most of those pages hold records (the last offsets are past the end on purpose).
      expect(compared).toBeGreaterThan((4 + sorts.length) * 2 * 5 * 9 - 100);
    },
  );
});
