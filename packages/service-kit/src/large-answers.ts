// A large answer leaves as bytes, not as a string. Node's http module prepends the response head to a string body
// (`_header + data` in OutgoingMessage#_send), so a string answer of a few hundred KB is copied once more into a
// fresh V8 large object (its own mmap, page faults, freed by the GC) before the socket encodes it; a Buffer body is
// written after the head as it is. On this project's 2-core machine a bare Node server took 4.3-7.1 ms per 363 KB
// answer (one cone-stream page) as a string and 2.6-3.0 ms as bytes, Buffer.from's UTF-8 encoding included, and the
// GraphQL service's CPU per page fell by ~2 ms (docs/performance.md, nineteenth round). From ~150 KB up the
// difference holds, at 70 KB and below there is none, so smaller answers (nearly all) are left as they are.
// Encoding still flattens JSON.stringify's rope into one fresh large string (its page faults cost ~1.8 ms for 363
// KB on this machine); the GraphQL service writes clean answers holding a large list without it (json-bytes.ts),
// and this hook remains for the other large answers.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

/** String answers at least this long (UTF-16 code units, at least as many UTF-8 bytes) are sent as bytes. */
export const LARGE_ANSWER_CHARACTERS = 128 * 1024;

async function largeAnswers(app: FastifyInstance): Promise<void> {
  // A callback hook, not an async one: it runs on every answer, and most pass through untouched.
  app.addHook('onSend', (_request, _reply, payload, done) => {
    if (typeof payload === 'string' && payload.length >= LARGE_ANSWER_CHARACTERS)
      done(null, Buffer.from(payload, 'utf8'));
    else done(null, payload);
  });
}

/**
 * Sends string answers of LARGE_ANSWER_CHARACTERS or more as UTF-8 bytes. Register it after plugins whose onSend
 * hooks read the answer as a string (they run in registration order).
 */
export const largeAnswersAsBytes = fp(largeAnswers, { name: 'large-answers-as-bytes', fastify: '5.x' });
