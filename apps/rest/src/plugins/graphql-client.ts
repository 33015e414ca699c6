// The one way this service reaches data: POST a GraphQL query to the GraphQL service over a keep-alive
// connection pool. Every failure becomes a typed error that the errors plugin turns into a JSON answer
// (502 unreachable, 504 timed out, 400 GraphQL errors), so a request never hangs on a dead upstream.
import fp from 'fastify-plugin';
import { Pool, errors as undiciErrors } from 'undici';
import type { FastifyInstance } from 'fastify';

export interface GraphqlClientOptions {
  url: string;
  connectTimeoutMs: number;
  timeoutMs: number;
  connections: number;
  /** Called once per call with the operation name, its outcome and its duration (for metrics). */
  observe?: (
    operation: string,
    outcome: 'ok' | 'graphql_error' | 'unavailable' | 'timeout',
    seconds: number,
  ) => void;
}

export interface GraphqlRequest {
  query: string;
  variables: Record<string, unknown>;
  /** Forwarded as `x-request-id` so both services log the same id. */
  requestId: string;
}

export interface GraphqlResult<TData> {
  data: TData;
}

export interface GraphqlClient {
  execute<TData = Record<string, unknown>>(request: GraphqlRequest): Promise<GraphqlResult<TData>>;
  close(): Promise<void>;
}

/** The GraphQL service could not be reached or answered with something that is not a GraphQL response. */
export class UpstreamUnavailableError extends Error {
  override readonly name = 'UpstreamUnavailableError';
}

/** The GraphQL service did not answer in time. */
export class UpstreamTimeoutError extends Error {
  override readonly name = 'UpstreamTimeoutError';
}

/** The GraphQL service answered with errors (bad arguments, limits): their messages reach the client. */
export class GraphqlResponseError extends Error {
  override readonly name = 'GraphqlResponseError';
  constructor(
    readonly messages: string[],
    /** The GraphQL argument blamed by the first argument error (`extensions.argument`), if any. */
    readonly argument?: string,
  ) {
    super(messages.join('; '));
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
// A keep-alive socket the GraphQL service closed while idle (e.g. it restarted) fails the first write;
// queries are read-only, so one retry on a fresh connection is safe.
const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

interface GraphqlWireResponse {
  data?: unknown;
  errors?: { message?: unknown; extensions?: { argument?: unknown } }[];
}

/** `RestAsns` for `query RestAsns(...)`; 'anonymous' otherwise (keeps the metric label set small). */
export function operationNameOf(query: string): string {
  return /^\s*(?:query|mutation)\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(query)?.[1] ?? 'anonymous';
}

function outcomeOf(error: unknown): 'graphql_error' | 'unavailable' | 'timeout' {
  if (error instanceof GraphqlResponseError) return 'graphql_error';
  if (error instanceof UpstreamTimeoutError) return 'timeout';
  return 'unavailable';
}

export function createGraphqlClient(options: GraphqlClientOptions): GraphqlClient {
  const endpoint = new URL(options.url);
  const path = `${endpoint.pathname}${endpoint.search}`;
  const pool = new Pool(endpoint.origin, {
    connections: options.connections,
    connectTimeout: options.connectTimeoutMs,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 4000,
  });

  async function post(body: string, requestId: string): Promise<{ statusCode: number; text: string }> {
    const response = await pool.request({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-request-id': requestId },
      body,
    });
    return { statusCode: response.statusCode, text: await response.body.text() };
  }

  async function postWithRetry(
    body: string,
    requestId: string,
  ): Promise<{ statusCode: number; text: string }> {
    try {
      return await post(body, requestId);
    } catch (error) {
      if (STALE_SOCKET_CODES.has(errorCode(error) ?? '')) return post(body, requestId);
      throw error;
    }
  }

  async function execute<TData>(request: GraphqlRequest): Promise<GraphqlResult<TData>> {
    const body = JSON.stringify({ query: request.query, variables: request.variables });
    let answer: { statusCode: number; text: string };
    try {
      answer = await postWithRetry(body, request.requestId);
    } catch (error) {
      const code = errorCode(error);
      if (TIMEOUT_CODES.has(code ?? '')) {
        throw new UpstreamTimeoutError(
          `the GraphQL service at ${endpoint.origin} did not answer in time (${code})`,
        );
      }
      if (error instanceof undiciErrors.UndiciError || code !== undefined) {
        throw new UpstreamUnavailableError(
          `the GraphQL service at ${endpoint.origin} is unreachable (${code ?? 'error'})`,
        );
      }
      throw error;
    }
    let parsed: GraphqlWireResponse;
    try {
      parsed = JSON.parse(answer.text) as GraphqlWireResponse;
    } catch {
      throw new UpstreamUnavailableError(
        `the GraphQL service answered HTTP ${answer.statusCode} without a JSON body`,
      );
    }
    if (parsed === null || typeof parsed !== 'object') {
      throw new UpstreamUnavailableError(
        `the GraphQL service answered HTTP ${answer.statusCode} with an unexpected body`,
      );
    }
    if (Array.isArray(parsed.errors) && parsed.errors.length > 0) {
      const argument = parsed.errors
        .map((entry) => entry?.extensions?.argument)
        .find((name) => typeof name === 'string');
      throw new GraphqlResponseError(
        parsed.errors.map((entry) => String(entry?.message ?? 'unknown GraphQL error')),
        argument as string | undefined,
      );
    }
    if (answer.statusCode >= 400 || parsed.data === null || typeof parsed.data !== 'object') {
      throw new UpstreamUnavailableError(
        `the GraphQL service answered HTTP ${answer.statusCode} without data`,
      );
    }
    return { data: parsed.data as TData };
  }

  return {
    async execute<TData>(request: GraphqlRequest): Promise<GraphqlResult<TData>> {
      const started = process.hrtime.bigint();
      const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
      try {
        const result = await execute<TData>(request);
        options.observe?.(operationNameOf(request.query), 'ok', seconds());
        return result;
      } catch (error) {
        options.observe?.(operationNameOf(request.query), outcomeOf(error), seconds());
        throw error;
      }
    },
    close: () => pool.close(),
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    graphqlClient: GraphqlClient;
  }
}

async function graphqlClientPlugin(app: FastifyInstance, options: GraphqlClientOptions): Promise<void> {
  const timer = app.hasDecorator('upstreamTimer') ? app.upstreamTimer : undefined;
  const client = createGraphqlClient({ ...options, observe: options.observe ?? timer?.observe });
  app.decorate('graphqlClient', client);
  app.addHook('onClose', async () => {
    await client.close();
  });
}

export default fp(graphqlClientPlugin, { name: 'graphql-client', fastify: '5.x' });
