// Sends one route's GraphQL query with the request's id, so both services log the same id per request.
import type { FastifyRequest } from 'fastify';
import { GraphqlResponseError } from '../plugins/graphql-client';

/**
 * Runs `query` with `variables`. `parameterOf` renames GraphQL arguments to the REST parameters they came
 * from (e.g. `asn` → `asn0`), so a GraphQL argument error names the parameter the client actually sent, in its
 * `parameter` and in its message.
 */
export async function queryGraphql<TData>(
  request: FastifyRequest,
  query: string,
  variables: Record<string, unknown>,
  parameterOf: Readonly<Record<string, string>> = {},
): Promise<TData> {
  try {
    const { data } = await request.server.graphqlClient.execute<TData>({
      query,
      variables,
      requestId: request.id,
    });
    return data;
  } catch (error) {
    if (error instanceof GraphqlResponseError && error.argument !== undefined) {
      const parameter = parameterOf[error.argument] ?? error.argument;
      throw new GraphqlResponseError(
        error.messages.map((message) => restWording(message, error.argument!, parameter)),
        parameter,
      );
    }
    throw error;
  }
}

/**
 * A GraphQL argument error as the REST client reads it: opening with the parameter it sent (`asn0 must be ...`), not
 * the GraphQL argument or variable the route filled from it (`asn must be ...`, `variable $orgId must ...`).
 */
function restWording(message: string, argument: string, parameter: string): string {
  for (const opening of [`${argument} `, `variable $${argument} `])
    if (message.startsWith(opening)) return `${parameter} ${message.slice(opening.length)}`;
  return message;
}
