// Graceful close with keep-alive clients. app.close() stops accepting and closes the connections idle at that
// moment; a connection still busy answering stays open after its answer for as long as a keep-alive client
// holds it, so close() waited for clients to hang up (seen on the REST service: every in-flight request
// answered, then exit 1 at the shutdown timeout). Closing idle connections again while close() is pending ends
// each such connection as soon as its answer is done.
//
// An answer finished while closing says `Connection: close` (connectionCloseWhileClosing): sent as keep-alive, its
// client could send the next request on that connection just as the sweep closed it, and got a reset instead of
// an answer (or, through nginx, a 502 for a POST it would not resend).
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

const IDLE_SWEEP_MS = 50;

/** The HTTP servers of apps being closed (WeakSet: an app of a test may close while another keeps serving). */
const closingServers = new WeakSet<object>();

async function connectionCloseWhileClosingPlugin(app: FastifyInstance): Promise<void> {
  // Callback style: one WeakSet lookup an answer, and no promise.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closingServers.has(reply.server.server)) reply.header('connection', 'close');
    done(null, payload);
  });
}

/** Marks every answer finished after closeGracefully began with `Connection: close`. */
export const connectionCloseWhileClosing = fp(connectionCloseWhileClosingPlugin, {
  name: 'connection-close-while-closing',
  fastify: '5.x',
});

export async function closeGracefully(app: FastifyInstance): Promise<void> {
  closingServers.add(app.server);
  const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
  sweep.unref();
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
  }
}
