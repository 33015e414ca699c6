// HTTP caching of REST answers. The data changes only when a month is loaded, so every successful GET
// carries `Cache-Control` (max-age from CACHE_MAX_AGE_SECONDS) and a strong `ETag` computed from the body
// (@fastify/etag); a request whose `If-None-Match` matches gets 304 with no body. The ETag follows the
// body, so a new month (a new body) can never be answered 304 with the old one.
import fp from 'fastify-plugin';
import fastifyEtag from '@fastify/etag';
import type { FastifyInstance } from 'fastify';
import { contentHash } from '@asrank/service-kit';

export interface CachingOptions {
  maxAgeSeconds: number;
}

async function cachingPlugin(app: FastifyInstance, { maxAgeSeconds }: CachingOptions): Promise<void> {
  // xxHash64, not sha1: see service-kit's content-hash.ts for what OpenSSL's per-call cost was.
  await app.register(fastifyEtag, { hashFn: await contentHash() });
  // Callback style: the hook never waits, and an async hook costs a promise and a microtask per answer.
  app.addHook('onSend', (request, reply, payload, done) => {
    const answersGet = request.method === 'GET' || request.method === 'HEAD';
    if (answersGet && !reply.hasHeader('cache-control')) {
      const cacheable = reply.statusCode === 200 || reply.statusCode === 304;
      reply.header('cache-control', cacheable ? `public, max-age=${maxAgeSeconds}` : 'no-store');
    }
    done(null, payload);
  });
}

export default fp(cachingPlugin, { name: 'caching', fastify: '5.x' });
