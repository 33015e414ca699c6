// Large string answers leave as UTF-8 bytes, over real HTTP: the client must receive exactly the text, with a
// Content-Length in bytes (multi-byte characters included) and the route's content type; later onSend hooks see the
// bytes, smaller answers stay strings.
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { LARGE_ANSWER_CHARACTERS, largeAnswersAsBytes } from '../src';

/** A JSON text of at least `characters` UTF-16 units with names in several scripts (2- to 4-byte UTF-8). */
function jsonText(characters: number): string {
  const names = ['LEVEL3 – Lumen', 'Ростелеком', '中国电信', 'Telefónica', '🛰️ orbit'];
  const items: string[] = [];
  let length = 2;
  for (let index = 0; length < characters; index += 1) {
    const item = JSON.stringify({ asn: String(index), asnName: names[index % names.length] });
    items.push(item);
    length += item.length + 1;
  }
  return `[${items.join(',')}]`;
}

describe('largeAnswersAsBytes', () => {
  let app: FastifyInstance;
  let baseUrl: string;
  const payloadKinds: Record<string, string> = {};
  const large = jsonText(LARGE_ANSWER_CHARACTERS + 10_000);
  const small = jsonText(2_000);

  beforeAll(async () => {
    app = Fastify();
    await app.register(largeAnswersAsBytes);
    // Registered after the plugin, so it sees what the socket will be given.
    app.addHook('onSend', async (request, _reply, payload) => {
      payloadKinds[request.url] = Buffer.isBuffer(payload) ? 'bytes' : typeof payload;
      return payload;
    });
    app.get('/large', async (_request, reply) => reply.type('application/json; charset=utf-8').send(large));
    app.get('/small', async (_request, reply) => reply.type('application/json; charset=utf-8').send(small));
    app.get('/object', async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app.close();
  });

  it('sends a large string answer as its UTF-8 bytes, with their length and the route content type', async () => {
    const answer = await fetch(`${baseUrl}/large`);
    const body = Buffer.from(await answer.arrayBuffer());
    expect(answer.status).toBe(200);
    expect(payloadKinds['/large']).toBe('bytes');
    expect(body.equals(Buffer.from(large, 'utf8'))).toBe(true);
    // Multi-byte characters make the byte length differ from the string length: the header must count bytes.
    expect(Buffer.byteLength(large)).toBeGreaterThan(large.length);
    expect(answer.headers.get('content-length')).toBe(String(Buffer.byteLength(large)));
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(JSON.parse(body.toString('utf8'))).toEqual(JSON.parse(large));
  });

  it('leaves smaller answers as strings, and serialized objects below the size as Fastify made them', async () => {
    const answer = await fetch(`${baseUrl}/small`);
    expect(await answer.text()).toBe(small);
    expect(payloadKinds['/small']).toBe('string');
    expect(answer.headers.get('content-length')).toBe(String(Buffer.byteLength(small)));
    const serialized = await fetch(`${baseUrl}/object`);
    expect(await serialized.json()).toEqual({ ok: true });
    expect(payloadKinds['/object']).toBe('string');
  });
});
