// How the REST service answers when the GraphQL side misbehaves at the HTTP level: a server that accepts
// connections but never answers (504 after the configured timeout, not a hang) and one that answers with
// something that is not GraphQL (502). The upstream here is a raw node:http server playing a broken
// service; the behaviour against the real GraphQL service is in services.test.ts.
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { buildRestApp } from '../src/app';
import { getJson, listenOnEphemeralPort, startUpstream } from './http';

describe('GraphQL service failures', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()?.();
  });

  async function restAgainst(upstreamUrl: string): Promise<string> {
    const app: FastifyInstance = await buildRestApp({
      basePath: '',
      graphqlUrl: upstreamUrl,
      graphqlTimeoutMs: 300,
      logLevel: 'silent',
      // The statuses under test are 502 and 504; a stall of the test machine must not shed with 503 first.
      maxEventLoopDelayMs: 0,
    });
    cleanups.push(() => app.close());
    return listenOnEphemeralPort(app);
  }

  it('answers 504 with a JSON error when the GraphQL service accepts but never answers', async () => {
    const pending: ServerResponse[] = [];
    const upstream = await startUpstream((response) => pending.push(response));
    cleanups.push(
      () =>
        new Promise((resolve) => {
          upstream.server.closeAllConnections();
          upstream.server.close(resolve);
        }),
    );
    const base = await restAgainst(upstream.url);
    const answer = await getJson(`${base}/restful/asns/3356`);
    expect(answer.status).toBe(504);
    expect(answer.body).toMatchObject({ statusCode: 504, error: 'Gateway Timeout' });
    // The GraphQL service's address and the transport's error code stay in the log.
    expect((answer.body as { message: string }).message).toBe('the GraphQL service did not answer in time');
    expect(pending.length).toBeGreaterThan(0);
  });

  it('answers 502 when the upstream answers with something that is not a GraphQL response', async () => {
    const upstream = await startUpstream((response) => {
      response.writeHead(503, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
    });
    cleanups.push(() => new Promise((resolve) => upstream.server.close(resolve)));
    const base = await restAgainst(upstream.url);
    const answer = await getJson(`${base}/restful/organizations`);
    expect(answer.status).toBe(502);
    expect((answer.body as { message: string }).message).toMatch(/HTTP 503 without a JSON body/);
  });

  it.each([
    ['HTTP 500', 500, { code: 'INTERNAL_SERVER_ERROR' }],
    ['an INTERNAL_SERVER_ERROR with HTTP 200', 200, { code: 'INTERNAL_SERVER_ERROR' }],
    ['an error with HTTP 503', 503, {}],
  ])(
    "answers 502, not the client's 400, when the GraphQL service fails on its side (%s)",
    async (_label, status, extensions) => {
      const upstream = await startUpstream((response) => {
        response.writeHead(status, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            data: null,
            errors: [{ message: 'SQLITE_ERROR: no such table: asns', extensions }],
          }),
        );
      });
      cleanups.push(() => new Promise((resolve) => upstream.server.close(resolve)));
      const base = await restAgainst(upstream.url);
      const answer = await getJson(`${base}/restful/asns/3356`, { 'x-request-id': 'trace-9' });
      expect(answer.status).toBe(502);
      expect(answer.body).toMatchObject({ statusCode: 502, error: 'Bad Gateway', requestId: 'trace-9' });
      expect(JSON.stringify(answer.body)).not.toMatch(/SQLITE|no such table/);
    },
  );

  it("answers 504 with the GraphQL message when a statement ran past the GraphQL service's time limit", async () => {
    const message =
      'the request was stopped: one of its database statements ran longer than the service allows';
    const upstream = await startUpstream((response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          data: null,
          errors: [{ message, path: ['asnLinks'], extensions: { code: 'STATEMENT_TIMEOUT' } }],
        }),
      );
    });
    cleanups.push(() => new Promise((resolve) => upstream.server.close(resolve)));
    const base = await restAgainst(upstream.url);
    const answer = await getJson(`${base}/restful/asnLinks?offset=4000000`);
    expect(answer.status).toBe(504);
    expect(answer.body).toMatchObject({ statusCode: 504, error: 'Gateway Timeout', message });
  });

  it('forwards the request id and passes GraphQL errors through as 400 with their messages', async () => {
    const seenIds: unknown[] = [];
    const upstream = await startUpstream((response, headers) => {
      seenIds.push(headers['x-request-id']);
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          data: null,
          errors: [
            {
              message: 'first must be a whole number',
              extensions: { code: 'BAD_USER_INPUT', argument: 'first' },
            },
            { message: 'second problem' },
          ],
        }),
      );
    });
    cleanups.push(() => new Promise((resolve) => upstream.server.close(resolve)));
    const base = await restAgainst(upstream.url);
    const answer = await getJson(`${base}/restful/asns`, { 'x-request-id': 'trace-7' });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      message: 'first must be a whole number; second problem',
      parameter: 'first',
      errors: [{ message: 'first must be a whole number' }, { message: 'second problem' }],
      requestId: 'trace-7',
    });
    expect(seenIds).toEqual(['trace-7']);
  });
});
