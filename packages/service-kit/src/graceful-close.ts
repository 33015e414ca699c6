// Graceful close with keep-alive clients. app.close() stops accepting and closes the connections idle at that
// moment; a connection still busy answering stays open after its answer for as long as a keep-alive client
// holds it, so close() waited for clients to hang up (seen on the REST service: every in-flight request
// answered, then exit 1 at the shutdown timeout). Closing idle connections again while close() is pending ends
// each such connection as soon as its answer is done.
import type { FastifyInstance } from 'fastify';

const IDLE_SWEEP_MS = 50;

export async function closeGracefully(app: FastifyInstance): Promise<void> {
  const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
  sweep.unref();
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
  }
}
