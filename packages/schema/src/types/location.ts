// Location: a place where links are observed; root field `locations`.
import { compareCodePoints, parseSort, type SortKey } from '@asrank/domain';
import { builder } from '../builder';
import type { LocationRow } from '../context';
import { intervalOf, monthsIn, pageOf } from '../args';
import { listTotal, monthListScope } from '../listTotals';
import { dateIn, orderByList, type SortColumn } from '../sql';
import { connectionNeeds } from '../asnColumns';
import { connectionOf, type ConnectionPage } from './pageInfo';
import { CountryRef, LocationRef } from './refs';

const LOCATION_SORT_COLUMNS: Record<string, SortColumn> = {
  locId: { column: 'loc_id', text: true },
  city: { column: 'city', text: true, nullable: true },
  region: { column: 'region', text: true, nullable: true },
  country: { column: 'country_iso', text: true, nullable: true },
  continent: { column: 'continent', text: true, nullable: true },
  population: { column: 'population', nullable: true },
  date: { column: 'date' },
};
const LOCATION_ORDER = { defaults: [], unique: [{ key: 'locId', direction: 'asc' }] } satisfies {
  defaults: SortKey[];
  unique: SortKey[];
};
const LOCATION_HISTORIC_ORDER = {
  defaults: [{ key: 'date', direction: 'asc' }],
  unique: [{ key: 'date', direction: 'asc' }, ...LOCATION_ORDER.unique],
} satisfies { defaults: SortKey[]; unique: SortKey[] };

/**
 * Orders a link's few locations in memory by the same keys and rules as the SQL lists (nulls last in both
 * directions, then locId).
 */
export function sortLocations(rows: readonly LocationRow[], keys: readonly SortKey[]): LocationRow[] {
  const columnOf = (key: string) => LOCATION_SORT_COLUMNS[key]!.column as keyof LocationRow;
  const order = [...keys, ...LOCATION_ORDER.unique];
  return [...rows].sort((a, b) => {
    for (const key of order) {
      const left = a[columnOf(key.key)];
      const right = b[columnOf(key.key)];
      if (left === right) continue;
      if (left == null) return 1;
      if (right == null) return -1;
      // Text in byte order, as the root list's SQL sorts it (decisions.md).
      const compared =
        typeof left === 'string' && typeof right === 'string'
          ? compareCodePoints(left, right)
          : left < right
            ? -1
            : 1;
      return key.direction === 'desc' ? -compared : compared;
    }
    return 0;
  });
}

export const LocationConnection = connectionOf('Location', LocationRef, 'A page of locations.');

LocationRef.implement({
  description: 'A city where AS links are observed, in one month.',
  fields: (t) => ({
    locId: t.exposeString('loc_id'),
    city: t.exposeString('city', { nullable: true }),
    region: t.exposeString('region', { nullable: true }),
    country: t.field({
      type: CountryRef,
      nullable: true,
      resolve: (row, _args, context) => (row.country_iso ? context.country(row.country_iso) : null),
    }),
    continent: t.exposeString('continent', { nullable: true }),
    latitude: t.exposeFloat('latitude', { nullable: true }),
    longitude: t.exposeFloat('longitude', { nullable: true }),
    population: t.float({
      nullable: true,
      resolve: (row) => (row.population == null ? null : Number(row.population)),
    }),
    date: t.exposeString('date'),
  }),
});

builder.queryFields((t) => ({
  locations: t.field({
    type: LocationConnection,
    description: 'Locations of the latest month, or of every month of [dateStart, dateEnd].',
    args: {
      first: t.arg.int(),
      offset: t.arg.int(),
      sort: t.arg.string({
        description:
          'Comma-separated keys: locId, city, region, country, continent, population; "-" prefix for descending.',
      }),
      dateStart: t.arg.string(),
      dateEnd: t.arg.string(),
    },
    resolve: async (_root, args, context, info): Promise<ConnectionPage<LocationRow>> => {
      const page = pageOf(args);
      const interval = intervalOf(args);
      const historic = interval !== null;
      const keys = parseSort(args.sort, 'locations', { historic, argument: 'sort' });
      const months = await monthsIn(context, interval);
      if (months.length === 0) return { nodes: [], totalCount: 0, ...page };
      const query = context.db.selectFrom('locations').where(dateIn(context.dialect, 'date', months));
      const order = orderByList(
        context.dialect,
        keys,
        LOCATION_SORT_COLUMNS,
        historic ? LOCATION_HISTORIC_ORDER : LOCATION_ORDER,
      );
      // A page only where the selection shows one (a total alone read 1,000 locations for nothing), and the total
      // kept per data version as the other lists' are: counting a month's 7,312 locations took 2-3 ms every time.
      const nodes = connectionNeeds(info).nodes
        ? await query.selectAll().orderBy(order).limit(page.first).offset(page.offset).execute()
        : [];
      return {
        nodes,
        totalCount: () => listTotal(context, query, monthListScope('locations', months, {})),
        ...page,
      };
    },
  }),
}));
