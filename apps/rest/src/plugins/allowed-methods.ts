// Every route here is read-only (GET, and the HEAD Fastify adds). Another method on one of their paths used to fall
// through to the 404 "no route" answer, which told the client the resource did not exist. Each GET route now gets a
// twin for the other methods: OPTIONS answers 204 and 405 answers the rest, both naming the allowed methods in
// `Allow` (RFC 9110 §15.5.6 requires it on a 405).
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { echoedPath } from './errors';

const ALLOWED = 'GET, HEAD';
const OTHER_METHODS = ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

class MethodNotAllowedError extends Error {
  readonly statusCode = 405;
}

async function allowedMethodsPlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', function addTwin(route) {
    if (route.config?.methodsTwin === true || ![route.method].flat().includes('GET')) return;
    // `this` is the instance the route was declared on, whose prefix `routePath` leaves out.
    this.route({
      method: OTHER_METHODS,
      url: route.routePath,
      config: { methodsTwin: true },
      schema: { hide: true },
      handler: (request, reply) => {
        reply.header('allow', ALLOWED);
        if (request.method === 'OPTIONS') return reply.code(204).send();
        throw new MethodNotAllowedError(
          `${request.method} is not answered here: ${echoedPath(request.url)} answers ${ALLOWED}`,
        );
      },
    });
  });
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the routes allowed-methods adds, so it does not add twins of its twins. */
    methodsTwin?: boolean;
  }
}

export default fp(allowedMethodsPlugin, { name: 'allowed-methods', fastify: '5.x' });
