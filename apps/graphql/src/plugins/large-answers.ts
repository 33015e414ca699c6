// Answers with a large list (a cone-stream page, a long list of ASNs or prefixes) are serialized straight to
// UTF-8 bytes by slices (service-kit's largeJsonBytes), never as one string of several hundred KB: such a string
// lives in V8's large-object space, whose every page is a fresh page fault, ~19 µs each on this project's machine
// (docs/performance.md, twentieth round). Everything else keeps Mercurius' own response serializer.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { holdsLargeArray, largeJsonBytes } from '@asrank/service-kit';

/**
 * A clean answer: `data` and perhaps `extensions`, which Mercurius' response schema passes through as they are, and
 * no errors, whose fields that schema picks. Other answers keep Mercurius' serializer.
 */
function isCleanAnswer(payload: unknown): boolean {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return false;
  for (const key in payload) {
    if (key === 'data' || key === 'extensions') continue;
    if (key === 'errors' && (payload as { errors?: unknown }).errors === undefined) continue;
    return false;
  }
  return true;
}

async function largeAnswers(app: FastifyInstance): Promise<void> {
  // A callback hook, not an async one: it runs on every answer, and nearly all pass through untouched.
  app.addHook('preSerialization', (_request, reply, payload, done) => {
    if (isCleanAnswer(payload) && holdsLargeArray(payload)) {
      // Fastify sends a Buffer from a serializer as it is; its types only name strings.
      reply.serializer(largeJsonBytes as unknown as (payload: unknown) => string);
    }
    done(null, payload);
  });
}

/** Serializes clean GraphQL answers that hold a large list to bytes by slices (register it with the GraphQL routes). */
export const largeAnswersBySlices = fp(largeAnswers, { name: 'large-answers-by-slices', fastify: '5.x' });
