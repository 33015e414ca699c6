// The digest both services put in their ETags. node:crypto's createHash goes through OpenSSL on every call, which
// cost the GraphQL point lookup ~6% of its requests per second under autocannon (docs/performance.md, seventh
// round); @fastify/etag's own benchmark shows the same for small payloads. An ETag needs a stable, well-spread
// digest, not a cryptographic one: the GraphQL ETag also names the data version, and a REST answer changes its ETag
// only with its body, so a collision could at worst revalidate one URL's old body (2^-64). xxHash64 in WebAssembly
// (xxhash-wasm) gives that without a native addon to build.
import xxhash from 'xxhash-wasm';

/** 16 hex digits of xxHash64 of a string (its UTF-8 bytes) or of bytes. */
export type ContentHash = (content: string | Uint8Array) => string;

/**
 * xxHash64 in two steps: `seedOf(text)` is one text's hash, and `hash(text, seed)` a second text's 16 hex digits
 * seeded with it, as a hash of both. A caller that hashes many second texts with the same first one keeps its seed
 * instead of joining the two texts each time.
 */
export interface SeededHash {
  seedOf(text: string): bigint;
  hash(text: string, seed: bigint): string;
}

let wasmModule: ReturnType<typeof xxhash> | undefined;
let contentHashLoading: Promise<ContentHash> | undefined;
let seededHashLoading: Promise<SeededHash> | undefined;

/** The WebAssembly module, compiled once per process (instantiated asynchronously). */
function hashes(): ReturnType<typeof xxhash> {
  wasmModule ??= xxhash();
  return wasmModule;
}

/** The hash function (see ContentHash), one per process. */
export function contentHash(): Promise<ContentHash> {
  contentHashLoading ??= hashes().then(
    ({ h64ToString, h64Raw }) =>
      (content) =>
        typeof content === 'string' ? h64ToString(content) : h64Raw(content).toString(16).padStart(16, '0'),
  );
  return contentHashLoading;
}

/** The seeded hash (see SeededHash), one per process. */
export function seededHash(): Promise<SeededHash> {
  seededHashLoading ??= hashes().then(({ h64, h64ToString }) => ({
    seedOf: (text) => h64(text),
    hash: (text, seed) => h64ToString(text, seed),
  }));
  return seededHashLoading;
}
