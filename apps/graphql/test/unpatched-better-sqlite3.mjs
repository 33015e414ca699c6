// Preloaded (NODE_OPTIONS=--import) by main.test.ts: better-sqlite3 as a prebuilt binary, without the project's
// patch, has no statementTimeout. Taken off the prototype of the module the service then loads.
import { createRequire } from 'node:module';

const BetterSqlite3 = createRequire(import.meta.url)('better-sqlite3');
delete BetterSqlite3.prototype.statementTimeout;
