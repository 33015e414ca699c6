// Write coalescing over real HTTP: an answer is held until the end of the event-loop turn it was finished in, the
// answers of one turn are written together, and every answer still arrives whole, with its status and headers.
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { writeCoalescing } from '../src';

describe('writeCoalescing', () => {
  let app: FastifyInstance;
  let baseUrl: string;
  /** Whether the answer had been written when its handler had just sent it. */
  const writtenRightAfterSend: boolean[] = [];
  /** The replies waiting at the gate, and what was seen of them around the turn they were all answered in. */
  let gated: FastifyReply[] = [];
  let gateSize = 0;
  let releaseGate: () => void = () => undefined;
  let gateOpened: Promise<{ heldAtTurnEnd: boolean[]; writtenNextTurn: boolean[] }>;

  beforeAll(async () => {
    app = Fastify();
    await app.register(writeCoalescing);
    app.addHook('onSend', (_request, reply, payload, done) => {
      reply.header('x-later-hook', 'ran');
      done(null, payload);
    });
    app.get('/items/:id', (request, reply) => {
      const { id } = request.params as { id: string };
      if (id === 'missing') void reply.code(404).send({ error: 'no such item' });
      else if (id === 'bytes') void reply.type('application/octet-stream').send(Buffer.from([1, 2, 3]));
      else void reply.send({ id });
      writtenRightAfterSend.push(reply.raw.writableEnded);
    });
    app.get('/gate', (_request, reply) => {
      gated.push(reply);
      if (gated.length === gateSize) releaseGate();
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app.close();
  });

  it('holds an answer until the end of its turn, then writes it whole', async () => {
    writtenRightAfterSend.length = 0;
    const response = await fetch(`${baseUrl}/items/7`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: '7' });
    // Hooks registered after it still run, when the answer is written.
    expect(response.headers.get('x-later-hook')).toBe('ran');
    expect(writtenRightAfterSend).toEqual([false]);
  });

  it('writes the answers finished in one turn together, at its end', async () => {
    gateSize = 5;
    gated = [];
    gateOpened = new Promise((resolve) => {
      releaseGate = () => {
        const replies = gated;
        // Scheduled before any of the answers below is sent, so it runs before the turn's writing.
        setImmediate(() => {
          const heldAtTurnEnd = replies.map((reply) => !reply.raw.writableEnded);
          setImmediate(() =>
            resolve({ heldAtTurnEnd, writtenNextTurn: replies.map((reply) => reply.raw.writableEnded) }),
          );
        });
        replies.forEach((reply, index) => void reply.send({ answer: index }));
      };
    });
    const responses = await Promise.all(
      Array.from({ length: gateSize }, () => fetch(`${baseUrl}/gate`).then((response) => response.json())),
    );
    const { heldAtTurnEnd, writtenNextTurn } = await gateOpened;
    expect(heldAtTurnEnd).toEqual([true, true, true, true, true]);
    expect(writtenNextTurn).toEqual([true, true, true, true, true]);
    expect(responses.map((body) => (body as { answer: number }).answer).sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('keeps each concurrent answer its own status, type and body', async () => {
    const ids = ['1', 'missing', 'bytes', '2', '3', 'missing', '4'];
    const responses = await Promise.all(ids.map((id) => fetch(`${baseUrl}/items/${id}`)));
    for (const [index, response] of responses.entries()) {
      const id = ids[index];
      if (id === 'missing') {
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual({ error: 'no such item' });
      } else if (id === 'bytes') {
        expect(response.headers.get('content-type')).toBe('application/octet-stream');
        expect([...new Uint8Array(await response.arrayBuffer())]).toEqual([1, 2, 3]);
      } else {
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ id });
      }
    }
  });
});
