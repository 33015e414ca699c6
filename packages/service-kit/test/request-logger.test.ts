// Deferred request loggers over real HTTP and a real pino logger: lines at enabled levels are written with the
// request's id and the server's serializers, lines at other levels are not, and pino's child is made only for a
// request that writes a line (once, however many it writes).
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { deferredRequestLoggers } from '../src';

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  req?: { method: string; url: string };
  detail?: string;
}

async function serverLogging(
  level: string,
): Promise<{ app: FastifyInstance; baseUrl: string; lines: LogLine[] }> {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n'))
        if (text) lines.push(JSON.parse(text) as LogLine);
      done();
    },
  });
  let nextId = 0;
  const app = Fastify({
    logger: {
      level,
      stream,
      serializers: {
        req: (request: { method: string; url: string }) => ({ method: request.method, url: request.url }),
      },
    },
    genReqId: () => `request-${++nextId}`,
    childLoggerFactory: deferredRequestLoggers,
  });
  app.get('/quiet', async (request) => {
    request.log.debug('not written at info or warn');
    return { ok: true };
  });
  app.get('/warns', async (request) => {
    request.log.info('not written at warn');
    request.log.warn({ detail: 'first' }, 'something odd');
    request.log.warn({ detail: 'second' }, 'something odder');
    return { ok: true };
  });
  app.get('/errors-only', { logLevel: 'error' }, async (request) => {
    request.log.warn('below the route level');
    request.log.error('at the route level');
    return { ok: true };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, lines };
}

describe('deferredRequestLoggers', () => {
  describe('at warn', () => {
    let server: Awaited<ReturnType<typeof serverLogging>>;
    let childrenMade: jest.SpyInstance;

    beforeAll(async () => {
      server = await serverLogging('warn');
      childrenMade = jest.spyOn(server.app.log, 'child');
    });

    afterAll(async () => {
      await server.app.close();
    });

    it('makes no pino child for a request that writes nothing', async () => {
      childrenMade.mockClear();
      expect((await fetch(`${server.baseUrl}/quiet`)).status).toBe(200);
      expect(childrenMade).not.toHaveBeenCalled();
      expect(server.lines).toEqual([]);
    });

    it('writes enabled lines with the request id, making one child for them', async () => {
      childrenMade.mockClear();
      expect((await fetch(`${server.baseUrl}/warns`)).status).toBe(200);
      expect(childrenMade).toHaveBeenCalledTimes(1);
      const written = server.lines.filter((line) => line.msg.startsWith('something'));
      expect(written.map(({ msg, detail, level }) => ({ msg, detail, level }))).toEqual([
        { msg: 'something odd', detail: 'first', level: 40 },
        { msg: 'something odder', detail: 'second', level: 40 },
      ]);
      const [first, second] = written;
      expect(first?.reqId).toMatch(/^request-\d+$/);
      expect(second?.reqId).toBe(first?.reqId);
      expect(server.lines.some((line) => line.msg === 'not written at warn')).toBe(false);
    });

    it("keeps a route's own level", async () => {
      expect((await fetch(`${server.baseUrl}/errors-only`)).status).toBe(200);
      const messages = server.lines.map((line) => line.msg);
      expect(messages).toContain('at the route level');
      expect(messages).not.toContain('below the route level');
    });
  });

  describe('at info', () => {
    let server: Awaited<ReturnType<typeof serverLogging>>;

    beforeAll(async () => {
      server = await serverLogging('info');
    });

    afterAll(async () => {
      await server.app.close();
    });

    it("writes Fastify's request lines with the id and the server's serializers", async () => {
      expect((await fetch(`${server.baseUrl}/quiet?x=1`)).status).toBe(200);
      const incoming = server.lines.find((line) => line.msg === 'incoming request');
      const completed = server.lines.find((line) => line.msg === 'request completed');
      expect(incoming?.req).toEqual({ method: 'GET', url: '/quiet?x=1' });
      expect(incoming?.reqId).toMatch(/^request-\d+$/);
      expect(completed?.reqId).toBe(incoming?.reqId);
      expect(server.lines.some((line) => line.msg === 'not written at info or warn')).toBe(false);
    });
  });
});
