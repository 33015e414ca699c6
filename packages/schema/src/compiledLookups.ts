// Lookups of one record by its key (`asn(asn:)`, the organization of an ASN): the service's most frequent
// statements, run from SQL compiled once per query shape. Building and compiling the Kysely query on every request
// cost more CPU than executing it: the W1 point lookup took 380-420 µs of CPU per request in-process, 280-330 with
// its two lookups compiled once (docs/performance.md). Kysely's compile-time plugins do not see these executions,
// so the caller's statement observer times them (the service's database query metric).
import { createQueryId, type Compilable, type CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '@asrank/db';

/** Times one executed statement by kind and first table (the service's database query histogram). */
export type StatementObserver = (kind: string, table: string, seconds: number) => void;

const compiledByDb = new WeakMap<Kysely<Database>, Map<string, CompiledQuery>>();
/** Shapes kept per database: the selected columns make the shape, so hostile variety must not grow it. */
const MAX_SHAPES = 256;

/**
 * Runs the query `build` makes from `placeholders`, compiled on first use per database instance and `shape`, with
 * `values` bound in their place. The compiled parameters must be exactly the placeholders, in order, so a shape
 * that binds anything else fails at its first use instead of binding values to the wrong places.
 */
export async function runCompiled<Row>(
  db: Kysely<Database>,
  shape: string,
  table: string,
  build: (...placeholders: unknown[]) => Compilable<Row>,
  placeholders: readonly unknown[],
  values: readonly unknown[],
  observe?: StatementObserver,
): Promise<Row[]> {
  let shapes = compiledByDb.get(db);
  if (!shapes) {
    shapes = new Map();
    compiledByDb.set(db, shapes);
  }
  let compiled = shapes.get(shape) as CompiledQuery<Row> | undefined;
  if (!compiled) {
    compiled = build(...placeholders).compile();
    const bound = compiled.parameters;
    if (bound.length !== placeholders.length || bound.some((value, index) => value !== placeholders[index]))
      throw new Error(`compiled lookup ${shape} binds ${JSON.stringify(bound)}, not its placeholders`);
    if (shapes.size < MAX_SHAPES) shapes.set(shape, compiled);
  }
  const started = observe ? process.hrtime.bigint() : 0n;
  const result = await db.executeQuery<Row>({ ...compiled, parameters: values, queryId: createQueryId() });
  observe?.('select', table, Number(process.hrtime.bigint() - started) / 1e9);
  return result.rows;
}
