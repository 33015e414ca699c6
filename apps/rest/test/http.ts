// Small HTTP helpers shared by the test files: real listeners on ephemeral ports, real requests.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';

export async function listenOnEphemeralPort(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}

export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`GET ${url} answered ${response.status} with a non-JSON body: ${text.slice(0, 200)}`);
  }
  return { status: response.status, headers: response.headers, body };
}

export async function postGraphql(
  graphqlUrl: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<unknown> {
  const response = await fetch(graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return response.json();
}

/**
 * The address of a GraphQL service that is down: port 1 of the loopback, where connections are refused. A port that
 * was free a moment ago (closedPortUrl) can be taken by another test's server before the requests reach it (the
 * workspace's suites run at once): in a CI run every request of routing.test.ts met another service's 404 there.
 * Ports below 1024 are never handed out as ephemeral ports, and no test listens on port 1.
 */
export const UNREACHABLE_GRAPHQL_URL = 'http://127.0.0.1:1/graphql';

/** A port that was free a moment ago, for a service of the test to listen on. */
export async function closedPortUrl(): Promise<string> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/graphql`;
}

/** A raw node:http server standing in for the GraphQL service, answering every POST with `handler`. */
export async function startUpstream(
  handler: (response: ServerResponse, requestHeaders: Record<string, unknown>) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => handler(response, request.headers));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql` };
}
