// The REST guide: the OpenAPI document validates against the OpenAPI 3 schema, lists every route with its
// parameters, and the browsable page and its assets are served by this service itself (no CDN).
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIV3 } from 'openapi-types';
import type { FastifyInstance } from 'fastify';
import { buildRestApp } from '../src/app';
import { UNREACHABLE_GRAPHQL_URL, getJson, listenOnEphemeralPort } from './http';

describe('OpenAPI guide at /restful/doc', () => {
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    app = await buildRestApp({ basePath: '/v2', graphqlUrl: UNREACHABLE_GRAPHQL_URL, logLevel: 'silent' });
    base = await listenOnEphemeralPort(app);
  });
  afterAll(() => app.close());

  async function openapiDocument(): Promise<OpenAPIV3.Document> {
    const answer = await getJson(`${base}/v2/restful/doc/json`);
    expect(answer.status).toBe(200);
    return answer.body as OpenAPIV3.Document;
  }

  it('validates as an OpenAPI 3 document', async () => {
    const document = await openapiDocument();
    expect(document.openapi).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it('lists every route with its path and query parameters', async () => {
    const document = await openapiDocument();
    const expected: Record<string, string[]> = {
      '/v2/restful/asns': ['first', 'offset', 'sort', 'dateStart', 'dateEnd', 'populate'],
      '/v2/restful/asns/{asn}': ['asn', 'date', 'populate'],
      '/v2/restful/asns/name/{name}': ['name', 'first', 'offset', 'sort', 'dateStart', 'dateEnd', 'populate'],
      '/v2/restful/asnLinks': ['first', 'offset', 'sort', 'dateStart', 'dateEnd', 'populate'],
      '/v2/restful/asnLinks/{asn0}': ['asn0', 'first', 'offset', 'sort', 'dateStart', 'dateEnd', 'populate'],
      '/v2/restful/organizations': ['first', 'offset', 'sort', 'dateStart', 'dateEnd', 'populate'],
      '/v2/restful/organizations/{organization}': ['organization', 'date', 'populate', 'first', 'offset'],
      '/v2/restful/datasets': ['first', 'offset', 'sort', 'dateStart', 'dateEnd', 'populate'],
      '/v2/asns/{asn}': ['asn', 'date', 'populate'],
      '/v2/orgs/{orgId}': ['orgId', 'date', 'populate', 'first', 'offset'],
    };
    expect(Object.keys(document.paths).sort()).toEqual(Object.keys(expected).sort());
    for (const [route, parameters] of Object.entries(expected)) {
      const operation = document.paths[route]?.get;
      expect(operation?.summary).toBeTruthy();
      const names = (operation?.parameters as OpenAPIV3.ParameterObject[]).map((parameter) => parameter.name);
      expect(names.sort()).toEqual([...parameters].sort());
      expect(Object.keys(operation?.responses ?? {}).sort()).toEqual(['200', '400', '502', '503', '504']);
    }
  });

  it('serves the browsable guide with local assets only', async () => {
    const page = await fetch(`${base}/v2/restful/doc`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('swagger-ui');
    const assetUrls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');
    expect(assetUrls.length).toBeGreaterThan(2);
    for (const url of assetUrls) {
      expect(url).not.toMatch(/^(https?:)?\/\//);
      const asset = await fetch(new URL(url, `${base}/v2/restful/doc/`));
      // Read the body so the connection is released before the server closes.
      const bytes = (await asset.arrayBuffer()).byteLength;
      expect(`${url} ${asset.status}`).toBe(`${url} 200`);
      expect(bytes).toBeGreaterThan(0);
    }
  });
});
