// Service configuration, read from the environment once at start-up and validated against a JSON schema (Ajv, through
// service-kit's readEnvironment), so a bad value stops the process with one clear line instead of failing on the
// first request.
import { MAX_TIMER_MS, WORKERS_ENV_SCHEMA, readEnvironment, workerCount } from '@asrank/service-kit';
import { DEFAULT_DATABASE_URL } from '@asrank/db';

export interface GraphqlConfig {
  host: string;
  port: number;
  /** SQLite file path, `sqlite:PATH`, or `postgres://…`. */
  databaseUrl: string;
  /** '' or a path prefix such as '/v2' (no trailing slash) under which every route is served. */
  basePath: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Maximum selection depth of one operation (GraphiQL's own introspection query needs 14). */
  maxQueryDepth: number;
  /** Maximum estimated cost of one operation (see query-cost.ts for the model). */
  maxQueryCost: number;
  /** Maximum number of GraphQL tokens the parser accepts in one document. */
  maxQueryTokens: number;
  /** Maximum number of aliased fields in one document (see alias-limit.ts). */
  maxAliases: number;
  /** Most operations one POST may carry as a JSON array (a batch); 1 refuses batches. */
  maxBatchOperations: number;
  /** Maximum request body size in bytes. */
  bodyLimit: number;
  /** Time allowed to receive a whole request (Fastify requestTimeout), in ms. */
  requestTimeoutMs: number;
  /** Time limit of every statement of the service, in ms: PostgreSQL's statement_timeout, SQLite's interrupt. */
  statementTimeoutMs: number;
  /** Compile a query with graphql-jit once it has been seen this many times; 0 disables JIT. */
  jitAfter: number;
  /** `Cache-Control: max-age` of successful answers, in seconds. */
  cacheMaxAgeSeconds: number;
  /** Size of the in-process result cache in MiB; 0 disables it. */
  resultCacheMb: number;
  /** Event-loop delay (ms) above which requests are shed with 503; 0 disables the check. */
  maxEventLoopDelayMs: number;
  /** Heap size (bytes) above which requests are shed with 503; 0 disables the check. */
  maxHeapUsedBytes: number;
  /** Service processes sharing the port (Node cluster); 1 serves from the started process itself. */
  workers: number;
}

interface RawEnv {
  HOST: string;
  PORT: number;
  DATABASE_URL: string;
  BASE_PATH: string;
  LOG_LEVEL: GraphqlConfig['logLevel'];
  GRAPHQL_MAX_DEPTH: number;
  GRAPHQL_MAX_COST: number;
  GRAPHQL_MAX_TOKENS: number;
  GRAPHQL_MAX_ALIASES: number;
  GRAPHQL_MAX_BATCH: number;
  BODY_LIMIT: number;
  REQUEST_TIMEOUT_MS: number;
  DB_STATEMENT_TIMEOUT_MS: number;
  GRAPHQL_JIT_AFTER: number;
  CACHE_MAX_AGE_SECONDS: number;
  RESULT_CACHE_MB: number;
  MAX_EVENT_LOOP_DELAY_MS: number;
  MAX_HEAP_USED_BYTES: number;
  WORKERS: string;
}

const envJsonSchema = {
  type: 'object',
  required: [],
  properties: {
    HOST: { type: 'string', minLength: 1, default: '127.0.0.1' },
    PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 4000 },
    DATABASE_URL: { type: 'string', minLength: 1, default: DEFAULT_DATABASE_URL },
    // Path segments of URL-safe characters, each starting with '/'; a trailing '/' is tolerated.
    BASE_PATH: { type: 'string', pattern: '^(/[A-Za-z0-9._~-]+)*/?$', default: '' },
    LOG_LEVEL: {
      type: 'string',
      enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      default: 'info',
    },
    GRAPHQL_MAX_DEPTH: { type: 'integer', minimum: 2, maximum: 100, default: 15 },
    GRAPHQL_MAX_COST: { type: 'integer', minimum: 1, default: 500000 },
    GRAPHQL_MAX_TOKENS: { type: 'integer', minimum: 100, default: 20000 },
    GRAPHQL_MAX_ALIASES: { type: 'integer', minimum: 0, maximum: 10000, default: 50 },
    GRAPHQL_MAX_BATCH: { type: 'integer', minimum: 1, maximum: 1000, default: 16 },
    BODY_LIMIT: { type: 'integer', minimum: 1024, maximum: 104857600, default: 262144 },
    REQUEST_TIMEOUT_MS: { type: 'integer', minimum: 0, maximum: MAX_TIMER_MS, default: 30000 },
    DB_STATEMENT_TIMEOUT_MS: { type: 'integer', minimum: 0, maximum: MAX_TIMER_MS, default: 20000 },
    GRAPHQL_JIT_AFTER: { type: 'integer', minimum: 0, default: 1 },
    CACHE_MAX_AGE_SECONDS: { type: 'integer', minimum: 0, maximum: 31536000, default: 60 },
    RESULT_CACHE_MB: { type: 'integer', minimum: 0, maximum: 65536, default: 64 },
    // Off by default: SQLite queries are synchronous, so one large legitimate query (a long cone-stream page
    // on a full month) stalls the loop for seconds and would shed the requests queued behind it.
    MAX_EVENT_LOOP_DELAY_MS: { type: 'integer', minimum: 0, maximum: MAX_TIMER_MS, default: 0 },
    MAX_HEAP_USED_BYTES: { type: 'integer', minimum: 0, default: 0 },
    WORKERS: WORKERS_ENV_SCHEMA,
  },
} as const;

/** Thrown for a bad environment value; its message is one line naming the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Reads and validates the configuration. `env` defaults to process.env; tests pass their own object
 * (only the given keys are read, the rest take defaults).
 */
export function loadConfig(env: Record<string, string | number | undefined> = process.env): GraphqlConfig {
  let raw: RawEnv;
  try {
    raw = readEnvironment<RawEnv>(envJsonSchema, env);
  } catch (error) {
    throw new ConfigError(`invalid configuration: ${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    host: raw.HOST,
    port: raw.PORT,
    databaseUrl: raw.DATABASE_URL,
    basePath: raw.BASE_PATH.replace(/\/$/, ''),
    logLevel: raw.LOG_LEVEL,
    maxQueryDepth: raw.GRAPHQL_MAX_DEPTH,
    maxQueryCost: raw.GRAPHQL_MAX_COST,
    maxQueryTokens: raw.GRAPHQL_MAX_TOKENS,
    maxAliases: raw.GRAPHQL_MAX_ALIASES,
    maxBatchOperations: raw.GRAPHQL_MAX_BATCH,
    bodyLimit: raw.BODY_LIMIT,
    requestTimeoutMs: raw.REQUEST_TIMEOUT_MS,
    statementTimeoutMs: raw.DB_STATEMENT_TIMEOUT_MS,
    jitAfter: raw.GRAPHQL_JIT_AFTER,
    cacheMaxAgeSeconds: raw.CACHE_MAX_AGE_SECONDS,
    resultCacheMb: raw.RESULT_CACHE_MB,
    maxEventLoopDelayMs: raw.MAX_EVENT_LOOP_DELAY_MS,
    maxHeapUsedBytes: raw.MAX_HEAP_USED_BYTES,
    workers: workerCount(raw.WORKERS),
  };
}
