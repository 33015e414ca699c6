// The ETag digest: the same body must give the same tag whether Fastify hands it over as a string or a Buffer,
// different bodies different tags, and it must be xxHash64 (the published test vector) so tags stay stable
// across releases and processes.
import { contentHash, seededHash } from '../src/content-hash';

describe('contentHash', () => {
  it('is xxHash64 with seed 0, as 16 hex digits', async () => {
    const hash = await contentHash();
    expect(hash('')).toBe('ef46db3751d8e999');
    expect(hash('{"asn":"3356"}')).toMatch(/^[0-9a-f]{16}$/);
  });

  it('gives a string and its UTF-8 bytes the same digest, and different bodies different digests', async () => {
    const hash = await contentHash();
    const body = JSON.stringify({ data: { asn: { asn: '3356', asnName: 'LEVEL3 – Lumen' } } });
    expect(hash(Buffer.from(body, 'utf8'))).toBe(hash(body));
    expect(hash(new Uint8Array(0))).toBe(hash(''));
    const digests = new Set(Array.from({ length: 1000 }, (_, index) => hash(`${body}${index}`)));
    expect(digests.size).toBe(1000);
  });

  it('compiles the module once per process', async () => {
    expect(await contentHash()).toBe(await contentHash());
  });

  it('hashes a second text seeded with a first as a hash of both: either text changes it', async () => {
    const { seedOf, hash } = await seededHash();
    const query = '{ asn(asn: $asn) { asn asnName } }';
    const tag = hash('\u0000{"asn":"3356"}', seedOf(query));
    expect(tag).toMatch(/^[0-9a-f]{16}$/);
    expect(hash('\u0000{"asn":"3356"}', seedOf(query))).toBe(tag);
    expect(hash('\u0000{"asn":"3357"}', seedOf(query))).not.toBe(tag);
    expect(hash('\u0000{"asn":"3356"}', seedOf(`${query} `))).not.toBe(tag);
    // Seeded, not the plain hash of the second text.
    expect(tag).not.toBe((await contentHash())('\u0000{"asn":"3356"}'));
    expect(await seededHash()).toBe(await seededHash());
  });
});
