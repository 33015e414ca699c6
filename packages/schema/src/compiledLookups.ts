// Lookups of one record by its key (`asn(asn:)`, the organization of an ASN): the service's most frequent
// statements, run from SQL compiled once per query shape. Building and compiling the Kysely query on every request
// cost more CPU than executing it: the W1 point lookup took 380-420 µs of CPU per request in-process, 280-330 with
// its two lookups compiled once (docs/performance.md). Kysely's compile-time plugins do not see these executions,
// so the caller's statement observer times them (the service's database query metric).
// On PostgreSQL they run as named prepared statements: Kysely's driver sends every statement unnamed, so the server
// parses and plans each execution again (W1's statements: 328 µs per request unnamed, 109 µs named, measured with
// pg at 10 connections). Only statements whose plan does not depend on their values are named (these key lookups,
// and what callers pass to runPrepared, such as one ASN's neighbour page, or compile, such as a list page with its
// LIMIT written in), so a generic plan is as good as a custom one: they run in the handle's pool whose sessions plan
// every statement once, generically (@asrank/db connection.ts). Their texts are bounded (MAX_PREPARED); beyond, a
// statement runs unnamed through Kysely, planned for its values.
import { createQueryId, sql, type Compilable, type CompiledQuery, type Kysely } from 'kysely';
import {
  rowObjectBuilder,
  type Database,
  type DatabaseHandle,
  type DialectName,
  type PostgresQueryable,
} from '@asrank/db';
import { perHandle } from './perHandle';

/** Times one executed statement by kind and first table (the service's database query histogram). */
export type StatementObserver = (kind: string, table: string, seconds: number) => void;

/** A statement compiled once, and for each of its parameters the index of the placeholder bound there. */
interface CompiledShape {
  compiled: CompiledQuery;
  placeholderAt: number[];
  /** Whether each placeholder is bound once, in its order (values then bind as given). */
  inOrder: boolean;
}

const compiledShapesOf = perHandle<Kysely<Database>, Map<string, CompiledShape>>(() => new Map());
/** Shapes kept per database: the selected columns make the shape, so hostile variety must not grow it. */
const MAX_SHAPES = 256;

/**
 * How often a named statement's text is expected to run: `frequent` (lookups, a month's pages), `occasional` (pages
 * over several months, whose texts vary with the months, the order and the columns) or `bracket` (the counts that
 * place a deep page over several months, whose texts vary with the threshold's month too: monthsBookmarks.ts).
 */
export type PreparedKind = 'frequent' | 'occasional' | 'bracket';

/** Names of the prepared statements, by SQL text (pg requires one text per name on a connection). */
const preparedNames = new Map<string, string>();
/**
 * Prepared statements per connection at most, by kind; texts beyond run unnamed. The occasional ones and the
 * brackets have budgets of their own, so that however many shapes of several months' pages a client asks, they never
 * take the names the point lookups need (unnamed, W1's statements cost three times the server's time), nor the
 * brackets those of the pages.
 */
const MAX_PREPARED: Record<PreparedKind, number> = { frequent: 256, occasional: 128, bracket: 64 };
const namedOfKind: Record<PreparedKind, number> = { frequent: 0, occasional: 0, bracket: 0 };

function preparedName(text: string, kind: PreparedKind): string | undefined {
  let name = preparedNames.get(text);
  if (name === undefined && namedOfKind[kind] < MAX_PREPARED[kind]) {
    namedOfKind[kind] += 1;
    name = `asrank_prepared_${preparedNames.size + 1}`;
    preparedNames.set(text, name);
  }
  return name;
}

/**
 * What running a compiled statement needs of a database handle; on PostgreSQL `postgres` runs the named statements (the
 * handle's pool, or its pipelined connection for short ones).
 */
export type PreparedHandle = Pick<DatabaseHandle, 'db' | 'readRows'> & { postgres?: PostgresQueryable };

/** Runs `compiled` with `values` bound, by the fastest way `handle` offers. */
async function rowsOf<Row>(
  handle: PreparedHandle,
  compiled: CompiledQuery<Row>,
  values: readonly unknown[],
  kind: PreparedKind,
): Promise<Row[]> {
  // better-sqlite3 runs synchronously anyway; Kysely's driver wraps the call in a connection mutex and a promise
  // chain, 7-10 µs of CPU per point lookup (docs/performance.md, sixteenth round). The service never opens a
  // transaction on its read-only connection, which is what that mutex would serialize.
  if (handle.readRows) return handle.readRows(compiled.sql, values) as Row[];
  const name = handle.postgres ? preparedName(compiled.sql, kind) : undefined;
  if (handle.postgres && name !== undefined) {
    // As arrays, made objects here: pg's own row objects get a hidden class per result (@asrank/db row-objects.ts).
    const result = await handle.postgres.query<unknown[]>({
      name,
      text: compiled.sql,
      values: [...values],
      rowMode: 'array',
    });
    return result.rows.map(rowObjectBuilder(result.fields.map((field) => field.name))) as Row[];
  }
  // Run with the values it was compiled with, the statement is its query's own execution, and the handle's plugins
  // see it under that query's id; a compiled shape bound again is a new execution.
  const queryId = values === compiled.parameters ? compiled.queryId : createQueryId();
  return (await handle.db.executeQuery<Row>({ ...compiled, parameters: values, queryId })).rows;
}

/**
 * Runs a compiled statement with `values` bound: on PostgreSQL as a named prepared statement (parsed and planned
 * once per connection, so only for statements whose plan does not depend on their values), on the service's SQLite
 * straight through its statement cache (`readRows`), else through Kysely.
 */
export async function runPrepared<Row>(
  handle: PreparedHandle,
  compiled: CompiledQuery<Row>,
  table: string,
  values: readonly unknown[] = compiled.parameters,
  observe?: StatementObserver,
  kind: PreparedKind = 'frequent',
): Promise<Row[]> {
  // performance.now(), not hrtime.bigint(): a double, no BigInt allocated twice per statement on the hot path.
  const started = observe ? performance.now() : 0;
  const rows = await rowsOf(handle, compiled, values, kind);
  observe?.('select', table, (performance.now() - started) / 1000);
  return rows;
}

/**
 * The statement `build` makes from `placeholders`, compiled on first use per database instance and `shape`, and its
 * parameters: `values[i]` wherever `placeholders[i]` is bound.
 */
function compiledWith<Row>(
  db: Kysely<Database>,
  shape: string,
  build: (...placeholders: unknown[]) => Compilable<Row>,
  placeholders: readonly unknown[],
  values: readonly unknown[],
): { compiled: CompiledQuery<Row>; parameters: unknown[] } {
  const shapes = compiledShapesOf(db);
  let known = shapes.get(shape);
  if (!known) {
    const compiled = build(...placeholders).compile();
    const placeholderAt = compiled.parameters.map((parameter) => placeholders.indexOf(parameter));
    if (placeholderAt.includes(-1))
      throw new Error(
        `compiled lookup ${shape} binds ${JSON.stringify(compiled.parameters)}, not only its placeholders`,
      );
    const inOrder =
      placeholderAt.length === placeholders.length && placeholderAt.every((at, index) => at === index);
    known = { compiled, placeholderAt, inOrder };
    if (shapes.size < MAX_SHAPES) shapes.set(shape, known);
  }
  return {
    compiled: known.compiled as CompiledQuery<Row>,
    // Most shapes bind each placeholder once, in order (the point lookups' date and key): their values as given.
    parameters:
      known.inOrder && values.length === known.placeholderAt.length
        ? (values as unknown[])
        : known.placeholderAt.map((index) => values[index]),
  };
}

/**
 * Runs the query `build` makes from `placeholders`, compiled on first use per database instance and `shape`, with
 * `values[i]` bound wherever `placeholders[i]` is (a placeholder may be bound several times, or not at all). Every
 * parameter of the compiled statement must be one of the placeholders, so a shape that binds anything else fails at
 * its first use instead of running later requests with this one's values.
 */
export async function runCompiled<Row>(
  handle: PreparedHandle,
  shape: string,
  table: string,
  build: (...placeholders: unknown[]) => Compilable<Row>,
  placeholders: readonly unknown[],
  values: readonly unknown[],
  observe?: StatementObserver,
): Promise<Row[]> {
  const { compiled, parameters } = compiledWith(handle.db, shape, build, placeholders, values);
  return runPrepared(handle, compiled, table, parameters, observe);
}

/**
 * runCompiled without waiting, when the handle reads synchronously (the service's SQLite, `readRows`); undefined
 * otherwise. better-sqlite3 answers at once, and the promises a lookup passes through on the way (the loader's, the
 * batch's, the statement's) were the point lookup's largest remaining cost of ours (docs/performance.md,
 * thirty-seventh round).
 */
export function runCompiledNow<Row>(
  handle: PreparedHandle,
  shape: string,
  table: string,
  build: (...placeholders: unknown[]) => Compilable<Row>,
  placeholders: readonly unknown[],
  values: readonly unknown[],
  observe?: StatementObserver,
): Row[] | undefined {
  if (!handle.readRows) return undefined;
  const { compiled, parameters } = compiledWith(handle.db, shape, build, placeholders, values);
  const started = observe ? performance.now() : 0;
  const rows = handle.readRows(compiled.sql, parameters) as Row[];
  observe?.('select', table, (performance.now() - started) / 1000);
  return rows;
}

/**
 * The LIMIT of a statement compiled once, and what it adds to the statement's shape. On PostgreSQL it is written in
 * as a literal: the named statement is planned once, generically, and a generic plan of `LIMIT $n` reckons with a
 * tenth of the table (a hash over the whole month: 40-80 ms for W2's page against 2 ms; docs/performance.md,
 * twenty-sixth round). Elsewhere it is `placeholder`, bound at each run. Null when PostgreSQL's LIMIT is not a whole
 * number: the caller builds its statement instead.
 */
export function compiledLimit(
  dialect: DialectName,
  limit: number,
  placeholder: unknown,
): { shape: string; bound: unknown } | null {
  if (dialect !== 'postgres') return { shape: '', bound: placeholder };
  return Number.isSafeInteger(limit) ? { shape: `|limit ${limit}`, bound: sql.lit(limit) } : null;
}
