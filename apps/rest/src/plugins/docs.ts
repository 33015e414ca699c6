// The REST guide: an OpenAPI 3 document generated from the route schemas (@fastify/swagger) and a
// browsable Swagger UI at {BASE_PATH}/restful/doc whose scripts and styles this service serves itself
// (no CDN, so the guide works offline), with the document at {BASE_PATH}/restful/doc/json.
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export interface DocsOptions {
  basePath: string;
}

export const DOC_PATH = '/restful/doc';

async function docsPlugin(app: FastifyInstance, options: DocsOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'AS Rank v2.1 REST interface',
        version: '2.1.0',
        description:
          'A simplified layer over the AS Rank GraphQL API: every route answers by sending one GraphQL query to ' +
          'the GraphQL service and returns its data unchanged (`{"data": ...}`), or, with `populate=1`, in the ' +
          'REST record shapes (values as strings). Unknown ASNs and organizations answer 200 with a null record. ' +
          'Errors are JSON: 400 names the bad parameter, 405 answers a method other than GET or HEAD, 502/504 mean ' +
          'the GraphQL service is unreachable, failing or slow, and 503 (with Retry-After) that this service is ' +
          'overloaded.',
      },
      tags: [
        { name: 'asns', description: 'Autonomous systems' },
        { name: 'asnLinks', description: 'Links between pairs of ASNs' },
        { name: 'organizations', description: 'Organizations owning ASNs' },
        { name: 'datasets', description: 'Monthly datasets' },
      ],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: `${options.basePath}${DOC_PATH}`,
    uiConfig: { docExpansion: 'list', deepLinking: true },
    staticCSP: true,
  });
}

export default fp(docsPlugin, { name: 'docs', fastify: '5.x' });
