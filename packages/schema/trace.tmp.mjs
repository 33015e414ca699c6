// Lists the statements (with times) one query runs, after a warm-up ask. node trace.mjs STORE QUERY
import { createRequire } from 'node:module';
const require = createRequire('/work/main/packages/schema/package.json');
const { graphql } = require('graphql');
const { createSchema, createContext, createStoreFacts } = require('/work/main/packages/schema/dist/index.js');
const { openDatabase } = require('/work/main/packages/db/dist/index.js');
const base = openDatabase(process.argv[2], process.env.RO ? { readonly: true } : {});
const started = new Map();
const sqls = new Map();
let log = [];
const plugin = {
  transformQuery(args) { started.set(args.queryId, process.hrtime.bigint()); { const c = base.db.getExecutor().compileQuery(args.node, args.queryId); sqls.set(args.queryId, c.sql + " -- " + JSON.stringify(c.parameters)); } return args.node; },
  async transformResult(args) {
    const t = started.get(args.queryId);
    log.push({ ms: t ? Number(process.hrtime.bigint() - t) / 1e6 : NaN, rows: args.result.rows.length, sql: (sqls.get(args.queryId) ?? "") });
    return args.result;
  },
};
const compiler = base.db.getExecutor().adapter;
const handle = { ...base, db: base.db.withPlugin(plugin), postgres: undefined, postgresPipelined: undefined };

const origCompile = handle.db.getExecutor().compileQuery.bind(handle.db.getExecutor());
const schema = createSchema();
const facts = createStoreFacts(handle);
for (let i = 0; i < 3; i++) {
  log = [];
  const t0 = process.hrtime.bigint();
  const result = await graphql({ schema, source: process.argv[3], contextValue: createContext(handle, { facts }) });
  const total = Number(process.hrtime.bigint() - t0) / 1e6;
  if (result.errors) throw new Error(result.errors[0].message);
  if (i === 2) { console.log(`total ${total.toFixed(2)} ms, ${log.length} statements`); for (const l of log) console.log(l); }
}
await base.close();
