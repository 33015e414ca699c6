// A service closing with keep-alive clients: the answer to a request in flight when closing began says
// `Connection: close` and the connection ends after it, so its client opens a new connection for its next request
// (to another replica) instead of sending it down one the service is about to close.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { closeGracefully, connectionCloseWhileClosing } from '../src';

async function serviceWithSlowRoute() {
  const app = Fastify();
  await app.register(connectionCloseWhileClosing);
  app.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { answered: true };
  });
  app.get('/quick', async () => ({ answered: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as AddressInfo).port };
}

function get(port: number, path: string, agent: http.Agent) {
  return new Promise<{
    status: number;
    connection: string | undefined;
    body: string;
    socketEnded: Promise<void>;
  }>((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, agent }, (response) => {
      // Taken now: once the answer is read, a kept-alive socket goes back to the agent.
      const socketEnded = new Promise<void>((ended) => response.socket.once('close', () => ended()));
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          connection: response.headers.connection,
          body,
          socketEnded,
        }),
      );
    });
    request.on('error', reject);
  });
}

describe('closeGracefully with keep-alive clients', () => {
  it('answers a request in flight with Connection: close, and keeps other services answering keep-alive', async () => {
    const closing = await serviceWithSlowRoute();
    const other = await serviceWithSlowRoute();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    try {
      const inFlight = get(closing.port, '/slow', agent);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const closed = closeGracefully(closing.app);
      const answer = await inFlight;
      expect(answer).toMatchObject({ status: 200, connection: 'close', body: '{"answered":true}' });
      await answer.socketEnded;
      await closed;
      // Another app in the same process is not closing: its answers stay keep-alive.
      const kept = await get(other.port, '/quick', agent);
      expect(kept).toMatchObject({ status: 200, connection: 'keep-alive' });
    } finally {
      agent.destroy();
      await other.app.close();
    }
  });
});
