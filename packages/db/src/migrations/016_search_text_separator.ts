import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect';
import { fillMonthNameSearchStatements, monthsWithNames, searchText } from '../name-search';

// The names of a record's search text were joined by a space, so the `name` filter matched a needle running from one
// name into the next ("net ulsel" in "ulsel-net ulsel telecom llc"). Loads now join them with SEARCH_TEXT_SEPARATOR
// (name-search.ts); this rewrites the months already loaded from the names their rows hold, in JavaScript, because
// SQLite's lower() folds ASCII only and the loads fold as JavaScript does. A month at a time, each in a transaction on
// SQLite (PostgreSQL runs the whole migration in one), its trigram index rebuilt with it on SQLite (PostgreSQL's
// indexes follow the rows). Rerunning it rewrites nothing twice: only texts that differ are written.

/** Rows rewritten per statement, bound as one parameter (or two on PostgreSQL). */
const BATCH = 5000;

interface Rewrite {
  key: string | number;
  text: string;
}

async function writeTexts(
  db: Kysely<unknown>,
  dialect: DialectName,
  table: 'asns' | 'organizations',
  date: string,
  rewrites: readonly Rewrite[],
): Promise<void> {
  const key = table === 'asns' ? 'asn' : 'org_id';
  for (let start = 0; start < rewrites.length; start += BATCH) {
    const batch = rewrites.slice(start, start + BATCH);
    if (dialect === 'sqlite') {
      const pairs = JSON.stringify(batch.map((rewrite) => [rewrite.key, rewrite.text]));
      await sql`update ${sql.table(table)} set search_text = json_extract(j.value, '$[1]')
        from json_each(${pairs}) as j
        where ${sql.ref(`${table}.date`)} = ${date} and ${sql.ref(`${table}.${key}`)} = json_extract(j.value, '$[0]')`.execute(
        db,
      );
    } else {
      const keys = batch.map((rewrite) => rewrite.key);
      const texts = batch.map((rewrite) => rewrite.text);
      const keyType = table === 'asns' ? sql`bigint[]` : sql`text[]`;
      await sql`update ${sql.table(table)} set search_text = v.text
        from unnest(${keys}::${keyType}, ${texts}::text[]) as v (key, text)
        where ${sql.ref(`${table}.date`)} = ${date} and ${sql.ref(`${table}.${key}`)} = v.key`.execute(db);
    }
  }
}

/** Rewrites one month's texts that differ; returns how many. */
async function rewriteMonth(db: Kysely<unknown>, dialect: DialectName, date: string): Promise<number> {
  const asns = await sql<{
    asn: string | number;
    asn_name: string;
    org_name: string | null;
    search_text: string;
  }>`
    select asn, asn_name, org_name, search_text from asns where date = ${date}`.execute(db);
  const asnTexts = asns.rows
    .map((row) => ({
      key: row.asn,
      text: searchText(row.asn_name, row.org_name ?? ''),
      was: row.search_text,
    }))
    .filter((rewrite) => rewrite.text !== rewrite.was);
  await writeTexts(db, dialect, 'asns', date, asnTexts);
  const organizations = await sql<{ org_id: string; org_name: string; search_text: string }>`
    select org_id, org_name, search_text from organizations where date = ${date}`.execute(db);
  const organizationTexts = organizations.rows
    .map((row) => ({ key: row.org_id, text: searchText(row.org_name, row.org_id), was: row.search_text }))
    .filter((rewrite) => rewrite.text !== rewrite.was);
  await writeTexts(db, dialect, 'organizations', date, organizationTexts);
  const rewritten = asnTexts.length + organizationTexts.length;
  if (dialect === 'sqlite' && rewritten > 0)
    for (const statement of fillMonthNameSearchStatements(date)) await db.executeQuery(statement);
  return rewritten;
}

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  let rewritten = 0;
  for (const date of await monthsWithNames(db)) {
    rewritten +=
      dialect === 'sqlite'
        ? await db.transaction().execute((month) => rewriteMonth(month, dialect, date))
        : await rewriteMonth(db, dialect, date);
  }
  // Answers kept by data version (result caches, bookmarks) were made with the old texts.
  if (rewritten > 0)
    await sql`update meta set value = cast(cast(value as integer) + 1 as text) where key = 'data_version'`.execute(
      db,
    );
}
