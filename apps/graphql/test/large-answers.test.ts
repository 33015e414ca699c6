// The GraphQL service's large-answer serializer, over real HTTP: a clean answer holding a large list leaves the
// serializer as bytes (exactly JSON.stringify's, Content-Length in bytes); answers with errors, small answers and
// other routes keep the route's own serializer (here a response schema like Mercurius', which drops what it does
// not declare, so the test sees which serializer ran). The whole service's answers are covered in
// operations.test.ts (a large list cached and served again).
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { LARGE_ARRAY_ELEMENTS } from '@asrank/service-kit';
import { largeAnswersBySlices } from '../src/plugins/large-answers';

const responseSchema = {
  200: {
    type: 'object',
    properties: {
      data: { type: ['object', 'null'], additionalProperties: true },
      errors: { type: 'array', items: { type: 'object', properties: { message: { type: 'string' } } } },
      extensions: { type: 'object', additionalProperties: true },
    },
  },
};

const names = ['Lumen – LEVEL3', 'Ростелеком', '中国电信', 'Telefónica'];
const largeList = Array.from({ length: LARGE_ARRAY_ELEMENTS + 100 }, (_, index) => ({
  asn: String(index),
  asnName: names[index % names.length],
}));

describe('largeAnswersBySlices', () => {
  let app: FastifyInstance;
  let baseUrl: string;
  const payloadKinds: Record<string, string> = {};
  const answers: Record<string, unknown> = {
    clean: { data: { asns: largeList }, extensions: { note: 'passed through by both serializers' } },
    undeclared: { data: { asns: largeList }, undeclared: 'dropped by the schema serializer' },
    errors: { data: { asns: largeList }, errors: [{ message: 'partial', path: ['asns'] }] },
    small: { data: { asns: largeList.slice(0, 10) }, undeclared: 'dropped' },
  };

  beforeAll(async () => {
    app = Fastify();
    app.addHook('onSend', async (request, _reply, payload) => {
      payloadKinds[request.url] = Buffer.isBuffer(payload) ? 'bytes' : typeof payload;
      return payload;
    });
    // As the service registers it: in the context of the GraphQL routes, beside which other routes live.
    await app.register(async (graphqlRoutes) => {
      await graphqlRoutes.register(largeAnswersBySlices);
      graphqlRoutes.post('/graphql', { schema: { response: responseSchema } }, async (request) => {
        return answers[(request.body as { answer: string }).answer];
      });
    });
    app.post('/other', { schema: { response: responseSchema } }, async () => answers['clean']);
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app.close();
  });

  const post = async (path: string, answer: string) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answer }),
    });
    return { response, bytes: Buffer.from(await response.arrayBuffer()) };
  };

  it('sends a clean answer holding a large list as the bytes of JSON.stringify', async () => {
    const { response, bytes } = await post('/graphql', 'clean');
    const expected = Buffer.from(JSON.stringify(answers['clean']), 'utf8');
    expect(response.status).toBe(200);
    expect(payloadKinds['/graphql']).toBe('bytes');
    expect(bytes.equals(expected)).toBe(true);
    expect(response.headers.get('content-length')).toBe(String(expected.length));
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('leaves answers with errors or other members, small answers and other routes to the route serializer', async () => {
    const withErrors = await post('/graphql', 'errors');
    expect(payloadKinds['/graphql']).toBe('string');
    // The schema serializer keeps only the declared error fields.
    expect(JSON.parse(withErrors.bytes.toString('utf8'))).toEqual({
      data: { asns: largeList },
      errors: [{ message: 'partial' }],
    });
    const small = await post('/graphql', 'small');
    expect(payloadKinds['/graphql']).toBe('string');
    expect(JSON.parse(small.bytes.toString('utf8'))).toEqual({ data: { asns: largeList.slice(0, 10) } });
    const undeclared = await post('/graphql', 'undeclared');
    expect(payloadKinds['/graphql']).toBe('string');
    expect(JSON.parse(undeclared.bytes.toString('utf8'))).toEqual({ data: { asns: largeList } });
    const other = await post('/other', 'clean');
    expect(payloadKinds['/other']).toBe('string');
    expect(JSON.parse(other.bytes.toString('utf8'))).toEqual(answers['clean']);
  });
});
