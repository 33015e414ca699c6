// Sends one route's GraphQL query with the request's id, so both services log the same id per request.
import type { FastifyRequest } from 'fastify';

export async function queryGraphql<TData>(
  request: FastifyRequest,
  query: string,
  variables: Record<string, unknown>,
): Promise<TData> {
  const { data } = await request.server.graphqlClient.execute<TData>({ query, variables, requestId: request.id });
  return data;
}
