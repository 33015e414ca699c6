// SQLite's statements run on the service's only thread; PostgreSQL's are round trips that leave it free. Work of many
// statements that one request waits for lets the event loop turn between them on SQLite (pageBookmarks.ts HeldTurn,
// listTotals.ts), so that other requests are answered meanwhile. Several such pieces started at once would all resume
// in the same turn and each take its share of it (twelve months' bookmarks at once: 60-100 ms a turn, lookups waiting
// up to 0.6 s), so on SQLite they run one after another; on PostgreSQL at once, their round trips in flight together.
import type { DialectName } from '@asrank/db';

/** `run` over `items`, its results in their order: at once on PostgreSQL, one item after another on SQLite. */
export async function mapOnStore<Item, Result>(
  dialect: DialectName,
  items: readonly Item[],
  run: (item: Item) => Promise<Result>,
): Promise<Result[]> {
  if (dialect === 'postgres') return Promise.all(items.map((item) => run(item)));
  const results: Result[] = [];
  for (const item of items) results.push(await run(item));
  return results;
}
