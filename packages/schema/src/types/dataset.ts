// Dataset: one loaded month and its summary; root fields `dataset` and `datasets`.
import { toCount } from '@asrank/db';
import { parseDateInterval, parseSort, selectDates, type SortKey } from '@asrank/domain';
import { builder } from '../builder';
import type { DatasetRow } from '../context';
import { monthOf, pageOf } from '../args';
import { inValues, orderByList, type SortColumn } from '../sql';
import { connectionOf, type ConnectionPage } from './pageInfo';
import { CountryRef, DatasetRef } from './refs';

const DATASET_SORT_COLUMNS: Record<string, SortColumn> = {
  date: { column: 'date' },
  datasetId: { column: 'dataset_id', text: true },
  modifiedAt: { column: 'modified_at', text: true },
  ipVersion: { column: 'ip_version' },
  numberAddresses: { column: 'number_addresses' },
  numberPrefixes: { column: 'number_prefixes' },
  numberAsns: { column: 'number_asns' },
  numberAsnsSeen: { column: 'number_asns_seen' },
  numberOrganizations: { column: 'number_organizations' },
  numberOrganizationsSeen: { column: 'number_organizations_seen' },
};
const DATASET_ORDER = { defaults: [], unique: [{ key: 'date', direction: 'asc' }] } satisfies {
  defaults: SortKey[];
  unique: SortKey[];
};

function jsonArray(json: string): unknown[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

interface AsnRange {
  start: string;
  end: string;
}

function asnRanges(json: string): AsnRange[] {
  return jsonArray(json).flatMap((range) =>
    Array.isArray(range) && range.length >= 2 ? [{ start: String(range[0]), end: String(range[1]) }] : [],
  );
}

interface DatasetSource {
  url: string | null;
  date: string | null;
  name: string | null;
}

function sources(json: string): DatasetSource[] {
  return jsonArray(json).flatMap((source) => {
    if (source === null || typeof source !== 'object') return [];
    const { url, date, name } = source as Record<string, unknown>;
    const text = (value: unknown) => (value == null ? null : String(value));
    return [{ url: text(url), date: text(date), name: text(name) }];
  });
}

const AsnRangeRef = builder.objectRef<AsnRange>('AsnRange').implement({
  description: 'An inclusive range of ASNs.',
  fields: (t) => ({ start: t.exposeString('start'), end: t.exposeString('end') }),
});

const DatasetSourceRef = builder.objectRef<DatasetSource>('DatasetSource').implement({
  description: 'An input data file of the dataset.',
  fields: (t) => ({
    url: t.exposeString('url', { nullable: true }),
    date: t.exposeString('date', { nullable: true }),
    name: t.exposeString('name', { nullable: true }),
  }),
});

export const DatasetConnection = connectionOf('Dataset', DatasetRef, 'A page of monthly datasets.');

DatasetRef.implement({
  description: 'One monthly dataset.',
  fields: (t) => ({
    datasetId: t.exposeString('dataset_id'),
    modifiedAt: t.exposeString('modified_at'),
    date: t.exposeString('date'),
    ipVersion: t.exposeInt('ip_version'),
    country: t.field({
      type: CountryRef,
      nullable: true,
      description: 'Null for the global dataset.',
      resolve: (row, _args, context) => (row.country_iso ? context.country(row.country_iso) : null),
    }),
    asnReservedRanges: t.field({ type: [AsnRangeRef], resolve: (row) => asnRanges(row.asn_reserved_ranges) }),
    asnAssignedRanges: t.field({ type: [AsnRangeRef], resolve: (row) => asnRanges(row.asn_assigned_ranges) }),
    clique: t.stringList({
      description: 'ASNs of the clique.',
      resolve: (row) => jsonArray(row.clique).map(String),
    }),
    asnIxs: t.stringList({
      description: 'ASNs of exchange points.',
      resolve: (row) => jsonArray(row.asn_ixs).map(String),
    }),
    sources: t.field({ type: [DatasetSourceRef], resolve: (row) => sources(row.sources) }),
    numberAddresses: t.float({ resolve: (row) => Number(row.number_addresses) }),
    numberPrefixes: t.int({ resolve: (row) => Number(row.number_prefixes) }),
    numberAsns: t.int({ resolve: (row) => Number(row.number_asns) }),
    numberAsnsSeen: t.int({ resolve: (row) => Number(row.number_asns_seen) }),
    numberOrganizations: t.int({ resolve: (row) => Number(row.number_organizations) }),
    numberOrganizationsSeen: t.int({ resolve: (row) => Number(row.number_organizations_seen) }),
    numberLinks: t.int({ resolve: (row) => Number(row.number_links) }),
  }),
});

builder.queryFields((t) => ({
  dataset: t.field({
    type: DatasetRef,
    nullable: true,
    description: 'The dataset of month `date`, or the latest one; null when not loaded.',
    args: { date: t.arg.string({ description: 'YYYYMMDD or YYYY-MM-DD.' }) },
    resolve: async (_root, args, context) => {
      const date = await monthOf(context, args.date);
      if (!date) return null;
      return (
        (await context.db.selectFrom('datasets').selectAll().where('date', '=', date).executeTakeFirst()) ??
        null
      );
    },
  }),
  datasets: t.field({
    type: DatasetConnection,
    description: 'Every loaded month (date ascending by default), or those inside [dateStart, dateEnd].',
    args: {
      first: t.arg.int(),
      offset: t.arg.int(),
      sort: t.arg.string(),
      dateStart: t.arg.string(),
      dateEnd: t.arg.string(),
    },
    resolve: async (_root, args, context): Promise<ConnectionPage<DatasetRow>> => {
      const page = pageOf(args);
      const keys = parseSort(args.sort, 'datasets', { historic: true, argument: 'sort' });
      const interval = parseDateInterval(args.dateStart, args.dateEnd);
      const available = await context.availableDates();
      // Unlike record lists, a dataset list without interval lists every month: it is how clients discover them.
      const months = interval ? selectDates(available, interval) : available;
      if (months.length === 0) return { nodes: [], totalCount: 0, ...page };
      const nodes = await context.db
        .selectFrom('datasets')
        .selectAll()
        .where(inValues(context.dialect, 'date', months, 'text'))
        .orderBy(orderByList(context.dialect, keys, DATASET_SORT_COLUMNS, DATASET_ORDER))
        .limit(page.first)
        .offset(page.offset)
        .execute();
      return { nodes, totalCount: toCount(months.length), ...page };
    },
  }),
}));
