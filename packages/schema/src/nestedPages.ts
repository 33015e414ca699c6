// Nested connections (Asn.asnLinks, Organization.members.asns, …) of many parents are answered together:
// one DataLoader per (relation, month, page, order) and, per batch, one windowed query
// (row_number() over (partition by parent)) for the page rows plus one grouped count query.
import DataLoader from 'dataloader';
import { sql, type Expression, type RawBuilder } from 'kysely';
import type { AsrankContext } from './context';
import type { ConnectionPage } from './types/pageInfo';

export interface NestedPageQuery<P extends string | number> {
  /** A query that selects the node columns plus `parent_key`, restricted to the given parents and month. */
  rows(parents: P[]): Expression<unknown>;
  /** A query that selects `parent_key` and `total` (count per parent). */
  counts(parents: P[]): { execute(): Promise<{ parent_key: unknown; total: unknown }[]> };
  /** Column of the rows query that identifies the parent (for the window partition). */
  partitionColumn: string;
  order: RawBuilder<unknown>;
}

export function nestedPage<P extends string | number, R>(
  context: AsrankContext,
  loaderKey: string,
  page: { first: number; offset: number },
  build: () => NestedPageQuery<P>,
): DataLoader<P, ConnectionPage<R>> {
  const key = `${loaderKey}|${page.first}|${page.offset}`;
  let loader = context.pageLoaders.get(key) as DataLoader<P, ConnectionPage<R>> | undefined;
  if (!loader) {
    loader = new DataLoader<P, ConnectionPage<R>>(async (parents) => {
      const query = build();
      const unique = [...new Set(parents)];
      const [rows, counts] = await Promise.all([
        sql<R & { parent_key: P; position_in_parent: number }>`select * from (
            select w.*, row_number() over (partition by ${sql.ref(query.partitionColumn)} order by ${query.order}) as position_in_parent
            from ${query.rows(unique)} w
          ) paged
          where position_in_parent > ${page.offset} and position_in_parent <= ${page.offset + page.first}
          order by position_in_parent`.execute(context.db),
        query.counts(unique).execute(),
      ]);
      const nodesByParent = new Map<string, R[]>();
      // Kysely parenthesises an embedded query, so `from ${rows} w` is a derived table.
      for (const { position_in_parent: _position, ...row } of rows.rows) {
        const parentKey = String(row.parent_key);
        const list = nodesByParent.get(parentKey) ?? [];
        list.push(row as unknown as R);
        nodesByParent.set(parentKey, list);
      }
      const totals = new Map(counts.map((row) => [String(row.parent_key), Number(row.total)]));
      return parents.map((parent) => ({
        nodes: nodesByParent.get(String(parent)) ?? [],
        totalCount: totals.get(String(parent)) ?? 0,
        first: page.first,
        offset: page.offset,
      }));
    });
    context.pageLoaders.set(key, loader as DataLoader<unknown, unknown, string>);
  }
  return loader;
}
