// The one way this service reaches data: POST a GraphQL query to the GraphQL service over a keep-alive
// connection pool, concurrent queries together as one batch (see createGraphqlClient). Every failure becomes a
// typed error that the errors plugin turns into a JSON answer (502 unreachable or failing, 504 timed out, 400 the
// client's errors as GraphQL reports them), so a request never hangs on a dead upstream.
import fp from 'fastify-plugin';
import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import type { FastifyInstance } from 'fastify';

export interface GraphqlClientOptions {
  url: string;
  connectTimeoutMs: number;
  timeoutMs: number;
  connections: number;
  /**
   * Most calls of one event-loop turn sent together as one batch (a JSON array of operations); 1 (the default)
   * sends each alone.
   */
  maxBatch?: number;
  /**
   * Upstream requests (batches or single calls) out at once before further calls wait to leave together; as many
   * as the GraphQL service has processes. 1 by default.
   */
  maxBatchesInFlight?: number;
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
  /**
   * As `execute`, but sent alone (never in a batch), and a clean answer (`{"data":{...}}`, no errors) comes back as
   * the GraphQL service's own bytes, unparsed, for a route whose REST answer is that answer verbatim. An answer with
   * errors fails as `execute`'s does.
   */
  executeVerbatim<TData = Record<string, unknown>>(
    request: GraphqlRequest,
  ): Promise<Buffer | GraphqlResult<TData>>;
  close(): Promise<void>;
}

/**
 * Why the GraphQL service could not answer. `message` is for the client; `detail` (its address, the transport's
 * error code, its own error messages) only for this service's log, since it describes the deployment.
 */
class UpstreamError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

/**
 * The GraphQL service could not be reached, answered with something that is not a GraphQL response, or failed on
 * its side (HTTP 5xx, or an error it reports as INTERNAL_SERVER_ERROR).
 */
export class UpstreamUnavailableError extends UpstreamError {
  override readonly name = 'UpstreamUnavailableError';
}

/** The GraphQL service did not answer in time. */
export class UpstreamTimeoutError extends UpstreamError {
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
  errors?: { message?: unknown; extensions?: { argument?: unknown; code?: unknown } }[];
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

/**
 * Longest a call waits for the batches in flight before it leaves anyway: a slow operation (a long list) must not
 * hold up the point lookups queued behind it for longer than this.
 */
const LONGEST_HOLD_MS = 2;

/** Most query texts whose JSON is kept: the routes' queries are a fixed set, so this bound is never reached. */
const MAX_QUERY_JSONS = 64;
const queryJsons = new Map<string, string>();

/**
 * `JSON.stringify({ query, variables })`, with the query's JSON made once per query text. Every call of a route
 * sends the same ~420-character document, and escaping it again was most of the body's cost (a loop of 10^6 W6
 * bodies: 0.64-0.72 µs against 0.11-0.12). Under W6 the REST service's thread, the busiest, read 38-44 µs a request
 * against 43-46 in two alternations (docs/performance.md, forty-ninth round).
 */
export function requestBody(query: string, variables: Record<string, unknown>): string {
  let queryJson = queryJsons.get(query);
  if (queryJson === undefined) {
    queryJson = JSON.stringify(query);
    if (queryJsons.size < MAX_QUERY_JSONS) queryJsons.set(query, queryJson);
  }
  return `{"query":${queryJson},"variables":${JSON.stringify(variables)}}`;
}

type BodyReadable = Dispatcher.ResponseData['body'];

const readText = (answer: BodyReadable) => answer.text();
const readBytes = async (answer: BodyReadable) => Buffer.from(await answer.arrayBuffer());

/** One call waiting for the next batch: its request body as text, and how to settle it. */
interface QueuedCall {
  body: string;
  requestId: string;
  resolve: (result: GraphqlResult<unknown>) => void;
  reject: (error: unknown) => void;
}

const DATA_OPENING = Buffer.from('{"data":{');
const DATA_CLOSING = Buffer.from('}}');
const ERRORS_KEY = Buffer.from('"errors"');
const EXTENSIONS_KEY = Buffer.from('"extensions"');

/**
 * Whether `bytes`, a GraphQL answer, is `{"data":{...}}` alone: no `errors` or `extensions` beside the data, so the
 * REST answer `{"data": data}` is these bytes as they are. Finding where the data value ends would take a JSON
 * scanner of our own (or the parse this saves), so the test is instead that neither key's quoted name occurs at all:
 * a top-level key is written as its quoted name, and inside the data the same quoted name could only be a string
 * value of exactly "errors" or "extensions" (a quote in a name is escaped, `\"`), which then costs the parse, never a
 * wrong answer. The search runs in native code, ~0.1 ms for 560 KB. The bytes are not parsed, so their being JSON is
 * the GraphQL service's part (it serializes with JSON.stringify); a body cut short fails in undici against its length.
 */
export function isDataAlone(bytes: Buffer): boolean {
  return (
    bytes.subarray(0, DATA_OPENING.length).equals(DATA_OPENING) &&
    bytes.subarray(bytes.length - DATA_CLOSING.length).equals(DATA_CLOSING) &&
    bytes.indexOf(ERRORS_KEY) === -1 &&
    bytes.indexOf(EXTENSIONS_KEY) === -1
  );
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
  const maxBatch = options.maxBatch ?? 1;

  async function post<TBody>(
    body: string,
    requestId: string,
    read: (answer: BodyReadable) => Promise<TBody>,
  ): Promise<{ statusCode: number; body: TBody }> {
    const response = await pool.request({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-request-id': requestId },
      body,
    });
    return { statusCode: response.statusCode, body: await read(response.body) };
  }

  /** POSTs `body`; transport failures become UpstreamTimeoutError or UpstreamUnavailableError. */
  async function exchange(body: string, requestId: string): Promise<{ statusCode: number; text: string }> {
    const { statusCode, body: text } = await exchangeAs(body, requestId, readText);
    return { statusCode, text };
  }

  /** `exchange`, with the answer's body read by `read` (as text, or as bytes). */
  async function exchangeAs<TBody>(
    body: string,
    requestId: string,
    read: (answer: BodyReadable) => Promise<TBody>,
  ): Promise<{ statusCode: number; body: TBody }> {
    try {
      try {
        return await post(body, requestId, read);
      } catch (error) {
        if (STALE_SOCKET_CODES.has(errorCode(error) ?? '')) return await post(body, requestId, read);
        throw error;
      }
    } catch (error) {
      const code = errorCode(error);
      if (TIMEOUT_CODES.has(code ?? '')) {
        throw new UpstreamTimeoutError(
          'the GraphQL service did not answer in time',
          `${endpoint.origin}: ${code}`,
        );
      }
      if (error instanceof undiciErrors.UndiciError || code !== undefined) {
        throw new UpstreamUnavailableError(
          'the GraphQL service is unreachable',
          `${endpoint.origin}: ${code ?? 'error'}`,
        );
      }
      throw error;
    }
  }

  /** One operation's answer (a whole response, or one entry of a batch's) as data, or the error it stands for. */
  function resultOf<TData>(statusCode: number, parsed: unknown): GraphqlResult<TData> {
    if (parsed === null || typeof parsed !== 'object') {
      throw new UpstreamUnavailableError(
        `the GraphQL service answered HTTP ${statusCode} with an unexpected body`,
      );
    }
    const answer = parsed as GraphqlWireResponse;
    if (Array.isArray(answer.errors) && answer.errors.length > 0) {
      // Not the client's fault, so not a 400: the GraphQL service failed (its messages stay in the log).
      if (
        statusCode >= 500 ||
        answer.errors.some((entry) => entry?.extensions?.code === 'INTERNAL_SERVER_ERROR')
      ) {
        throw new UpstreamUnavailableError(
          'the GraphQL service failed to answer this request; its log has the details under this request id',
          `HTTP ${statusCode}: ${answer.errors.map((entry) => String(entry?.message)).join('; ')}`,
        );
      }
      // A statement of the GraphQL service ran past its time limit: the request was too large to answer in time.
      const timedOut = answer.errors.find((entry) => entry?.extensions?.code === 'STATEMENT_TIMEOUT');
      if (timedOut) throw new UpstreamTimeoutError(String(timedOut.message));
      const argument = answer.errors
        .map((entry) => entry?.extensions?.argument)
        .find((name) => typeof name === 'string');
      throw new GraphqlResponseError(
        answer.errors.map((entry) => String(entry?.message ?? 'unknown GraphQL error')),
        argument as string | undefined,
      );
    }
    if (statusCode >= 400 || answer.data === null || typeof answer.data !== 'object') {
      throw new UpstreamUnavailableError(`the GraphQL service answered HTTP ${statusCode} without data`);
    }
    return { data: answer.data as TData };
  }

  function parseAnswer(answer: { statusCode: number; text: string }): unknown {
    try {
      return JSON.parse(answer.text);
    } catch {
      throw new UpstreamUnavailableError(
        `the GraphQL service answered HTTP ${answer.statusCode} without a JSON body`,
      );
    }
  }

  async function executeAlone<TData>(body: string, requestId: string): Promise<GraphqlResult<TData>> {
    const answer = await exchange(body, requestId);
    return resultOf<TData>(answer.statusCode, parseAnswer(answer));
  }

  /**
   * Sends one call alone and hands back a clean answer's bytes as they came. A large REST page spent about 8 ms of
   * its ~28 parsing the GraphQL answer and writing the same JSON again (a 1,000-ASN page of 560 KB), and undici's
   * decoding to text and Fastify's encoding back to bytes cost more (docs/performance.md, seventy-seventh round).
   */
  async function executeVerbatimAlone<TData>(
    body: string,
    requestId: string,
  ): Promise<Buffer | GraphqlResult<TData>> {
    const answer = await exchangeAs(body, requestId, readBytes);
    if (answer.statusCode === 200 && isDataAlone(answer.body)) return answer.body;
    const text = answer.body.toString('utf8');
    return resultOf<TData>(answer.statusCode, parseAnswer({ statusCode: answer.statusCode, text }));
  }

  /** Settles `call` with its operation's answer, which `parsed` reads (a failure to read it rejects the call). */
  function settleFrom(call: QueuedCall, statusCode: number, parsed: () => unknown): void {
    try {
      call.resolve(resultOf(statusCode, parsed()));
    } catch (error) {
      call.reject(error);
    }
  }

  /**
   * Sends one call, or several as one JSON array under the first call's request id; the GraphQL service answers an
   * array of their answers in order, each settled as a call of its own would be. `release` runs as soon as the
   * answer is in, before the calls are settled: the next batch is then on its way while this service finishes
   * these calls' answers. A batch refused as a whole (a fault in one of its operations, or a service that takes no
   * batches) is sent again call by call, so one caller's bad input never fails the others.
   */
  async function exchangeCalls(calls: QueuedCall[], release: () => void): Promise<void> {
    const body = calls.length === 1 ? calls[0]!.body : `[${calls.map((call) => call.body).join(',')}]`;
    let answer: { statusCode: number; text: string };
    try {
      answer = await exchange(body, calls[0]!.requestId);
    } catch (error) {
      release();
      for (const call of calls) call.reject(error);
      return;
    }
    release();
    if (calls.length === 1) {
      settleFrom(calls[0]!, answer.statusCode, () => parseAnswer(answer));
      return;
    }
    let answers: unknown;
    try {
      answers = answer.statusCode === 200 ? JSON.parse(answer.text) : undefined;
    } catch {
      answers = undefined;
    }
    if (!Array.isArray(answers) || answers.length !== calls.length) {
      for (const call of calls) executeAlone(call.body, call.requestId).then(call.resolve, call.reject);
      return;
    }
    calls.forEach((call, index) => settleFrom(call, 200, () => answers[index]));
  }

  // Calls leave in batches: those made in one turn of the event loop leave together at its end, and while
  // maxBatchesInFlight upstream requests are out, later calls queue and leave together when one comes back (or
  // after LONGEST_HOLD_MS). Under load a batch thus holds what arrived during the last one. A batch costs the
  // GraphQL service one HTTP request, one context and one loader batch per key kind for all its operations, and
  // this service one upstream request (docs/performance.md, thirty-first round).
  const queued: QueuedCall[] = [];
  let inFlight = 0;
  let flushScheduled = false;
  let holdTimer: NodeJS.Timeout | undefined;
  const maxInFlight = options.maxBatchesInFlight ?? 1;

  function dispatch(calls: QueuedCall[]): void {
    inFlight += 1;
    void exchangeCalls(calls, () => {
      inFlight -= 1;
      if (queued.length > 0) flushQueued(false);
    });
  }

  function flushQueued(force: boolean): void {
    flushScheduled = false;
    while (queued.length > 0 && (force || inFlight < maxInFlight)) {
      dispatch(queued.splice(0, maxBatch));
    }
    if (queued.length === 0) {
      clearTimeout(holdTimer);
      holdTimer = undefined;
    } else if (holdTimer === undefined) {
      holdTimer = setTimeout(() => {
        holdTimer = undefined;
        flushQueued(true);
      }, LONGEST_HOLD_MS);
    }
  }

  function scheduleFlush(): void {
    if (flushScheduled) return;
    flushScheduled = true;
    setImmediate(() => flushQueued(false));
  }

  function send<TData>(request: GraphqlRequest): Promise<GraphqlResult<TData>> {
    const body = requestBody(request.query, request.variables);
    if (maxBatch <= 1) return executeAlone<TData>(body, request.requestId);
    return new Promise<GraphqlResult<TData>>((resolve, reject) => {
      scheduleFlush();
      queued.push({
        body,
        requestId: request.requestId,
        resolve: resolve as (result: GraphqlResult<unknown>) => void,
        reject,
      });
    });
  }

  /** Runs `call`, reporting its outcome and duration to `observe`. */
  async function observed<TResult>(request: GraphqlRequest, call: () => Promise<TResult>): Promise<TResult> {
    // performance.now(), not hrtime.bigint(): a double, no BigInt allocated twice per call.
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      const result = await call();
      options.observe?.(operationNameOf(request.query), 'ok', seconds());
      return result;
    } catch (error) {
      options.observe?.(operationNameOf(request.query), outcomeOf(error), seconds());
      throw error;
    }
  }

  return {
    execute: <TData>(request: GraphqlRequest) => observed(request, () => send<TData>(request)),
    executeVerbatim: <TData>(request: GraphqlRequest) =>
      observed(request, () =>
        executeVerbatimAlone<TData>(requestBody(request.query, request.variables), request.requestId),
      ),
    close: () => {
      clearTimeout(holdTimer);
      return pool.close();
    },
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
