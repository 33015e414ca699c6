// A shallow page of a list over several months, in an order that does not start with the month, read as one arm per
// month: each month's stretch in the page's order, cut at `offset + first`, then the arms merged in the order and the
// page cut from them. One statement over the months cannot use a month's index for the order (the months' rows
// interleave), so it sorted every row of them: on PostgreSQL the first 100 links of 12 generated months by
// `correctedBy`, `relationship` or `numberPaths` took 1.5-2.4 s, on SQLite by `numberPaths` 1.2 s (docs/performance.md,
// fifty-second round). An arm whose month's index serves its order stops after `offset + first` index entries.
// An arm whose order no index serves sorts its month instead, and twelve such arms cost more than the one statement
// (`-correctedBy` on SQLite: 0.7 -> 7.4 s, its index serving only its first term). Whether an index serves it is
// the database's own answer: the arm's plan, read once per statement shape, must not sort.
import {
  CompiledQuery,
  sql,
  type Compilable,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
} from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Database, DialectName } from '@asrank/db';
import { perHandle } from './perHandle';

export const monthArmsTuning = {
  /** Rows an arm reads at most (`offset + first`); a deeper page is one statement over the months. */
  maxArmRows: 5000,
  /** Off only to compare the two forms, in tests. */
  enabled: true,
  /**
   * Arms whatever the plan says (tests: a sample store is small enough for PostgreSQL to sort a month rather than
   * walk its index, and the arms' answers must be checked all the same).
   */
  forced: false,
  /**
   * A list filtered by name over several months by one nullable column with few ties (`-rank`): its valued records from
   * the arms, then the others (listPage; off only to compare, in tests).
   */
  nullableApart: true,
};

/** Plan verdicts per handle, by the arm's SQL text (its month is a parameter, so one text stands for every month). */
const verdictsOf = perHandle<object, LRUCache<string, Promise<boolean>>>(() => new LRUCache({ max: 256 }));

/**
 * A plan line that sorts rows: SQLite's temporary B-tree for an ORDER BY, PostgreSQL's Sort or Incremental Sort. With
 * `withinFirstKey`, a sort of each run of rows that share the order's first key (SQLite's "LAST TERM(S) OF ORDER BY",
 * in older versions "RIGHT PART", PostgreSQL's Incremental Sort presorted on that key) does not count: the index still
 * hands the rows over in that key, so the arm stops after `offset + first` rows and the runs it sorted.
 */
export function planLineSorts(dialect: DialectName, line: string, withinFirstKey: string | null): boolean {
  if (dialect === 'sqlite') {
    if (!/TEMP B-TREE/.test(line)) return false;
    return withinFirstKey === null || !/FOR (RIGHT PART|LAST TERM|LAST \d+ TERMS) OF ORDER BY/.test(line);
  }
  if (withinFirstKey !== null && /Incremental Sort\b/.test(line)) return false;
  if (withinFirstKey !== null && /^\s*Presorted Key:/.test(line)) {
    // Presorted on another key than the order's first (the month's, say) would sort every run of the month.
    return !new RegExp(`^\\s*Presorted Key: (\\w+\\.)?${withinFirstKey}\\b`).test(line);
  }
  return /\bSort\b/.test(line) && !/^\s*Sort Key:/.test(line);
}

/**
 * Whether the database reads `arm` (one month's rows in the page's order, cut) from an index, without a sort.
 * `withinFirstKey` names the order's first column when few rows share one of its values (an ASN's links in a month):
 * a sort within each such run is then allowed.
 */
export function servedByIndex(
  db: Kysely<Database>,
  dialect: DialectName,
  arm: Compilable,
  withinFirstKey: string | null = null,
): Promise<boolean> {
  if (monthArmsTuning.forced) return Promise.resolve(true);
  const compiled = arm.compile();
  const verdicts = verdictsOf(db);
  const verdictKey = `${withinFirstKey ?? ''}\n${compiled.sql}`;
  let verdict = verdicts.get(verdictKey);
  if (!verdict) {
    const explain = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
    verdict = db
      .executeQuery<Record<string, unknown>>(
        CompiledQuery.raw(explain + compiled.sql, [...compiled.parameters]),
      )
      .then(
        ({ rows }) =>
          !rows.some((row) =>
            planLineSorts(dialect, String(row['detail'] ?? row['QUERY PLAN'] ?? ''), withinFirstKey),
          ),
      );
    verdicts.set(verdictKey, verdict);
    // A failed plan read is not kept: the page falls back to one statement, and the next one asks again.
    verdict.catch(() => verdicts.delete(verdictKey));
  }
  return verdict.catch(() => false);
}

/**
 * Whether a page of `first` rows at `offset` is shallow enough to read as `arms` arms (one per month, or per month and
 * value of the order's first key): within maxArmRows, or before `until`, where the caller has no other read of the
 * order from an index (the months' bookmarks start there).
 */
export function readsByMonthArms(arms: number, offset: number, first: number, until = 0): boolean {
  return (
    monthArmsTuning.enabled && arms > 1 && (offset + first <= monthArmsTuning.maxArmRows || offset < until)
  );
}

/**
 * The page cut from `arms` (each one month's stretch in the page's order, cut at `offset + first`): the arms united,
 * sorted again by `order` (which names only columns every arm selects), and `columns` of the page's rows, each under
 * its own name.
 *
 * On SQLite the arms are the plain members of one compound SELECT, ordered and cut as a whole: SQLite merges members
 * that come in the order (MERGE UNION ALL, each a co-routine walking its index) and stops at the page's end, as
 * pageAfter's parts do. As subqueries each arm was read to its LIMIT, then sorted again with every other arm's rows:
 * 12 generated months of links by `-asn0` at offset 4,800 (48 arms of 4,900 links) took ~150 ms, as members ~6 ms.
 * PostgreSQL keeps each arm's LIMIT (its Merge Append of index scans stops each arm there).
 */
export function mergedArms(
  db: Kysely<Database>,
  dialect: DialectName,
  arms: readonly SelectQueryBuilder<Database, keyof Database, object>[],
  columns: readonly { column: string; as: string }[],
  order: RawBuilder<unknown>,
  limit: number,
  offset: number,
) {
  const selectColumns = columns.map(({ column, as }) => sql.ref(column).as(as));
  if (dialect === 'sqlite') {
    const members = arms.map((arm) => arm.clearOrderBy().clearLimit().clearOffset());
    const compound = members
      .slice(1)
      .reduce((union, next) => union.unionAll(next), members[0]!)
      .orderBy(order)
      .limit(limit)
      .offset(offset);
    // The page's rows under their own names, in the order again (a sort of the page alone).
    return db.selectFrom(compound.as('arms')).select(selectColumns).orderBy(order);
  }
  const selected = arms.map((arm, index) => db.selectFrom(arm.as(`arm_${index}`)).selectAll());
  const united = selected.slice(1).reduce((union, next) => union.unionAll(next), selected[0]!);
  return db.selectFrom(united.as('arms')).select(selectColumns).orderBy(order).limit(limit).offset(offset);
}
