// Per-request context: the Kysely handle plus DataLoaders keyed by (date, id), so nested joins of a page of
// nodes cost one query per month and relation, never one per node.
import DataLoader from 'dataloader';
import { sql, type Compilable, type Kysely } from 'kysely';
import {
  DATASET_LISTED_TOTALS,
  type AsnsTable,
  type CountriesTable,
  type Database,
  type DatabaseHandle,
  type DatasetsTable,
  type DialectName,
  type LocationsTable,
  type OrganizationsTable,
} from '@asrank/db';
import { boundList, byPrimaryKey, dataVersionColumn, inBoundList, readStoreDataVersion } from './sql';
import {
  runCompiled,
  runCompiledNow,
  runPrepared,
  type PreparedKind,
  type PreparedHandle,
  type StatementObserver,
} from './compiledLookups';
import { bookmarkStepFor, PageBookmarks, waitedHopsFor, type PageBookmarksOptions } from './pageBookmarks';
import { ListTotals, storedListTotals } from './listTotals';
import { ShortNameCandidates } from './nameSearch';
import type { AsnColumn, OrganizationColumn } from './asnColumns';
import { organizationColumnsAlongside, withJoinedOrganizations } from './joinedOrganization';
import { keep, perHandle } from './perHandle';

export type AsnRow = AsnsTable;
export type OrganizationRow = OrganizationsTable;
export type CountryRow = CountriesTable;
export type DatasetRow = DatasetsTable;
export type LocationRow = LocationsTable;

export interface DatedKey<Id> {
  date: string;
  id: Id;
}

export interface AsrankContext {
  db: Kysely<Database>;
  dialect: DialectName;
  /** Dates of every loaded month, ascending (read once per data version, see StoreFacts). */
  availableDates(): Promise<string[]>;
  /** The store's data_version (changes on every load or drop; read once per request). */
  dataVersion(): Promise<string>;
  /**
   * The country of an ISO code (null: unknown), from the process's table of countries at the request's data version:
   * synchronous once that table is read, which is once per data version (see StoreFacts.countries).
   */
  country(iso: string): CountryRow | null | Promise<CountryRow | null>;
  loaders: {
    asn: DataLoader<DatedKey<number>, AsnRow | null, string>;
    organization: DataLoader<DatedKey<string>, OrganizationRow | null, string>;
    /** Locations of a link, keyed by its unordered pair (id = "low,high"). */
    linkLocations: DataLoader<DatedKey<string>, LocationRow[], string>;
  };
  /**
   * Runs a statement whose plan does not depend on its values: a named prepared statement on PostgreSQL, parsed and
   * planned once per connection (compiledLookups.ts). `table` names it in the statement metric.
   */
  prepared<Row>(query: Compilable<Row>, table: string, kind?: PreparedKind): Promise<Row[]>;
  /**
   * Runs the statement `build` makes from `placeholders`, compiled once per `shape` and database, with `values` bound
   * in the placeholders' places (compiledLookups.ts runCompiled); like `prepared`, only for statements whose plan does
   * not depend on their values.
   */
  compiled<Row>(
    shape: string,
    table: string,
    build: (...placeholders: unknown[]) => Compilable<Row>,
    placeholders: readonly unknown[],
    values: readonly unknown[],
  ): Promise<Row[]>;
  /** Bookmarks of deep list pages, shared by the process's contexts (see pageBookmarks.ts). */
  pageBookmarks: PageBookmarks;
  /** Totals of whole months' lists, shared by the process's contexts (see listTotals.ts). */
  listTotals: ListTotals;
  /** Candidates of name searches too short for trigrams, shared by the process's contexts (see nameSearch.ts). */
  shortNameCandidates: ShortNameCandidates;
  /** Loaders of nested connection pages, created on first use (see nestedPages.ts). */
  pageLoaders: Map<string, DataLoader<unknown, unknown, string>>;
  /**
   * ASN records with only `columns` read (see asnColumns.ts), one loader per column set. The rows carry exactly
   * the columns the selection's resolvers read, though typed as whole rows; null `columns` means whole rows.
   */
  asnLoader(
    columns: readonly AsnColumn[] | null,
    options?: { organization?: readonly OrganizationColumn[] },
  ): DataLoader<DatedKey<number>, AsnRow | null, string>;
  /** Organization records with only `columns` read (null: whole rows), one loader per column set. */
  organizationLoader(
    columns: readonly OrganizationColumn[] | null,
  ): DataLoader<DatedKey<string>, OrganizationRow | null, string>;
  /**
   * The record of ASN `asn` in month `date` as asnLoader(columns, { organization }) would load it (null: none), read
   * at once when the store reads synchronously (the service's SQLite); undefined otherwise, and the caller loads it.
   * better-sqlite3 answers at once: a loader's batch only adds promises to a lookup of one key.
   */
  asnNow(
    columns: readonly AsnColumn[] | null,
    organization: readonly OrganizationColumn[] | undefined,
    date: string,
    asn: number,
  ): AsnRow | null | undefined;
  /**
   * The record of ASN `asn` in month `date` (or LATEST_MONTH) as asnLoader(columns, { organization }) would load it,
   * from the statement the requests of this turn share on PostgreSQL (turnBatcher), without the request's own loader
   * in between; undefined elsewhere, and the caller loads it. A root lookup is one key: the request's loader only
   * added its promises and batch to it (1-5 µs of the service's ~70 a point lookup on PostgreSQL, +4-7% requests a
   * second: docs/performance.md, sixtieth round). The request adopts the data version the statement read, as through
   * its loader.
   */
  asnSoon(
    columns: readonly AsnColumn[] | null,
    organization: readonly OrganizationColumn[] | undefined,
    date: string,
    asn: number,
  ): Promise<AsnRow | null> | undefined;
  /**
   * The latest loaded month (null: none) when it is known without waiting: this request's data version is read and
   * its months are in memory. Undefined otherwise (see availableDates).
   */
  latestDateNow(): string | null | undefined;
  /**
   * LATEST_MONTH when this request's record lookups find the latest loaded month in their own statement (PostgreSQL,
   * while the request has no data version: none given, as the result cache gives one, and none read yet); undefined
   * otherwise, and the caller finds the month first (monthOf).
   */
  latestMonthKey(): typeof LATEST_MONTH | undefined;
}

/**
 * In place of a month in a record key: the latest loaded month, which the lookup's statement finds itself
 * (LATEST_LOADED_MONTH), in the same snapshot as the record. On PostgreSQL finding it first costs a round trip for the
 * data version (the months are kept per version), each waking a server process: ~17 µs of CPU a point lookup between
 * the service and the server (docs/performance.md, thirty-eighth round). Not a date, so it never meets a real month's key.
 */
export const LATEST_MONTH = '\u0000latest';
/** The latest loaded month, as availableDates().at(-1) would name it (null when none is, and then no record matches). */
const LATEST_LOADED_MONTH = sql<string>`(select max(latest.date) from datasets as latest)`;

/** Bound in place of (date, key) when a lookup's SQL is compiled; any value the SQL never binds otherwise. */
const DATE_AND_KEY_PLACEHOLDERS = ['\u0000date', '\u0000key'] as const;
/** Bound in place of (date, list of keys) when a lookup of several keys is compiled. */
const DATE_AND_LIST_PLACEHOLDERS = ['\u0000date', '\u0000list'] as const;

const datedKey = <Id extends number | string>(key: DatedKey<Id>) => `${key.date}|${key.id}`;

/**
 * How a loader reads records by (date, key): a batch of one key runs `one`'s statement, a larger batch `many`'s, each
 * compiled once per `shape`; `records` post-processes what either read.
 */
interface RecordSpec<Id extends number | string, Row> {
  shape: string;
  table: string;
  one: (month: unknown, key: unknown) => RecordQuery<Row>;
  many: (month: unknown, list: unknown) => RecordQuery<Row>;
  kind: 'bigint' | 'text';
  idOf: (row: Row) => Id;
  records?: (rows: Row[]) => Row[];
}

/** A record lookup's statement, unrun: a select that the latest month's variant reads the data version alongside. */
type RecordQuery<Row> = Compilable<Row> & {
  select(column: ReturnType<typeof dataVersionColumn>): Compilable<Row>;
};

/** A record lookup's statements for one key and for a list of keys, each compiled once per shape (runCompiled). */
interface RecordStatements<Row> {
  oneShape: string;
  one: (month: unknown, key: unknown) => Compilable<Row>;
  manyShape: string;
  many: (month: unknown, list: unknown) => Compilable<Row>;
}

/** A request's batch of record keys, answered in order (null: no such record). */
type RecordBatch<Id extends number | string, Row> = (
  keys: readonly DatedKey<Id>[],
) => Promise<(Row | null)[]>;

/**
 * On PostgreSQL the record lookups of every request handled in one turn of the event loop run together: one
 * statement per shape and month a turn instead of one per request. Each statement is a round trip, and its write wakes
 * the server's backend: under the point lookup that was ~20 µs of the service's CPU and ~67 of the server's a request
 * (Linux perf and /proc, docs/performance.md, thirty-seventh round). Requests keep their own loaders (and caches);
 * only their batches meet here, at the end of the turn (setImmediate), so no request waits longer than its turn.
 * Nothing is kept between batches (cache: false): rows are read fresh, as each request's own statement read them.
 */
const turnBatchersOf = perHandle<
  object,
  Map<StatementObserver | undefined, Map<string, DataLoader<DatedKey<number | string>, unknown, string>>>
>(() => new Map());
/** Shapes shared per handle at most (selections make shapes, so hostile variety must not grow the map). */
const MAX_TURN_BATCHERS = 256;
/** Keys per statement at most: a larger turn runs several. */
const MAX_TURN_BATCH_KEYS = 1000;

function turnBatcher<Id extends number | string, Row>(
  db: object,
  observe: StatementObserver | undefined,
  shape: string,
  load: RecordBatch<Id, Row>,
): DataLoader<DatedKey<Id>, Row | null, string> | undefined {
  const byObserver = turnBatchersOf(db);
  let byShape = byObserver.get(observe);
  if (!byShape) {
    byShape = new Map();
    byObserver.set(observe, byShape);
  }
  let batcher = byShape.get(shape);
  if (!batcher) {
    if (byShape.size >= MAX_TURN_BATCHERS) return undefined;
    batcher = new DataLoader(load as unknown as RecordBatch<number | string, unknown>, {
      cache: false,
      batchScheduleFn: (dispatch) => setImmediate(dispatch),
      maxBatchSize: MAX_TURN_BATCH_KEYS,
    });
    byShape.set(shape, batcher);
  }
  return batcher as unknown as DataLoader<DatedKey<Id>, Row | null, string>;
}

/** The row of `rows` whose id is `id` (null: none), compared as the batch path's `date|id` keys compare. */
function rowWithId<Id extends number | string, Row>(
  rows: readonly Row[],
  id: Id,
  idOf: (row: Row) => Id,
): Row | null {
  const wanted = String(id);
  for (const row of rows) if (String(idOf(row)) === wanted) return row;
  return null;
}

/** Groups keys by month and answers each month with one query. */
async function loadByDate<Id extends number | string, Row>(
  keys: readonly DatedKey<Id>[],
  fetch: (date: string, ids: Id[]) => Promise<Row[]>,
  idOf: (row: Row) => Id,
): Promise<(Row | null)[]> {
  // A batch of one key (every point lookup) skips the grouping's maps, set and closures (2.9% of W1's CPU, now 0.8%).
  if (keys.length === 1) {
    const [key] = keys as [DatedKey<Id>];
    return [rowWithId(await fetch(key.date, [key.id]), key.id, idOf)];
  }
  const idsByDate = new Map<string, Id[]>();
  for (const key of keys) {
    const ids = idsByDate.get(key.date) ?? [];
    ids.push(key.id);
    idsByDate.set(key.date, ids);
  }
  const found = new Map<string, Row>();
  await Promise.all(
    [...idsByDate].map(async ([date, ids]) => {
      for (const row of await fetch(date, [...new Set(ids)])) found.set(`${date}|${idOf(row)}`, row);
    }),
  );
  return keys.map((key) => found.get(datedKey(key)) ?? null);
}

/**
 * Facts that change only when a month is loaded or dropped, i.e. with the store's data_version: kept per process
 * and re-read when the version moves, so a request pays one version read instead of a datasets query.
 * Dates and version come from ONE statement (one snapshot on both dialects), so dates are never filed under a
 * version they do not belong to, even when a load commits between two requests.
 */
export interface StoreFacts {
  /** The current data_version (one primary-key read). */
  dataVersion(): Promise<string>;
  /** Loaded months, ascending, as of `version` (or newer, if the store moved on since). */
  availableDates(version: string): Promise<string[]>;
  /** Bookmarks of deep list pages, filed by data version. */
  pageBookmarks: PageBookmarks;
  /** Totals of whole months' lists, filed by data version. */
  listTotals: ListTotals;
  /** Candidates of short name searches, filed by data version. */
  shortNameCandidates: ShortNameCandidates;
  /**
   * Every country by ISO code as of `version` (or newer). The table is ~250 rows that only a load changes, and an
   * ASN's `country` is in every REST answer: a loader batch per request cost a statement (~26 µs), its build and a
   * promise.
   */
  countries(version: string): Promise<ReadonlyMap<string, CountryRow>>;
  /** The table `countries` read for exactly `version`, if it is already in memory. */
  knownCountries(version: string): ReadonlyMap<string, CountryRow> | undefined;
  /** The loaded months as of exactly `version`, if they are already in memory. */
  knownDates(version: string): readonly string[] | undefined;
}

/**
 * A value of the store that changes only with its data version (the loaded months, the countries), read once per
 * version. `read` takes the rows and the version they belong to from ONE statement (one snapshot on both dialects),
 * so a value is never filed under a version it does not belong to, even when a load commits between two requests.
 * Requests of one version that arrive while it is read share that read; a failed read is not kept.
 */
function perDataVersion<T>(read: () => Promise<{ version: string | undefined; value: T }>) {
  let known: { version: string; value: Promise<T>; ready: T } | undefined;
  let reading: { version: string; value: Promise<T> } | undefined;
  return {
    get(version: string): Promise<T> {
      if (known?.version === version) return known.value;
      if (reading?.version === version) return reading.value;
      const result = read();
      const value = result.then((answer) => answer.value);
      const pending = { version, value };
      reading = pending;
      void result.then(
        (answer) => {
          known = { version: answer.version ?? version, value, ready: answer.value };
          if (reading === pending) reading = undefined;
        },
        () => {
          if (reading === pending) reading = undefined;
        },
      );
      return value;
    },
    /** The value read for exactly `version`, if it is in memory. */
    ready(version: string): T | undefined {
      return known?.version === version ? known.ready : undefined;
    },
  };
}

export function createStoreFacts(
  handle: DatabaseHandle,
  readDataVersion?: () => Promise<string>,
  bookmarkOptions: PageBookmarksOptions = {},
): StoreFacts {
  const { db } = handle;
  const dates = perDataVersion(async () => {
    const rows = await db
      .selectFrom('datasets')
      .select(['date', dataVersionColumn()])
      .orderBy('date')
      .execute();
    return { version: rows[0]?.data_version ?? undefined, value: rows.map((row) => row.date) };
  });
  const countries = perDataVersion(async () => {
    const rows = await db.selectFrom('countries').selectAll().select(dataVersionColumn()).execute();
    return {
      version: rows[0]?.data_version ?? undefined,
      value: new Map(rows.map(({ data_version: _version, ...country }) => [country.iso, country])),
    };
  });
  return {
    pageBookmarks: new PageBookmarks({
      step: bookmarkStepFor(handle.dialect),
      waitedHops: waitedHopsFor(handle.dialect),
      ...bookmarkOptions,
    }),
    listTotals: new ListTotals(async () => {
      const rows = await db
        .selectFrom('datasets')
        .select(['date', ...DATASET_LISTED_TOTALS, dataVersionColumn()])
        .execute();
      return { version: rows[0]?.data_version ?? null, totals: storedListTotals(rows) };
    }),
    shortNameCandidates: new ShortNameCandidates(),
    dataVersion: readDataVersion ?? (() => readStoreDataVersion(db)),
    availableDates: (version) => dates.get(version),
    countries: (version) => countries.get(version),
    knownCountries: (version) => countries.ready(version),
    knownDates: (version) => dates.ready(version),
  };
}

/** A `null` column list's key in asnRecordSpecsOf's maps (whole rows). */
const WHOLE_ROWS: readonly AsnColumn[] = [];
const NO_ORGANIZATION: readonly OrganizationColumn[] = [];
/**
 * Each handle's ASN record specs by their column arrays, as selectedAsnColumns and joinedOrganizationColumns return
 * them (one array per selection, so most lookups find their spec by identity). Built per request, a spec's shape
 * string was joined and hashed anew for every point lookup.
 */
const asnRecordSpecsOf = perHandle<
  object,
  WeakMap<readonly AsnColumn[], WeakMap<readonly OrganizationColumn[], RecordSpec<number, AsnRow>>>
>(() => new WeakMap());

/**
 * How ASN records are read by (date, asn): `columns` only, or whole rows when null; with `organization` (the
 * columns to read of it), each record also carries its organization (joinedOrganization.ts).
 */
function asnRecords(
  handle: DatabaseHandle,
  columns: readonly AsnColumn[] | null,
  organization: readonly OrganizationColumn[] | undefined,
): RecordSpec<number, AsnRow> {
  const specs = asnRecordSpecsOf(handle.db);
  const columnsKey = columns ?? WHOLE_ROWS;
  const byOrganization = specs.get(columnsKey) ?? keep(specs, columnsKey, new WeakMap());
  const organizationKey = organization ?? NO_ORGANIZATION;
  return (
    byOrganization.get(organizationKey) ??
    keep(byOrganization, organizationKey, buildAsnRecords(handle, columns, organization))
  );
}

function buildAsnRecords(
  { db, dialect }: DatabaseHandle,
  columns: readonly AsnColumn[] | null,
  organization: readonly OrganizationColumn[] | undefined,
): RecordSpec<number, AsnRow> {
  const selected = () => {
    const query = db.selectFrom(byPrimaryKey(dialect, 'asns', 'a'));
    const rows = columns
      ? query.select(columns.map((column) => `a.${column}` as const))
      : query.selectAll('a');
    if (!organization) return rows;
    return rows
      .leftJoin('organizations as o', (join) =>
        join.onRef('o.date', '=', 'a.date').onRef('o.org_id', '=', 'a.org_id'),
      )
      .select(organizationColumnsAlongside(organization)) as unknown as typeof rows;
  };
  return {
    shape: `asn|${columns?.join(',') ?? '*'}|${organization?.join(',') ?? ''}`,
    table: 'asns',
    ...monthKeyedStatements<AsnRow>(dialect, selected, 'a.date', 'a.asn', 'bigint'),
    idOf: (row) => Number(row.asn),
    records: organization
      ? (rows) => withJoinedOrganizations(rows as unknown as Record<string, unknown>[], organization)
      : undefined,
  };
}

/**
 * A record spec's statements: the records of one month by one key and by a list of keys. `selected` is the spec's
 * select, untyped here: the two tables' columns differ, and the spec names the row type it reads.
 */
function monthKeyedStatements<Row>(
  dialect: DatabaseHandle['dialect'],
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a select of either record table (see above)
  selected: () => { where(...args: any[]): any },
  dateColumn: string,
  keyColumn: string,
  kind: 'bigint' | 'text',
): Pick<RecordSpec<number | string, Row>, 'one' | 'many' | 'kind'> {
  return {
    one: (month, key) =>
      selected().where(dateColumn, '=', month).where(keyColumn, '=', key) as RecordQuery<Row>,
    many: (month, keys) =>
      selected()
        .where(dateColumn, '=', month)
        .where(inBoundList(dialect, keyColumn, keys, kind)) as RecordQuery<Row>,
    kind,
  };
}

/** A `null` organization column list's key in organizationRecordSpecsOf's map (whole rows). */
const WHOLE_ORGANIZATION_ROWS: readonly OrganizationColumn[] = [];
/** Each handle's organization record specs by their column arrays (see asnRecordSpecsOf). */
const organizationRecordSpecsOf = perHandle<
  object,
  WeakMap<readonly OrganizationColumn[], RecordSpec<string, OrganizationRow>>
>(() => new WeakMap());

/** How organization records are read by (date, org_id): `columns` only, or whole rows when null. */
function organizationRecords(
  handle: DatabaseHandle,
  columns: readonly OrganizationColumn[] | null,
): RecordSpec<string, OrganizationRow> {
  const specs = organizationRecordSpecsOf(handle.db);
  const key = columns ?? WHOLE_ORGANIZATION_ROWS;
  return specs.get(key) ?? keep(specs, key, buildOrganizationRecords(handle, columns));
}

function buildOrganizationRecords(
  { db, dialect }: DatabaseHandle,
  columns: readonly OrganizationColumn[] | null,
): RecordSpec<string, OrganizationRow> {
  const selected = () => {
    const query = db.selectFrom('organizations');
    return columns ? query.select(columns) : query.selectAll();
  };
  return {
    shape: `organization|${columns?.join(',') ?? '*'}`,
    table: 'organizations',
    ...monthKeyedStatements<OrganizationRow>(dialect, selected, 'date', 'org_id', 'text'),
    idOf: (row) => row.org_id,
  };
}

/** Facts shared by every context of one handle when the caller does not pass its own. */
const defaultFactsByHandle = new WeakMap<object, StoreFacts>();

export interface ContextOptions {
  /** The process's store facts (default: one per handle). */
  facts?: StoreFacts;
  /** The data_version when the caller has already read it for this request (the service's result cache has). */
  dataVersion?: string;
  /** Times the statements run from SQL compiled once (compiledLookups.ts), which Kysely plugins do not see. */
  observeStatement?: StatementObserver;
}

type AsnRowsLoader = DataLoader<DatedKey<number>, AsnRow | null, string>;
type OrganizationRowsLoader = DataLoader<DatedKey<string>, OrganizationRow | null, string>;
type LinkLocationsLoader = DataLoader<DatedKey<string>, LocationRow[], string>;

/**
 * What a request learns and makes on first use: its data version, its months, its loaders. Mercurius gives each
 * operation of a batch a context made with Object.create(the request's), so this is kept in one object the contexts
 * share, not on `this`: the operations of a REST batch meet in the same loaders.
 */
interface RequestState {
  /** The request's data version once known (given by the caller, or read), for synchronous per-version lookups. */
  versionRead: string | undefined;
  /** The data version as a promise, once asked for (or read). */
  version: Promise<string> | undefined;
  dates: Promise<string[]> | undefined;
  loaders: RequestLoaders | undefined;
  pageLoaders: Map<string, DataLoader<unknown, unknown, string>> | undefined;
  asnLoaders: Map<string, AsnRowsLoader> | undefined;
  asnLoadersByArray: WeakMap<readonly AsnColumn[], AsnRowsLoader> | undefined;
  organizationLoaders: Map<string, OrganizationRowsLoader> | undefined;
}

/** Record lookups are short (keys by primary key): on PostgreSQL they run on the handle's pipelined connection. */
const lookupHandles = new WeakMap<DatabaseHandle, PreparedHandle>();
function lookupHandleOf(handle: DatabaseHandle): PreparedHandle {
  if (!handle.postgresPipelined) return handle;
  let lookupHandle = lookupHandles.get(handle);
  if (!lookupHandle) {
    lookupHandle = { db: handle.db, postgres: handle.postgresPipelined };
    lookupHandles.set(handle, lookupHandle);
  }
  return lookupHandle;
}

/** A record lookup's batch function, answering keys in order (an Error in place of a key its batch failed). */
type RecordBatchFunction<Id extends number | string, Row> = (
  keys: readonly DatedKey<Id>[],
) => Promise<(Row | null | Error)[]>;

/** A spec's batch function, and on PostgreSQL the batcher the requests of a turn share, which the batch goes to. */
interface RecordBatches<Id extends number | string, Row> {
  batch: RecordBatchFunction<Id, Row>;
  turnShared: DataLoader<DatedKey<Id>, Row | null, string> | undefined;
}

/** Each spec's batches, for the handle and observer they were made for (specs are kept per handle). */
const recordBatches = new WeakMap<
  object,
  { handle: DatabaseHandle; observe: StatementObserver | undefined; batches: unknown }
>();

/**
 * Records by (date, key): a batch of one key runs `one`'s statement, a larger batch `many`'s (per month, see
 * loadByDate; the keys bound as one list), each compiled once per `shape`. `records` post-processes what either read.
 * Larger batches come from nested lookups and from the REST service's batches of requests, whose Kysely build per
 * batch was 9.6% of the GraphQL service's CPU under W6 (docs/performance.md, thirty-first round). Made once per spec,
 * handle and observer: made per request, its statements' shapes were joined anew and hashed by every lookup. Given
 * with the turn's batcher the batch goes to on PostgreSQL, which a root point lookup uses directly (asnSoon).
 */
function recordBatchOf<Id extends number | string, Row>(
  handle: DatabaseHandle,
  observe: StatementObserver | undefined,
  spec: RecordSpec<Id, Row>,
): RecordBatches<Id, Row> {
  const kept = recordBatches.get(spec);
  if (kept && kept.handle === handle && kept.observe === observe)
    return kept.batches as RecordBatches<Id, Row>;
  const { dialect } = handle;
  const lookupHandle = lookupHandleOf(handle);
  const records = spec.records ?? ((rows: Row[]) => rows);
  const byMonth: RecordStatements<Row> = {
    oneShape: spec.shape,
    one: spec.one,
    manyShape: `${spec.shape}|many`,
    many: spec.many,
  };
  // The same statements with the latest loaded month in place of the bound one (LATEST_MONTH keys), reading the
  // data version in the same snapshot: the request adopts it (adoptVersionOf), so what it reads next by version
  // (the countries) belongs to the records it was answered with, and needs no round trip of its own.
  const ofLatestMonth: RecordStatements<Row> = {
    oneShape: `${byMonth.oneShape}|latest`,
    one: (_month, key) => spec.one(LATEST_LOADED_MONTH, key).select(dataVersionColumn()),
    manyShape: `${byMonth.manyShape}|latest`,
    many: (_month, list) => spec.many(LATEST_LOADED_MONTH, list).select(dataVersionColumn()),
  };
  const load: RecordBatch<Id, Row> = (keys) =>
    loadByDate(
      keys,
      async (date, ids) => {
        const statements = date === LATEST_MONTH ? ofLatestMonth : byMonth;
        const rows =
          ids.length === 1
            ? await runCompiled<Row>(
                lookupHandle,
                statements.oneShape,
                spec.table,
                statements.one,
                DATE_AND_KEY_PLACEHOLDERS,
                [date, ids[0]],
                observe,
              )
            : await runCompiled<Row>(
                lookupHandle,
                statements.manyShape,
                spec.table,
                statements.many,
                DATE_AND_LIST_PLACEHOLDERS,
                [date, boundList(dialect, ids, spec.kind)],
                observe,
              );
        return records(rows);
      },
      spec.idOf,
    );
  const turnShared = handle.postgres ? turnBatcher(handle.db, observe, spec.shape, load) : undefined;
  const batch: RecordBatchFunction<Id, Row> = turnShared
    ? (keys) => turnShared.loadMany(keys) as Promise<(Row | null | Error)[]>
    : load;
  const batches: RecordBatches<Id, Row> = { batch, turnShared };
  recordBatches.set(spec, { handle, observe, batches });
  return batches;
}

/** A request's shared record loaders, each made on first use: a point lookup on SQLite uses none of them. */
class RequestLoaders {
  private asnLoader: AsnRowsLoader | undefined;
  private organizationLoader: OrganizationRowsLoader | undefined;
  private linkLocationsLoader: LinkLocationsLoader | undefined;

  constructor(private readonly context: RequestContext) {}

  get asn(): AsnRowsLoader {
    return (this.asnLoader ??= this.context.asnRowsLoader(null, undefined));
  }

  get organization(): OrganizationRowsLoader {
    return (this.organizationLoader ??= this.context.organizationRowsLoader(null));
  }

  get linkLocations(): LinkLocationsLoader {
    return (this.linkLocationsLoader ??= this.context.linkLocationsLoader());
  }
}

/**
 * One request's context. A class, its methods on the prototype: as an object literal of closures it cost every request
 * ~20 functions and their scope, ~1.5 KB of the point lookup's ~23 KB of allocations, and its loaders and maps are now
 * made only when a field uses them.
 */
class RequestContext implements AsrankContext {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  readonly pageBookmarks: PageBookmarks;
  readonly listTotals: ListTotals;
  readonly shortNameCandidates: ShortNameCandidates;
  private readonly state: RequestState;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly shared: StoreFacts,
    private readonly observe: StatementObserver | undefined,
    dataVersion: string | undefined,
  ) {
    this.db = handle.db;
    this.dialect = handle.dialect;
    this.pageBookmarks = shared.pageBookmarks;
    this.listTotals = shared.listTotals;
    this.shortNameCandidates = shared.shortNameCandidates;
    this.state = {
      versionRead: dataVersion,
      version: undefined,
      dates: undefined,
      loaders: undefined,
      pageLoaders: undefined,
      asnLoaders: undefined,
      asnLoadersByArray: undefined,
      organizationLoaders: undefined,
    };
  }

  get loaders(): RequestLoaders {
    return (this.state.loaders ??= new RequestLoaders(this));
  }

  get pageLoaders(): Map<string, DataLoader<unknown, unknown, string>> {
    return (this.state.pageLoaders ??= new Map());
  }

  /** Whether the request has a data version (given, read, or being read). */
  private hasVersion(): boolean {
    return this.state.versionRead !== undefined || this.state.version !== undefined;
  }

  dataVersion(): Promise<string> {
    const { state } = this;
    if (state.version) return state.version;
    if (state.versionRead !== undefined) return (state.version = Promise.resolve(state.versionRead));
    return (state.version = this.shared.dataVersion().then((read) => {
      state.versionRead = read;
      return read;
    }));
  }

  availableDates(): Promise<string[]> {
    return (this.state.dates ??= this.dataVersion().then((current) => this.shared.availableDates(current)));
  }

  country(iso: string): CountryRow | null | Promise<CountryRow | null> {
    const { versionRead } = this.state;
    const table = versionRead === undefined ? undefined : this.shared.knownCountries(versionRead);
    if (table) return table.get(iso) ?? null;
    return this.dataVersion()
      .then((current) => this.shared.countries(current))
      .then((countriesByIso) => countriesByIso.get(iso) ?? null);
  }

  prepared<Row>(query: Compilable<Row>, table: string, kind: PreparedKind = 'frequent'): Promise<Row[]> {
    return runPrepared(this.handle, query.compile(), table, undefined, this.observe, kind);
  }

  compiled<Row>(
    shape: string,
    table: string,
    build: (...placeholders: unknown[]) => Compilable<Row>,
    placeholders: readonly unknown[],
    values: readonly unknown[],
  ): Promise<Row[]> {
    return runCompiled(this.handle, shape, table, build, placeholders, values, this.observe);
  }

  organizationLoader(columns: readonly OrganizationColumn[] | null): OrganizationRowsLoader {
    if (columns === null) return this.loaders.organization;
    const key = columns.join(',');
    const loaders = (this.state.organizationLoaders ??= new Map());
    let loader = loaders.get(key);
    if (!loader) {
      loader = this.organizationRowsLoader(columns);
      loaders.set(key, loader);
    }
    return loader;
  }

  asnNow(
    columns: readonly AsnColumn[] | null,
    organization: readonly OrganizationColumn[] | undefined,
    date: string,
    asn: number,
  ): AsnRow | null | undefined {
    // Checked first: on other stores the statement's spec is not worth finding.
    if (!this.handle.readRows) return undefined;
    return this.recordNow(asnRecords(this.handle, columns, organization), date, asn);
  }

  asnSoon(
    columns: readonly AsnColumn[] | null,
    organization: readonly OrganizationColumn[] | undefined,
    date: string,
    asn: number,
  ): Promise<AsnRow | null> | undefined {
    // Checked first: only PostgreSQL's lookups have a turn batcher (recordBatchOf).
    if (!this.handle.postgres) return undefined;
    const { turnShared } = recordBatchOf(
      this.handle,
      this.observe,
      asnRecords(this.handle, columns, organization),
    );
    if (!turnShared) return undefined;
    const record = turnShared.load({ date, id: asn });
    return this.hasVersion() ? record : record.then((row) => this.adoptVersionOf([row])[0] as AsnRow | null);
  }

  latestMonthKey(): typeof LATEST_MONTH | undefined {
    // Not once the request has a version (given, or read by another of its fields): its months are that version's.
    return this.handle.postgres && !this.hasVersion() ? LATEST_MONTH : undefined;
  }

  latestDateNow(): string | null | undefined {
    const { versionRead } = this.state;
    if (versionRead === undefined) return undefined;
    const known = this.shared.knownDates(versionRead);
    return known === undefined ? undefined : (known.at(-1) ?? null);
  }

  asnLoader(
    columns: readonly AsnColumn[] | null,
    options: { organization?: readonly OrganizationColumn[] } = {},
  ): AsnRowsLoader {
    const { organization } = options;
    const { state } = this;
    if (organization) {
      const key = `${columns?.join(',') ?? '*'}|organization ${organization.join(',')}`;
      const loaders = (state.asnLoaders ??= new Map());
      let loader = loaders.get(key);
      if (!loader) {
        loader = this.asnRowsLoader(columns, organization);
        loaders.set(key, loader);
      }
      return loader;
    }
    if (columns === null) return this.loaders.asn;
    // selectedAsnColumns returns one array per field position: most calls find it by identity.
    const byArray = (state.asnLoadersByArray ??= new WeakMap());
    let loader = byArray.get(columns);
    if (loader) return loader;
    const key = columns.join(',');
    const loaders = (state.asnLoaders ??= new Map());
    loader = loaders.get(key);
    if (!loader) {
      loader = this.asnRowsLoader(columns, undefined);
      loaders.set(key, loader);
    }
    byArray.set(columns, loader);
    return loader;
  }

  asnRowsLoader(
    columns: readonly AsnColumn[] | null,
    organization: readonly OrganizationColumn[] | undefined,
  ): AsnRowsLoader {
    return this.recordLoader(asnRecords(this.handle, columns, organization));
  }

  /** Organization records by (date, org_id), reading `columns` only, or whole rows when null. */
  organizationRowsLoader(columns: readonly OrganizationColumn[] | null): OrganizationRowsLoader {
    return this.recordLoader(organizationRecords(this.handle, columns));
  }

  /**
   * Locations of links by their unordered pair (asn0 < asn1, as link_locations holds them), read per month for the
   * batch's pairs themselves: read for every link of the pairs' lower ASNs, the first 500 links of the generated month
   * (among its largest ASes) read their ends' every located link, 290 ms on SQLite and 280 on PostgreSQL.
   */
  linkLocationsLoader(): LinkLocationsLoader {
    const { db, dialect } = this;
    return new DataLoader<DatedKey<string>, LocationRow[], string>(
      async (keys) => {
        const byLink = new Map<string, LocationRow[]>();
        const dates = new Set(keys.map((key) => key.date));
        await Promise.all(
          [...dates].map(async (date) => {
            const pairs = [...new Set(keys.filter((k) => k.date === date).map((k) => String(k.id)))].map(
              (id) => id.split(',').map(Number) as [number, number],
            );
            const pairsOf =
              dialect === 'postgres'
                ? sql`unnest(${pairs.map(([low]) => low)}::bigint[], ${pairs.map(([, high]) => high)}::bigint[])
                    as p(low, high)`
                : sql`(select json_extract(value, '$[0]') as low, json_extract(value, '$[1]') as high
                    from json_each(${JSON.stringify(pairs)})) p`;
            const { rows } = await sql<LocationRow & { link_asn0: number; link_asn1: number }>`
              select l.*, ll.asn0 as link_asn0, ll.asn1 as link_asn1 from ${pairsOf}
              join link_locations ll on ll.date = ${date} and ll.asn0 = p.low and ll.asn1 = p.high
              join locations l on l.date = ll.date and l.loc_id = ll.loc_id
              order by l.loc_id`.execute(db);
            for (const { link_asn0, link_asn1, ...location } of rows) {
              const key = `${date}|${Number(link_asn0)},${Number(link_asn1)}`;
              const list = byLink.get(key) ?? [];
              list.push(location);
              byLink.set(key, list);
            }
          }),
        );
        return keys.map((key) => byLink.get(datedKey(key)) ?? []);
      },
      { cacheKeyFn: datedKey },
    );
  }

  /** Records by (date, key) as `spec` reads them (recordBatchOf), one loader (and cache) per request. */
  private recordLoader<Id extends number | string, Row>(
    spec: RecordSpec<Id, Row>,
  ): DataLoader<DatedKey<Id>, Row | null, string> {
    const { batch } = recordBatchOf(this.handle, this.observe, spec);
    return new DataLoader<DatedKey<Id>, Row | null, string>(
      (keys) => (this.hasVersion() ? batch(keys) : batch(keys).then((rows) => this.adoptVersionOf(rows))),
      { cacheKeyFn: datedKey },
    );
  }

  /**
   * The data version a latest-month lookup read with its records (recordLoader's latest statements), made the
   * request's when it has none yet: it is as fresh as a read of its own (the statement was sent after the request
   * arrived).
   */
  private adoptVersionOf<Row>(rows: (Row | null | Error)[]): (Row | null | Error)[] {
    for (const row of rows) {
      const read = (row as { data_version?: string | null } | null)?.data_version;
      if (read === undefined) continue;
      // Another of the request's reads may have given it a version while this batch ran: that one stays.
      if (!this.hasVersion()) this.state.versionRead = read ?? '0';
      break;
    }
    return rows;
  }

  /** The one record of (date, id) read at once by `spec`'s one-key statement, as its loader would (see asnNow). */
  private recordNow<Id extends number | string, Row>(
    spec: RecordSpec<Id, Row>,
    date: string,
    id: Id,
  ): Row | null | undefined {
    const rows = runCompiledNow<Row>(
      this.handle,
      spec.shape,
      spec.table,
      spec.one,
      DATE_AND_KEY_PLACEHOLDERS,
      [date, id],
      this.observe,
    );
    if (rows === undefined) return undefined;
    return rowWithId(spec.records ? spec.records(rows) : rows, id, spec.idOf);
  }
}

export function createContext(handle: DatabaseHandle, options: ContextOptions = {}): AsrankContext {
  let facts = options.facts ?? defaultFactsByHandle.get(handle.db);
  if (!facts) {
    facts = createStoreFacts(handle);
    defaultFactsByHandle.set(handle.db, facts);
  }
  return new RequestContext(handle, facts, options.observeStatement, options.dataVersion);
}
