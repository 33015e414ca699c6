export { buildGraphqlApp, type GraphqlAppOptions } from './app';
export { loadConfig, ConfigError, type GraphqlConfig } from './config';
export { DatabaseNotReadyError, withStatementTimeout } from './database';
export { queryCost, assertQueryCost } from './query-cost';
export { INTERNAL_ERROR_MESSAGE } from './errors';
export { SERVICE_NODE_FLAGS } from './node-flags';
export { codeCacheDirectory } from './code-cache';
