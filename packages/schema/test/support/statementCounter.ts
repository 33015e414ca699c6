// Counts the statements a test's queries execute through a handle (`db.withPlugin(counter)`, or `throughPlugin`).
import type {
  CompiledQuery,
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type { DatabaseHandle } from '@asrank/db';

/**
 * Statements executed through a handle (transformResult runs once per executed query, unlike transformQuery), and
 * the rows they returned; with `counts`, only the statements whose query tree (as JSON) it accepts.
 */
export class StatementCounter implements KyselyPlugin {
  executed = 0;
  rows = 0;
  /** The rows of every statement counted, in the order they came. */
  readonly returned: UnknownRow[] = [];
  private readonly counted = new WeakSet<object>();
  constructor(private readonly counts?: (tree: string) => boolean) {}
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.counts?.(JSON.stringify(args.node))) this.counted.add(args.queryId);
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    // Without `counts`, every result: a statement compiled elsewhere (CompiledQuery.raw) is never transformed here.
    if (!this.counts || this.counted.has(args.queryId)) {
      this.executed += 1;
      this.rows += args.result.rows.length;
      this.returned.push(...args.result.rows);
    }
    return args.result;
  }
}

/**
 * `handle` with every statement through `plugin`: without the pg pool and pipelined connection, the statements that
 * would run as named prepared statements or on the pipelined connection run through Kysely too.
 */
export function throughPlugin(handle: DatabaseHandle, plugin: KyselyPlugin): DatabaseHandle {
  return { ...handle, db: handle.db.withPlugin(plugin), postgres: undefined, postgresPipelined: undefined };
}

/**
 * The statements Kysely runs through a handle, compiled with their parameters, in the order they ran. A query is
 * compiled as it is built; its subqueries are built too, but only the statement that runs gets a result.
 */
export class RunStatements implements KyselyPlugin {
  readonly statements: CompiledQuery[] = [];
  private readonly built = new Map<unknown, CompiledQuery>();
  constructor(private readonly handle: DatabaseHandle) {}
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.built.set(args.queryId, this.handle.db.getExecutor().compileQuery(args.node, args.queryId));
    return args.node;
  }
  async transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const run = this.built.get(queryId);
    if (run) this.statements.push(run);
    return result;
  }
}

/** Every statement Kysely builds through a handle, run or not, compiled with its parameters, in the order built. */
export class BuiltStatements implements KyselyPlugin {
  readonly statements: CompiledQuery[] = [];
  constructor(private readonly handle: DatabaseHandle) {}
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.statements.push(this.handle.db.getExecutor().compileQuery(args.node, args.queryId));
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
