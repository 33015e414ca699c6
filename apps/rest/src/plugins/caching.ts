// HTTP caching of REST answers. The data changes only when a month is loaded, so every successful GET
// carries `Cache-Control` (max-age from CACHE_MAX_AGE_SECONDS) and a strong `ETag` computed from the body
// (@fastify/etag); a request whose `If-None-Match` matches (one tag, a list, or `*`) gets 304 with no body. The
// ETag follows the body, so a new month (a new body) can never be answered 304 with the old one.
import fp from 'fastify-plugin';
import fastifyEtag from '@fastify/etag';
import type { FastifyInstance } from 'fastify';
import { contentHash } from '@asrank/service-kit';

/** `W/"x"` and `"x"` are the same tag for If-None-Match, which compares weakly. */
function opaqueTag(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/** Whether `condition` (an If-None-Match value) matches the answer's ETag. */
export function ifNoneMatchHolds(condition: string, etag: unknown): boolean {
  if (typeof etag !== 'string') return false;
  if (condition.trim() === '*') return true;
  const current = opaqueTag(etag);
  // Our tags hold no comma, so splitting the list on commas finds ours wherever it stands.
  return condition.split(',').some((tag) => opaqueTag(tag.trim()) === current);
}

export interface CachingOptions {
  maxAgeSeconds: number;
}

async function cachingPlugin(app: FastifyInstance, { maxAgeSeconds }: CachingOptions): Promise<void> {
  // xxHash64, not sha1: see service-kit's content-hash.ts for what OpenSSL's per-call cost was.
  await app.register(fastifyEtag, { hashFn: await contentHash() });
  // Callback style: the hook never waits, and an async hook costs a promise and a microtask per answer.
  app.addHook('onSend', (request, reply, payload, done) => {
    const answersGet = request.method === 'GET' || request.method === 'HEAD';
    if (!answersGet) return done(null, payload);
    // @fastify/etag, whose hook has run by now, compares If-None-Match as one whole string, so a list of tags or
    // `*` never matched (RFC 9110 §13.1.2: either matches when any tag is the answer's, compared weakly).
    const condition = request.headers['if-none-match'];
    const notModified =
      condition !== undefined &&
      reply.statusCode === 200 &&
      ifNoneMatchHolds(condition, reply.getHeader('etag'));
    if (notModified) reply.code(304);
    if (!reply.hasHeader('cache-control')) {
      const cacheable = reply.statusCode === 200 || reply.statusCode === 304;
      reply.header('cache-control', cacheable ? `public, max-age=${maxAgeSeconds}` : 'no-store');
    }
    done(null, notModified ? '' : payload);
  });
}

export default fp(cachingPlugin, { name: 'caching', fastify: '5.x' });
