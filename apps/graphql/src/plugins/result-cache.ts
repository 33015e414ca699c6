// HTTP caching and the in-process result cache of /graphql. The data changes only when a month is loaded
// or dropped, which changes meta.data_version in the same transaction, so an answer is a function of
// (query, operation name, variables, data version):
// - a successful answer carries an `ETag` and `Cache-Control: public, max-age=N`;
// - with the result cache on, the tag names that key (the version, and a hash of the rest: answerTags), and a
//   request whose If-None-Match matches gets 304 before any resolver runs;
// - with the result cache off (RESULT_CACHE_MB=0) nothing keys answers, so nothing runs before the request (a hook
//   that looked for a match first cost the point lookup ~1-3 µs of ~45 on SQLite, docs/performance.md,
//   fifty-seventh round): the tag is made with the answer, and a matching If-None-Match gets 304 once the answer is
//   made. Where the data version was known at once (SQLite) the tag is the same, under the version the answer was
//   made at; else (PostgreSQL, where reading the version first cost ~17 µs of CPU between the service
//   and the server, thirty-eighth round) a digest of the answer's body, as the REST service's. The key is the
//   cheaper to hash: a few hundred characters, where a list's answer holds tens of KB;
// - successful answers are kept in an LRU bounded in bytes (lru-cache), keyed the same way, so a repeated
//   query is answered without touching the data; after a load the version differs, so no old entry can be
//   served again (they age out of the LRU).
// Answers with errors are never cached and are marked `no-store`.
import fp from 'fastify-plugin';
import { LRUCache } from 'lru-cache';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { contentHash, seededHash, type SeededHash } from '@asrank/service-kit';
import type { DataVersionReader } from '../data-version';
import type { ResultCacheOutcome, ServiceMetrics } from './metrics';

export interface ResultCacheOptions {
  readDataVersion: DataVersionReader;
  maxBytes: number;
  maxAgeSeconds: number;
  metrics?: ServiceMetrics;
}

/** Larger answers (long cone-stream pages) are not worth a cache slot. */
const MAX_ENTRY_BYTES = 2 * 1024 * 1024;

interface CacheState {
  /** The data_version this request is answered at (also handed to the GraphQL context, so it is read once). */
  version: string;
  key: string;
  etag: string;
  hit: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    resultCache?: CacheState;
    /** Set by the GraphQL plugin when the execution result carries errors (an answer of 200 may). */
    graphqlErrors?: boolean;
  }
}

/** A GET's query or a POST's body asking for one operation. */
type OperationSource = Record<string, unknown> & { query: string };

/** The one operation a request asks for; undefined when it is no such thing (a batch), which the cache does not key. */
function keyableSource(request: FastifyRequest): OperationSource | undefined {
  if (request.method !== 'GET' && request.method !== 'POST') return undefined;
  const source = (request.method === 'GET' ? request.query : request.body) as
    Record<string, unknown> | null | undefined;
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return undefined;
  return typeof source['query'] === 'string' ? (source as OperationSource) : undefined;
}

/** What names the answer to `source` within its query text: its operation name and variables. */
function operationKey(source: OperationSource): string {
  const variables = source['variables'];
  const variablesText = typeof variables === 'string' ? variables : JSON.stringify(variables ?? null);
  const operationName = typeof source['operationName'] === 'string' ? source['operationName'] : '';
  return `${operationName}\u0000${variablesText}`;
}

/** What names the answer to `source` within a data version: its operation name, variables and query. */
function requestKey(source: OperationSource): string {
  return `${operationKey(source)}\u0000${source.query}`;
}

/** Query texts whose hash is kept, and the longest kept: at most ~4 MB of texts. */
const KEPT_QUERY_SEEDS = 1024;
const LONGEST_KEPT_QUERY = 4096;

/**
 * The ETag of the answer to `source` at `version`: the version, and the hash of the operation's name and variables
 * seeded with its query text's own hash, which is kept per text (the texts repeat; only their variables vary). Hashing
 * the text joined to them on every request cost the point lookup a flattened copy of its few hundred characters and
 * most of the hash's time.
 */
function answerTags({ seedOf, hash }: SeededHash): (source: OperationSource, version: string) => string {
  const seeds = new Map<string, bigint>();
  return (source, version) => {
    const { query } = source;
    let seed = seeds.get(query);
    if (seed === undefined) {
      seed = seedOf(query);
      if (query.length <= LONGEST_KEPT_QUERY) {
        if (seeds.size >= KEPT_QUERY_SEEDS) seeds.clear();
        seeds.set(query, seed);
      }
    }
    return `"${version}-${hash(operationKey(source), seed)}"`;
  };
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === etag || tag === '*');
}

async function resultCachePlugin(app: FastifyInstance, options: ResultCacheOptions): Promise<void> {
  const hash = await contentHash();
  const answerTag = answerTags(await seededHash());
  app.decorateRequest('resultCache', undefined);
  app.decorateRequest('graphqlErrors', undefined);
  const count = (outcome: ResultCacheOutcome) => options.metrics?.countResultCache(outcome);
  const cacheControl = `public, max-age=${options.maxAgeSeconds}`;

  /** Whether an answer may be tagged (and kept): Mercurius answers errors with 200 when some data came back. */
  function isClean(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
  ): payload is string | Buffer {
    // The GraphQL plugin flags errors from the result object: scanning the text cost 5% of a 370 KB cone-stream
    // page's CPU.
    return (
      reply.statusCode === 200 &&
      (typeof payload === 'string' || Buffer.isBuffer(payload)) &&
      request.graphqlErrors !== true
    );
  }

  if (options.maxBytes <= 0) {
    // Callback style (this hook never waits): an async hook costs a promise and a microtask per answer.
    app.addHook('onSend', (request, reply, payload, done) => {
      // What the cache would not key (a batch of operations from the REST service, which tags its own answers) is
      // not tagged either. The key itself is built only where it names the answer (the version known at once).
      const source = keyableSource(request);
      if (source === undefined) {
        done(null, payload);
        return;
      }
      if (!isClean(request, reply, payload)) {
        count('miss');
        reply.header('cache-control', 'no-store');
        done(null, payload);
        return;
      }
      const version = request.answeredVersion;
      const etag = version === undefined ? `"${hash(payload)}"` : answerTag(source, version);
      reply.header('etag', etag).header('cache-control', cacheControl);
      const unchanged = matches(request.headers['if-none-match'], etag);
      count(unchanged ? 'not_modified' : 'miss');
      if (unchanged) {
        reply.code(304);
        // null, not '': Fastify then sends no Content-Length, which a 304 must not carry as 0.
        done(null, null);
        return;
      }
      done(null, payload);
    });
    return;
  }

  const cache = new LRUCache<string, string | Buffer>({
    maxSize: options.maxBytes,
    maxEntrySize: Math.min(MAX_ENTRY_BYTES, options.maxBytes),
    sizeCalculation: (value, key) => value.length + key.length,
  });

  // Callback style: on SQLite the data version is known at once (readDataVersion.now()), and an async hook would
  // cost a promise and a microtask per request.
  app.addHook('preHandler', (request, reply, done) => {
    const source = keyableSource(request);
    if (source === undefined) {
      done();
      return;
    }
    const version = options.readDataVersion.now();
    if (version !== undefined) {
      answerFromCache(request, reply, source, version, done);
      return;
    }
    options.readDataVersion().then((read) => answerFromCache(request, reply, source, read, done), done);
  });

  /** Answers 304 or from the cache when it can (and does not call `done` then: the answer is sent). */
  function answerFromCache(
    request: FastifyRequest,
    reply: FastifyReply,
    source: OperationSource,
    version: string,
    done: (error?: Error) => void,
  ): void {
    const key = `${version}\u0000${requestKey(source)}`;
    const etag = answerTag(source, version);
    const state: CacheState = { version, key, etag, hit: false };
    request.resultCache = state;
    if (matches(request.headers['if-none-match'], etag)) {
      count('not_modified');
      state.hit = true;
      void reply.code(304).header('etag', etag).header('cache-control', cacheControl).send();
      return;
    }
    const cached = cache.get(key);
    if (cached !== undefined) {
      count('hit');
      state.hit = true;
      void reply
        .code(200)
        .header('etag', etag)
        .header('cache-control', cacheControl)
        .header('x-cache', 'hit')
        .type('application/json; charset=utf-8')
        .send(cached);
      return;
    }
    count('miss');
    done();
  }

  // Tags and keeps a clean answer. Callback style (this hook never waits).
  app.addHook('onSend', (request, reply, payload, done) => {
    const state = request.resultCache;
    if (!state || state.hit) {
      done(null, payload);
      return;
    }
    if (!isClean(request, reply, payload)) {
      reply.header('cache-control', 'no-store');
      done(null, payload);
      return;
    }
    reply.header('etag', state.etag).header('cache-control', cacheControl);
    cache.set(state.key, payload);
    done(null, payload);
  });
}

export const resultCache = fp(resultCachePlugin, { name: 'result-cache', fastify: '5.x' });
