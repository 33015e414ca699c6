// Kysely's SQLite dialect with one change to the SQL it writes: a LIMIT is `limit cast(? as integer)`, not `limit ?`.
//
// SQLite (3.4x) reads the value bound to `limit ?` while planning, and a statement whose plan read a bound value is
// planned again whenever that parameter is bound anew, which better-sqlite3 does on every run. Every paged read of
// the service was therefore compiled afresh on each execution, though the statement cache hands out a compiled
// statement: a 100-key page walk took 41 µs with `limit ?` against 13.5 µs with a literal LIMIT or with the cast
// (real December 2017 month, in a loop; docs/performance.md, eighth round). SQLite does not look into the cast while
// planning, so the plan is made once per statement, as for an unknown LIMIT. An OFFSET is not read while planning.
import { SqliteDialect, SqliteQueryCompiler, type LimitNode, type QueryCompiler } from 'kysely';

export class StableLimitSqliteQueryCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    this.append('limit cast(');
    this.visitNode(node.limit);
    this.append(' as integer)');
  }
}

export class StableLimitSqliteDialect extends SqliteDialect {
  override createQueryCompiler(): QueryCompiler {
    return new StableLimitSqliteQueryCompiler();
  }
}
