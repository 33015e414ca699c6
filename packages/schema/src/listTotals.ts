// The totalCount of a whole month's list (every ASN, the seen ones, every organization, every link of the month),
// kept per process by data version. A client paging through a list asks for totalCount or pageInfo with every page,
// and each count walked the month's index again: 5 ms for the real month's 83,000 ASNs, 12 ms for its 262,000 links.
// A name search is kept too: paging through its matches asks the same count again, which tests every row of the
// month (17 ms for "net" on the real month). A list over several months without a name filter is the sum of its
// months' totals (12 generated months of links: 183 ms a request before); with one, whose candidates are looked up over
// the months together, its total is kept whole under the months and the name (12 generated months of ASNs named
// "net": 190-210 ms a request before, all of it the count). Key lists are counted per request (their counts are
// index ranges, and their variety would only churn the totals); one ASN's links are summed from the counts its rows
// keep (asnLink.ts, keptAsnLinkTotal). The totals of a month's
// whole lists (every ASN or organization, the seen or unseen ones, every link) are kept by the store with its month
// (DatasetListedTotals, written by the loads), read once per data version: a process's first total of 12 generated
// months of links counted 6 million rows (0.5-0.7 s).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import type { SelectQueryBuilder } from 'kysely';
import { toCount, type Database, type DatasetListedTotals } from '@asrank/db';
import { LINK_RELATIONSHIPS } from '@asrank/domain';
import type { AsrankContext } from './context';
import { dataVersionColumn } from './sql';
import { mapOnStore } from './storeTurns';

/** Totals remembered: lists and filters per month, for many months and a few data versions. */
const MAX_TOTALS = 2048;
/** Characters of scope kept over all totals (a name is the client's string), and of one scope. */
const MAX_SCOPE_CHARS = 1 << 20;
const MAX_ONE_SCOPE_CHARS = 1024;

// The list's table is a type parameter, which Kysely's select builder cannot resolve; a count reads no column of it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type CountableQuery = SelectQueryBuilder<Database, any, object>;

export const listTotalsTuning = {
  /** Whether the totals the store keeps with its months are read (tests turn it off to count the lists). */
  storedTotals: true,
};

/** The totals the store keeps with its months, by scope, and the data version they were read at (null: none). */
export interface StoredListTotals {
  version: string | null;
  totals: ReadonlyMap<string, number>;
}

export class ListTotals {
  private readonly totals = new LRUCache<string, number>({
    max: MAX_TOTALS,
    maxSize: MAX_SCOPE_CHARS,
    // A scope longer than that is counted every time, not kept.
    maxEntrySize: MAX_ONE_SCOPE_CHARS,
    sizeCalculation: (_total, scope) => scope.length,
  });
  /** The store's kept totals of one data version (the latest read), and the read under way. */
  private stored: { version: string; totals: ReadonlyMap<string, number> } | undefined;
  private storedRead: Promise<void> | undefined;

  /** `readStored`: the totals the store keeps with its months (storedListTotals), read in one statement. */
  constructor(private readonly readStored?: () => Promise<StoredListTotals>) {}

  /**
   * The number of rows of `query`, a month's list with no filter, a `seen` or a name filter, which `scope` names
   * (table, month, filter). Known for the request's data version: no statement. Else counted with the data version in the
   * same statement (one snapshot on both dialects), so a total is filed under the version it was counted on even
   * when a load commits meanwhile. `turnFirst`: a count lets the event loop turn before it runs (monthTotals).
   */
  async total(
    query: CountableQuery,
    scope: string,
    requestVersion: string,
    turnFirst = false,
  ): Promise<number> {
    const known = this.totals.get(`${requestVersion}\u0000${scope}`);
    if (known !== undefined) return known;
    const stored = await this.storedTotal(scope, requestVersion);
    if (stored !== undefined) return stored;
    if (turnFirst) await nextTurn();
    const row = await query
      .select([(eb) => eb.fn.countAll().as('total'), dataVersionColumn()])
      .executeTakeFirst();
    const total = toCount(row?.total as number | string | undefined);
    if (row?.data_version != null) this.totals.set(`${row.data_version}\u0000${scope}`, total);
    return total;
  }

  /**
   * The store's kept total of `scope` at exactly `requestVersion`, reading the kept totals when this process has not
   * read that version's yet (requests arriving meanwhile share the read); undefined when the scope is not one of them,
   * or the store moved on to another version since the request began (the list is then counted).
   */
  private async storedTotal(scope: string, requestVersion: string): Promise<number | undefined> {
    if (!this.readStored || !listTotalsTuning.storedTotals) return undefined;
    if (this.stored?.version !== requestVersion) {
      this.storedRead ??= this.readStored()
        .then((read) => {
          if (read.version !== null) this.stored = { version: read.version, totals: read.totals };
        })
        .finally(() => {
          this.storedRead = undefined;
        });
      await this.storedRead;
    }
    return this.stored?.version === requestVersion ? this.stored.totals.get(scope) : undefined;
  }
}

/**
 * The scopes (monthListScope) of the lists whose totals the store keeps with each month, with those totals: every ASN
 * and organization of the month, the seen and the unseen ones, and every link (each pair once).
 */
export function storedListTotals(
  months: readonly ({ date: string } & Record<keyof DatasetListedTotals, number | string>)[],
): Map<string, number> {
  const totals = new Map<string, number>();
  const keep = (table: string, month: string, filter: Record<string, boolean | string>, total: number) =>
    totals.set(monthListScope(table, [month], filter)!, total);
  for (const row of months) {
    for (const [table, all, seen] of [
      ['asns', toCount(row.listed_asns), toCount(row.listed_asns_seen)],
      ['organizations', toCount(row.listed_organizations), toCount(row.listed_organizations_seen)],
    ] as const) {
      keep(table, row.date, {}, all);
      keep(table, row.date, { seen: true }, seen);
      keep(table, row.date, { seen: false }, all - seen);
    }
    const links = toCount(row.listed_links);
    keep('asn_links', row.date, {}, links);
    // The parts a walk of every link skips whole, named as its month totals name them (asnLink.ts).
    for (const relationship of LINK_RELATIONSHIPS)
      keep('asn_links', row.date, { relationship }, toCount(row[`listed_links_${relationship}`]));
    for (const [column, valued] of [
      ['number_paths', toCount(row.listed_links_with_paths)],
      ['corrected_by', toCount(row.listed_links_corrected)],
    ] as const) {
      keep('asn_links', row.date, { [column]: 'valued' }, valued);
      keep('asn_links', row.date, { [column]: 'null' }, links - valued);
    }
  }
  return totals;
}

/**
 * The totalCount of a list, counted only when a client selects totalCount or pageInfo: from the process's totals
 * when `scope` names a month's list (see ListTotals), else by counting `query`.
 */
export async function listTotal(
  context: Pick<AsrankContext, 'listTotals' | 'dataVersion'>,
  query: CountableQuery,
  scope: string | null,
  turnFirst = false,
): Promise<number> {
  if (scope !== null) return context.listTotals.total(query, scope, await context.dataVersion(), turnFirst);
  return countRows(query);
}

/**
 * The count of a month's ranked records (`ranked`: the list's query narrowed to them) kept among the totals under
 * `scope` (monthListScope), for listPage's `rankedTotal`; undefined when the list's total is not kept either.
 */
export function rankedListTotal(
  context: Pick<AsrankContext, 'listTotals' | 'dataVersion'>,
  scope: string | null,
): ((ranked: CountableQuery) => Promise<number>) | undefined {
  return scope === null ? undefined : (ranked) => listTotal(context, ranked, `${scope}\u0000ranked`);
}

/** A list's totals month by month (monthTotals). */
export interface MonthTotals {
  /** The rows of the list in `month`. */
  of(month: string): Promise<number>;
  /** The rows of the list over `months`: the list's totalCount over several months. */
  sum(months: readonly string[]): Promise<number>;
}

/**
 * A list's totals month by month, with no filter but those named in `filter` (which must not depend on the months, as
 * a name filter's candidates do; `ofMonth`: the list in that one month), each kept as listTotal keeps a month's list:
 * what a page read month by month skips by (monthByMonth.ts), and, summed, the totalCount over several months, so a
 * client paging through a year's history counts each month once. On SQLite, whose statements run on the service's
 * thread, each month is counted in a turn of the event loop of its own, one after another: twelve generated months of
 * links counted at once held every other request for 0.55 s (twenty relationship blocks: 0.41 s), a month's count
 * taking ~45 ms. PostgreSQL counts them at once.
 */
export function monthTotals(
  context: Pick<AsrankContext, 'listTotals' | 'dataVersion' | 'dialect'>,
  table: string,
  filter: Readonly<Record<string, string | number | boolean | null | undefined>>,
  ofMonth: (month: string) => CountableQuery,
): MonthTotals {
  const of = (month: string) =>
    listTotal(context, ofMonth(month), monthListScope(table, [month], filter), context.dialect === 'sqlite');
  return {
    of,
    async sum(months) {
      const totals = await mapOnStore(context.dialect, months, of);
      return totals.reduce((sum, total) => sum + total, 0);
    },
  };
}

/** The number of rows `query` selects, counted by the database. */
export async function countRows(query: CountableQuery): Promise<number> {
  const row = await query.select((eb) => eb.fn.countAll().as('total')).executeTakeFirst();
  return toCount(row?.total as number | string | undefined);
}

/**
 * The scope of a list's total: its months (several are named one by one; a scope too long to keep is counted every
 * time, see ListTotals) and no filter but those named in `filter`. The scope is the same whatever the order of the
 * filter's names, and a filter not given (null or undefined) is left out, so every caller names one list alike
 * (storedListTotals among them).
 */
export function monthListScope(
  table: string,
  months: readonly string[],
  filter: Readonly<Record<string, string | number | boolean | null | undefined>>,
): string | null {
  if (months.length === 0) return null;
  const given = Object.entries(filter)
    .filter(([, value]) => value != null)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return [table, months.join(','), ...given.map(([name, value]) => `${name}=${value}`)].join('\u0000');
}
