// Nested connections (Asn.asnLinks, Organization.members.asns, …) of many parents are answered together:
// one DataLoader per (relation, month, page, order) and, per batch, one query for the page rows of every parent plus
// one grouped count query. The rows query has two forms:
// - one windowed query (row_number() over (partition by parent)): it ranks every row of every parent, or where the
//   relation cuts each parent's rows by its own index range (cutRows) only those, and stays one short statement
//   however many parents a list of 10,000 nodes brings;
// - for a few parents, where the relation allows it (perParentPages): each parent's page cut by its own ORDER BY ...
//   LIMIT, joined with UNION ALL. The relation's index then serves each page: `asn(asn:"3356") { asnLinks(first:10) }`
//   reads 10 links, not all 4,945 of the ASN. Where the relation gives cuts, only for parents whose rows it reads in
//   stretches of their own (parentRows).
// Each parent's total comes from its own statement (ParentTotals); where the parents' records keep it, a page past the
// first reads it before the rows, and a parent of no more rows than the page's offset reads none.
import DataLoader from 'dataloader';
import { sql, type Expression, type RawBuilder } from 'kysely';
import type { AsrankContext } from './context';
import { boundLimit } from './sql';
import type { ConnectionPage } from './types/pageInfo';
import type { ConnectionNeeds } from './asnColumns';

export interface NestedPageQuery<P extends string | number, R = unknown> {
  /** A query that selects the node columns plus `parent_key`, restricted to the given parents and month. */
  rows(parents: P[]): Expression<unknown>;
  /**
   * `rows(parents)` are each parent's rows of the page alone, numbered in `order` (`position_in_parent`): the relation
   * ranks them itself, before it reads them whole.
   */
  numbered?: boolean;
  /** Column of the rows query that identifies the parent (for the window partition). */
  partitionColumn: string;
  order: RawBuilder<unknown>;
  /**
   * One parent's rows are found by an index that also serves `order` (or by one that cannot tempt the planner), so a
   * few parents may be read with one limited query each. Left out where a LIMIT makes SQLite walk an index of the
   * order over the whole month instead: sampled statistics rate (date, org_id) as unselective, and one
   * organization's 32 ASNs by rank took 83 ms that way against 1.6 ms windowed.
   */
  perParentPages?: boolean;
  /**
   * One parent's rows for the per-parent form, enough for any page that ends by row `end` in `order`, where the
   * relation reads them better than `rows([parent])` sorted: stretches each cut at `end` by an index (their union is
   * sorted again, at most a few of those).
   */
  parentRows?(parent: P, end: number): Expression<unknown>;
  /**
   * Every given parent's rows that a page ending at row `end` in `order` can show (at least its first `end`, with
   * `parent_key`), each parent's cut by its own index range: the windowed form then ranks those, not every row of
   * every parent (`asns(first: 1000) { asnLinks(first: 1) }`: the links of the 1,000 largest ASes). Asynchronous
   * where the relation reads something of the parents first to cut them: only a batch read in this form pays that.
   */
  cutRows?(parents: P[], end: number): Expression<unknown> | Promise<Expression<unknown>>;
  /**
   * Every given parent's rows of `page` alone (with `parent_key`), each parent's cut by its own index range past
   * `page.offset`, in `order`: a page past the first then ranks only its own rows, where cutRows' rank every row up to
   * the page's end (the real month's 50 largest ASes' links at offset 1,000: 50,250 rows ranked).
   */
  cutPages?(parents: P[], page: { first: number; offset: number }): Expression<unknown>;
  /**
   * A batch of one parent's page (its rows, without `parent_key`), where the relation reads one parent's page better
   * alone than either form: `asn(asn) { asnLinks }`, whose neighbours' records come with the page as the root list's.
   */
  singleParentPage?(parent: P): Promise<R[]>;
}

/** A statement reading `parent_key` and `total` (each parent's rows). */
export interface CountsQuery {
  execute(): Promise<{ parent_key: unknown; total: unknown }[]>;
}

/** Each parent's total of a nested connection. */
export interface ParentTotals<P extends string | number> {
  /** The parents' totals, one statement; a parent it leaves out has none. */
  counts(parents: P[]): CountsQuery;
  /**
   * `counts` reads a count each parent's record keeps, no row counted: a page past the first reads it first
   * (nestedPageTuning.keptTotalsFirst).
   */
  kept: boolean;
}

export const nestedPageTuning = {
  /**
   * Parents of a batch that may read in the per-parent form (one limited query per parent, UNION ALL, one statement).
   * Under SQLite's limit of 500 terms in a compound statement.
   */
  perParentMaxParents: 50,
  /**
   * ...and where the relation gives cuts (cutRows), parents whose rows it reads in stretches (parentRows) up to this
   * many: the windowed cuts read other pages faster whatever the number of parents (the first 5 links of 50 ASes by
   * rank: 11.6 ms against 22.0 per parent on SQLite; by relationship on PostgreSQL 40 against 409), but a few
   * parents' pages by relationship deep into their links slower (four ASes: 8.4 against 6.4).
   */
  perParentBesideCuts: 8,
  /** The windowed form ranks each parent's cut rows where the relation gives them (cutRows), not all of its rows. */
  windowedCuts: true,
  /** ...and past the first page only each parent's page, where the relation cuts it (cutPages). */
  windowedPageCuts: true,
  /**
   * A page past the first (offset > 0) reads its parents' kept totals (ParentTotals.kept) before it builds and reads
   * its rows, for only the parents of more rows than its offset: the others' pages are empty. Every parent's rows were
   * cut or sorted to the page's end and found short of it (the real month's 100 largest organizations' neighbours at
   * offset 100,000: 247 ms on SQLite, 450 on PostgreSQL). It costs a page whose parents all reach its offset the
   * totals' statement before its rows (PostgreSQL's round trip; on SQLite one key lookup a parent), and where the
   * client reads no totalCount the statement itself. false: the totals alongside the rows, as for a first page.
   */
  keptTotalsFirst: true,
};

type PagedRow<R, P> = R & { parent_key: P; position_in_parent: number };

/** Every parent's page in one windowed query: each parent's rows (or its cut rows) ranked, then cut to the page. */
async function windowedRows<P extends string | number, R>(
  query: NestedPageQuery<P>,
  parents: P[],
  page: { first: number; offset: number },
) {
  if (query.numbered)
    return sql<PagedRow<R, P>>`select * from ${query.rows(parents)} paged order by position_in_parent`;
  if (query.cutPages && page.offset > 0 && nestedPageTuning.windowedCuts && nestedPageTuning.windowedPageCuts)
    return sql<PagedRow<R, P>>`select * from (
        select w.*, ${page.offset} + row_number() over (partition by ${sql.ref(query.partitionColumn)} order by ${query.order}) as position_in_parent
        from ${query.cutPages(parents, page)} w
      ) paged
      order by position_in_parent`;
  const rows =
    query.cutRows && nestedPageTuning.windowedCuts
      ? await query.cutRows(parents, page.offset + page.first)
      : query.rows(parents);
  return sql<PagedRow<R, P>>`select * from (
      select w.*, row_number() over (partition by ${sql.ref(query.partitionColumn)} order by ${query.order}) as position_in_parent
      from ${rows} w
    ) paged
    where position_in_parent > ${page.offset} and position_in_parent <= ${page.offset + page.first}
    order by position_in_parent`;
}

/**
 * Each parent's page cut by its own ORDER BY ... LIMIT, the pages joined by UNION ALL. The row number is taken over
 * the page's rows only, to keep each parent's order (a derived table's ORDER BY does not order the outer select).
 */
function perParentRows<P extends string | number, R>(
  query: NestedPageQuery<P>,
  parents: P[],
  page: { first: number; offset: number },
) {
  const rowsOf = (parent: P) =>
    query.parentRows ? query.parentRows(parent, page.offset + page.first) : query.rows([parent]);
  const pageOfParent = (parent: P) =>
    sql`select cut.*, ${page.offset} + row_number() over (order by ${query.order}) as position_in_parent
      from (select * from ${rowsOf(parent)} w order by ${query.order}
        ${boundLimit(page.first)} offset ${page.offset}) cut`;
  const pages = parents.map(pageOfParent);
  return sql<
    PagedRow<R, P>
  >`select * from (${sql.join(pages, sql` union all `)}) pages order by position_in_parent`;
}

/**
 * The loader of `loaderKey`'s pages for this request. `build` makes each batch's query, knowing its parents (those
 * whose pages can hold rows). `needs` (connectionNeeds) says what the client reads of them: the rows or the counts a
 * batch would read for nothing are not read (the page then holds no nodes, or a total of 0, which nothing reads).
 */
export function nestedPage<P extends string | number, R>(
  context: AsrankContext,
  loaderKey: string,
  page: { first: number; offset: number },
  build: (parents: P[]) => NestedPageQuery<P, R> | Promise<NestedPageQuery<P, R>>,
  totals: ParentTotals<P>,
  needs: ConnectionNeeds = { nodes: true, total: true },
): DataLoader<P, ConnectionPage<R>> {
  const key = `${loaderKey}|${page.first}|${page.offset}|${needs.nodes ? 'nodes' : ''}|${needs.total ? 'total' : ''}`;
  let loader = context.pageLoaders.get(key) as DataLoader<P, ConnectionPage<R>> | undefined;
  if (!loader) {
    loader = new DataLoader<P, ConnectionPage<R>>(async (parents) => {
      const unique = [...new Set(parents)];
      const totalsFirst = needs.nodes && page.offset > 0 && totals.kept && nestedPageTuning.keptTotalsFirst;
      const countedFirst = totalsFirst ? totalsByParent(await totals.counts(unique).execute()) : undefined;
      const withRows = countedFirst
        ? unique.filter((parent) => (countedFirst.get(String(parent)) ?? 0) > page.offset)
        : unique;
      const nodesByParent = new Map<string, R[]>();
      const counted =
        countedFirst !== undefined
          ? Promise.resolve(countedFirst)
          : needs.total
            ? totals.counts(unique).execute().then(totalsByParent)
            : Promise.resolve(new Map<string, number>());
      const readNodes = async () => {
        if (!needs.nodes || withRows.length === 0) return;
        const query = await build(withRows);
        if (withRows.length === 1 && query.singleParentPage) {
          nodesByParent.set(String(withRows[0]), await query.singleParentPage(withRows[0]!));
          return;
        }
        const perParent =
          query.perParentPages === true &&
          !query.numbered &&
          (query.cutRows && nestedPageTuning.windowedCuts
            ? query.parentRows !== undefined && withRows.length <= nestedPageTuning.perParentBesideCuts
            : withRows.length <= nestedPageTuning.perParentMaxParents);
        const rowsQuery = perParent
          ? perParentRows<P, R>(query, withRows, page)
          : await windowedRows<P, R>(query, withRows, page);
        // Kysely parenthesises an embedded query, so `from ${rows} w` is a derived table.
        for (const { position_in_parent: _position, ...row } of (await rowsQuery.execute(context.db)).rows) {
          const parentKey = String(row.parent_key);
          const list = nodesByParent.get(parentKey) ?? [];
          list.push(row as unknown as R);
          nodesByParent.set(parentKey, list);
        }
      };
      const [, totalOf] = await Promise.all([readNodes(), counted]);
      return parents.map((parent) => ({
        nodes: nodesByParent.get(String(parent)) ?? [],
        totalCount: totalOf.get(String(parent)) ?? 0,
        first: page.first,
        offset: page.offset,
      }));
    });
    context.pageLoaders.set(key, loader as DataLoader<unknown, unknown, string>);
  }
  return loader;
}

/** The totals a counts statement read, by parent key. */
function totalsByParent(rows: readonly { parent_key: unknown; total: unknown }[]): Map<string, number> {
  return new Map(rows.map((row) => [String(row.parent_key), Number(row.total)]));
}
