// Generated request ids: UUID-shaped, distinct within a process; an acceptable incoming id is kept.
import type { IncomingMessage } from 'node:http';
import Fastify from 'fastify';
import { requestIdFor, requestIdPlugin } from '../src';

const requestWith = (headers: Record<string, string | string[]>) =>
  ({ headers }) as unknown as IncomingMessage;
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdFor', () => {
  it('generates distinct UUID-shaped ids when the request brings none', () => {
    const ids = Array.from({ length: 5000 }, () => requestIdFor(requestWith({})));
    for (const id of ids) expect(id).toMatch(UUID_SHAPE);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps an acceptable incoming id and replaces a hostile one', () => {
    expect(requestIdFor(requestWith({ 'x-request-id': 'trace-42' }))).toBe('trace-42');
    expect(requestIdFor(requestWith({ 'x-request-id': ['first.id', 'second'] }))).toBe('first.id');
    expect(requestIdFor(requestWith({ 'x-request-id': 'bad id\twith spaces' }))).toMatch(UUID_SHAPE);
    expect(requestIdFor(requestWith({ 'x-request-id': 'x'.repeat(129) }))).toMatch(UUID_SHAPE);
  });
});

describe('requestIdPlugin', () => {
  it('echoes the request id on every answer: answered, failed, refused for its size, not found', async () => {
    const app = Fastify({ genReqId: requestIdFor, requestIdHeader: false, bodyLimit: 1024 });
    await app.register(requestIdPlugin);
    app.get('/ok', async () => ({ ok: true }));
    app.get('/fails', async () => {
      throw new Error('failed');
    });
    app.post('/body', async () => ({ ok: true }));
    await app.ready();
    const answers = [
      await app.inject({ method: 'GET', url: '/ok', headers: { 'x-request-id': 'kept-1' } }),
      await app.inject({ method: 'GET', url: '/fails' }),
      await app.inject({
        method: 'POST',
        url: '/body',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ text: 'x'.repeat(4096) }),
      }),
      await app.inject({ method: 'GET', url: '/nowhere' }),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 500, 413, 404]);
    expect(answers[0]!.headers['x-request-id']).toBe('kept-1');
    for (const answer of answers.slice(1)) expect(answer.headers['x-request-id']).toMatch(UUID_SHAPE);
    expect(new Set(answers.map((answer) => answer.headers['x-request-id'])).size).toBe(4);
    await app.close();
  });
});
