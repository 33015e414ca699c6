// Configuration of the REST service, read from the environment and validated once at start-up, so a bad
// value stops the process with one clear line instead of failing on the first request.
import { isIP } from 'node:net';
import { MAX_TIMER_MS, WORKERS_ENV_SCHEMA, readEnvironment, workerCount } from '@asrank/service-kit';

export interface RestConfig {
  port: number;
  host: string;
  /** Prefix of every route, '' or a path such as '/v2' (no trailing slash). */
  basePath: string;
  /** Address of the GraphQL endpoint this service forwards every request to. */
  graphqlUrl: string;
  /** Milliseconds allowed to open a connection to the GraphQL service. */
  graphqlConnectTimeoutMs: number;
  /** Milliseconds allowed for the GraphQL service to answer (headers, then body). */
  graphqlTimeoutMs: number;
  /** Keep-alive connections kept open to the GraphQL service. */
  graphqlConnections: number;
  /**
   * Most concurrent requests sent to the GraphQL service together, as one batch (a JSON array of operations);
   * 1 sends each alone. At most the GraphQL service's GRAPHQL_MAX_BATCH.
   */
  graphqlBatchMax: number;
  /** Upstream requests out at once before further calls wait to leave together (as many as GraphQL processes). */
  graphqlBatchesInFlight: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `Cache-Control: max-age` of successful answers, in seconds. */
  cacheMaxAgeSeconds: number;
  /** Event-loop delay (ms) above which requests are shed with 503; 0 disables the check. */
  maxEventLoopDelayMs: number;
  /** Heap size (bytes) above which requests are shed with 503; 0 disables the check. */
  maxHeapUsedBytes: number;
  /** Requests per client address per window; 0 (the default) turns the rate limit off. */
  rateLimitMax: number;
  rateLimitWindowMs: number;
  /**
   * Which proxies' X-Forwarded-For to trust, as Fastify takes it: true (all), false (none), or a list of proxy
   * addresses/CIDRs (only their additions are read, so a client cannot choose its rate-limit key).
   */
  trustProxy: boolean | string[];
  /** Longest wait for in-flight requests on SIGTERM before the process exits anyway. */
  shutdownTimeoutMs: number;
  /** Service processes sharing the port (Node cluster); 1 serves from the started process itself. */
  workers: number;
}

interface RestEnv {
  PORT: number;
  HOST: string;
  BASE_PATH: string;
  GRAPHQL_URL: string;
  GRAPHQL_CONNECT_TIMEOUT_MS: number;
  GRAPHQL_TIMEOUT_MS: number;
  GRAPHQL_CONNECTIONS: number;
  GRAPHQL_BATCH_MAX: number;
  GRAPHQL_BATCHES_IN_FLIGHT: number;
  LOG_LEVEL: RestConfig['logLevel'];
  CACHE_MAX_AGE_SECONDS: number;
  MAX_EVENT_LOOP_DELAY_MS: number;
  MAX_HEAP_USED_BYTES: number;
  RATE_LIMIT_MAX: number;
  RATE_LIMIT_WINDOW_MS: number;
  TRUST_PROXY: string;
  SHUTDOWN_TIMEOUT_MS: number;
  WORKERS: string;
}

const envJsonSchema = {
  type: 'object',
  properties: {
    PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 4001 },
    HOST: { type: 'string', minLength: 1, default: '127.0.0.1' },
    BASE_PATH: { type: 'string', pattern: '^(/[A-Za-z0-9._~-]+)*/?$', default: '' },
    GRAPHQL_URL: { type: 'string', pattern: '^https?://', default: 'http://127.0.0.1:4000/graphql' },
    GRAPHQL_CONNECT_TIMEOUT_MS: { type: 'integer', minimum: 1, maximum: MAX_TIMER_MS, default: 2000 },
    GRAPHQL_TIMEOUT_MS: { type: 'integer', minimum: 1, maximum: MAX_TIMER_MS, default: 30000 },
    GRAPHQL_CONNECTIONS: { type: 'integer', minimum: 1, maximum: 1024, default: 32 },
    GRAPHQL_BATCH_MAX: { type: 'integer', minimum: 1, maximum: 1000, default: 16 },
    GRAPHQL_BATCHES_IN_FLIGHT: { type: 'integer', minimum: 1, maximum: 1024, default: 1 },
    LOG_LEVEL: {
      type: 'string',
      enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      default: 'info',
    },
    CACHE_MAX_AGE_SECONDS: { type: 'integer', minimum: 0, maximum: 31536000, default: 60 },
    MAX_EVENT_LOOP_DELAY_MS: { type: 'integer', minimum: 0, maximum: MAX_TIMER_MS, default: 1000 },
    MAX_HEAP_USED_BYTES: { type: 'integer', minimum: 0, default: 0 },
    RATE_LIMIT_MAX: { type: 'integer', minimum: 0, default: 0 },
    RATE_LIMIT_WINDOW_MS: { type: 'integer', minimum: 1, maximum: MAX_TIMER_MS, default: 60000 },
    // true, false, or comma-separated proxy addresses or CIDRs.
    TRUST_PROXY: {
      type: 'string',
      pattern: '^(true|false|[0-9A-Fa-f.:/]+(,[0-9A-Fa-f.:/]+)*)$',
      default: 'false',
    },
    SHUTDOWN_TIMEOUT_MS: { type: 'integer', minimum: 0, maximum: MAX_TIMER_MS, default: 10000 },
    WORKERS: WORKERS_ENV_SCHEMA,
  },
} as const;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function trustedProxies(value: string): RestConfig['trustProxy'] {
  if (value === 'true' || value === 'false') return value === 'true';
  const proxies = value.split(',');
  for (const proxy of proxies) {
    const [address = '', bits] = proxy.split('/');
    const version = isIP(address);
    if (
      version === 0 ||
      (bits !== undefined && !(/^[0-9]{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128)))
    )
      throw new ConfigError(
        `invalid configuration: TRUST_PROXY must be true, false or proxy addresses/CIDRs separated by commas, got ${JSON.stringify(proxy)}`,
      );
  }
  return proxies;
}

/** Builds the configuration from `env` (default `process.env`); throws ConfigError naming the variable. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): RestConfig {
  let parsed: RestEnv;
  try {
    parsed = readEnvironment<RestEnv>(envJsonSchema, env);
  } catch (error) {
    // The message reads like "PORT must be <= 65535": it names the variable.
    throw new ConfigError(`invalid configuration: ${(error as Error).message}`);
  }
  let graphqlUrl: URL;
  try {
    graphqlUrl = new URL(parsed.GRAPHQL_URL);
  } catch {
    throw new ConfigError(
      `invalid configuration: GRAPHQL_URL must be an http(s) URL, got ${JSON.stringify(parsed.GRAPHQL_URL)}`,
    );
  }
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    basePath: parsed.BASE_PATH.replace(/\/$/, ''),
    graphqlUrl: graphqlUrl.toString(),
    graphqlConnectTimeoutMs: parsed.GRAPHQL_CONNECT_TIMEOUT_MS,
    graphqlTimeoutMs: parsed.GRAPHQL_TIMEOUT_MS,
    graphqlConnections: parsed.GRAPHQL_CONNECTIONS,
    graphqlBatchMax: parsed.GRAPHQL_BATCH_MAX,
    graphqlBatchesInFlight: parsed.GRAPHQL_BATCHES_IN_FLIGHT,
    logLevel: parsed.LOG_LEVEL,
    cacheMaxAgeSeconds: parsed.CACHE_MAX_AGE_SECONDS,
    maxEventLoopDelayMs: parsed.MAX_EVENT_LOOP_DELAY_MS,
    maxHeapUsedBytes: parsed.MAX_HEAP_USED_BYTES,
    rateLimitMax: parsed.RATE_LIMIT_MAX,
    rateLimitWindowMs: parsed.RATE_LIMIT_WINDOW_MS,
    trustProxy: trustedProxies(parsed.TRUST_PROXY),
    shutdownTimeoutMs: parsed.SHUTDOWN_TIMEOUT_MS,
    workers: workerCount(parsed.WORKERS),
  };
}
