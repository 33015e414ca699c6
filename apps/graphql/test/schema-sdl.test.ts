// The schema served over HTTP (introspection, as GraphiQL reads it) is exactly the committed SDL.
import { buildClientSchema, getIntrospectionQuery, printSchema, type IntrospectionQuery } from 'graphql';
import { printSchemaSDL } from '@asrank/schema';
import {
  graphqlData,
  sqliteWithSample,
  startService,
  type LoadedDatabase,
  type RunningService,
} from './helpers';

let store: LoadedDatabase;
let service: RunningService;

beforeAll(async () => {
  store = await sqliteWithSample();
  service = await startService(store.url, { BASE_PATH: '/v2' });
}, 120_000);

afterAll(async () => {
  await service?.close();
  await store?.dispose();
});

it('serves by introspection the schema printSchemaSDL() prints, root fields asnCone and asnConesStream included', async () => {
  const introspection = await graphqlData<IntrospectionQuery>(
    service.baseUrl,
    getIntrospectionQuery({ descriptions: true }),
    { method: 'GET' },
  );
  const served = printSchema(buildClientSchema(introspection));
  expect(served.trim()).toBe(printSchemaSDL().trim());
  expect(served).toMatch(/asnConesStream\(/);
  expect(served).toMatch(/asnCone\(/);
});

it('answers only under BASE_PATH', async () => {
  const root = service.baseUrl.replace(/\/v2$/, '');
  const outside = await fetch(`${root}/graphql?query=${encodeURIComponent('{ datasets { totalCount } }')}`);
  expect(outside.status).toBe(404);
  const page = await fetch(`${service.baseUrl}/graphiql`);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('/v2/graphql');
  expect(html).not.toMatch(/https?:\/\//);
  for (const asset of [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!)) {
    const response = await fetch(`${root}${asset}`);
    expect(response.status).toBe(200);
  }
});
