// A request body over BODY_LIMIT is refused with 413 before it is read, and Fastify then closes the connection
// ("the client may send more data"). Closing a socket whose unread body is still arriving makes the kernel
// reset it, and a client still writing gets EPIPE/ECONNRESET instead of the 413 and its message (the fuzz test
// saw this for 1-2% of 0.3-1.2 MB bodies). When the body's length is declared and moderate, the connection is
// kept instead: Node then reads and discards the rest of the body after the answer (`IncomingMessage#_dump`),
// the client finishes writing and reads the 413, and the socket stays usable. Larger declared bodies and chunked
// ones keep Fastify's close (reading them would cost more than a client that sends them deserves).
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

/** Above this declared length the rest of a refused body is not read: the connection is closed. */
export const MAX_DRAINED_BODY_BYTES = 16 * 1024 * 1024;

async function oversizedBody(app: FastifyInstance): Promise<void> {
  // Callback style: runs for every answer, and an async hook costs a promise and a microtask each time.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode === 413) {
      const declared = Number(request.headers['content-length']);
      // readableDidRead: Fastify refused on the declared length without reading, so the parser is at the body's
      // start and draining exactly `declared` bytes leaves the next request intact.
      if (Number.isInteger(declared) && declared <= MAX_DRAINED_BODY_BYTES && !request.raw.readableDidRead)
        reply.removeHeader('connection');
    }
    done(null, payload);
  });
}

export const oversizedBodyPlugin = fp(oversizedBody, { name: 'oversized-body', fastify: '5.x' });
