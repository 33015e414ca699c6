// A root list (asns, organizations, asnLinks, locations) asked for its totalCount alone (no edges, no pageInfo) reads
// no page of its records, at any offset and in any order, and answers the same total as with its page; asked with
// pageInfo, it still reads its page.
import { LOAD_TIMEOUT_MS, queryData, withLoadedStore, STORE_KINDS, type LoadedStore } from './support/store';
import { StatementCounter, throughPlugin } from './support/statementCounter';

jest.setTimeout(LOAD_TIMEOUT_MS);

const LISTS = [
  { list: 'asns', node: 'asn', key: 'asn', sort: '-rank' },
  { list: 'organizations', node: 'orgId', key: 'org_id', sort: '-rank' },
  { list: 'asnLinks', node: 'asn0 { asn } asn1 { asn }', key: 'asn0', sort: '-numberPaths' },
  { list: 'locations', node: 'locId', key: 'loc_id', sort: '-population' },
] as const;

/** The rows every statement returned that are records of the list (they carry its key; counts and months do not). */
const recordsRead = (counter: StatementCounter, key: string) =>
  counter.returned.filter((row) => key in row).length;

describe.each(STORE_KINDS)('totalCount alone on %s', (kind) => {
  let store: LoadedStore;
  let dates: string[];
  withLoadedStore(kind, (opened) => {
    store = opened;
    dates = opened.dates;
  });

  const total = async (source: string, counter: StatementCounter) =>
    queryData<Record<string, { totalCount: number }>>(throughPlugin(store.handle, counter), source);

  it.each(LISTS)(
    '$list: the total without reading a page, as with it',
    async ({ list, node, key, sort: ordered }) => {
      const ranges = ['', `, dateStart: "${dates[0]}", dateEnd: "${dates.at(-1)}"`];
      for (const range of ranges)
        for (const [sort, offset] of [
          ['', 0],
          ['', 7],
          [ordered, 5],
        ] as const) {
          const args = `first: 3, offset: ${offset}, sort: "${sort}"${range}`;
          const alone = new StatementCounter();
          const withPage = new StatementCounter();
          const totalAlone = await total(`{ ${list}(${args}) { totalCount } }`, alone);
          const paged = await total(
            `{ ${list}(${args}) { totalCount edges { node { ${node} } } } }`,
            withPage,
          );
          expect({
            range,
            sort,
            offset,
            records: recordsRead(alone, key),
            total: totalAlone[list]!.totalCount,
          }).toEqual({
            range,
            sort,
            offset,
            records: 0,
            total: paged[list]!.totalCount,
          });
          expect(paged[list]!.totalCount).toBeGreaterThan(offset);
          expect(recordsRead(withPage, key)).toBeGreaterThanOrEqual(3);
          // pageInfo counts the page's nodes, so it reads them.
          const withPageInfo = new StatementCounter();
          await total(`{ ${list}(${args}) { totalCount pageInfo { hasNextPage } } }`, withPageInfo);
          expect(recordsRead(withPageInfo, key)).toBeGreaterThanOrEqual(3);
        }
    },
  );
});
