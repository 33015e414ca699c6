// Answers finished in the same turn of the event loop are written to their sockets together, at the end of that
// turn (one setImmediate for all of them), not each the moment it is ready. A socket write hands the bytes to the
// kernel, which wakes the client if it sleeps; on this project's 2-core machine (a Firecracker microVM) waking a
// sleeping peer costs several µs of the writer's CPU, and a busy service answering its clients one by one woke them
// once per answer: the writes alone took ~9-13 µs of the point lookup's ~50 µs a request, against ~4 µs for a bare
// Fastify route (docs/performance.md, thirty-sixth round). Written together, the answers of one turn wake a client
// once, and it sends its next requests together, so the service reads them in one turn too. An answer waits at most
// for the rest of its turn's work (the other requests that arrived with it); alone in its turn it is written at once.
// Node has no switch for this: `socket.cork()` does not hold an answer back, as `res.end()` uncorks its socket fully.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

type SendCallback = (error: Error | null, payload: unknown) => void;

async function writeCoalescingPlugin(app: FastifyInstance): Promise<void> {
  // The answers held until the turn's end: callback, payload, callback, payload, ... (no object per answer).
  let held: unknown[] = [];
  let flushScheduled = false;
  const flush = () => {
    flushScheduled = false;
    const sends = held;
    held = [];
    let failure: unknown;
    for (let index = 0; index < sends.length; index += 2) {
      // Fastify's send path does not throw; if it ever did, the other answers must still go out.
      try {
        (sends[index] as SendCallback)(null, sends[index + 1]);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  };
  app.addHook('onSend', (_request, _reply, payload, done) => {
    held.push(done, payload);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  });
}

/**
 * Holds every answer until the end of the event-loop turn it was finished in, then writes them all. Register it
 * first: its onSend hook then runs before the others (registration order), which run when the turn ends.
 */
export const writeCoalescing = fp(writeCoalescingPlugin, { name: 'write-coalescing', fastify: '5.x' });
