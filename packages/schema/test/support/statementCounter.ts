// Counts the statements a test's queries execute through a handle (`db.withPlugin(counter)`).
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

/** Statements executed through a handle (transformResult runs once per executed query, unlike transformQuery). */
export class StatementCounter implements KyselyPlugin {
  executed = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.executed += 1;
    return args.result;
  }
}
