// The digest both services put in their ETags. node:crypto's createHash goes through OpenSSL on every call, which
// cost the GraphQL point lookup ~6% of its requests per second under autocannon (docs/performance.md, seventh
// round); @fastify/etag's own benchmark shows the same for small payloads. An ETag needs a stable, well-spread
// digest, not a cryptographic one: the GraphQL ETag also names the data version, and a REST answer changes its ETag
// only with its body, so a collision could at worst revalidate one URL's old body (2^-64). xxHash64 in WebAssembly
// (xxhash-wasm) gives that without a native addon to build.
import xxhash from 'xxhash-wasm';

/** 16 hex digits of xxHash64 of a string (its UTF-8 bytes) or of bytes. */
export type ContentHash = (content: string | Uint8Array) => string;

let loading: Promise<ContentHash> | undefined;

/** The hash function, compiled once per process (the WebAssembly module is instantiated asynchronously). */
export function contentHash(): Promise<ContentHash> {
  loading ??= xxhash().then(
    ({ h64ToString, h64Raw }) =>
      (content) =>
        typeof content === 'string' ? h64ToString(content) : h64Raw(content).toString(16).padStart(16, '0'),
  );
  return loading;
}
