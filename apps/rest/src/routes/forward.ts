// Sends one route's GraphQL query with the request's id, so both services log the same id per request.
import type { FastifyRequest } from 'fastify';
import { GraphqlResponseError } from '../plugins/graphql-client';

/**
 * Runs `query` with `variables`. `parameterOf` renames GraphQL arguments to the REST parameters they came
 * from (e.g. `asn` → `asn0`), so a GraphQL argument error names the parameter the client actually sent.
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
    if (
      error instanceof GraphqlResponseError &&
      error.argument !== undefined &&
      parameterOf[error.argument] !== undefined
    ) {
      throw new GraphqlResponseError(error.messages, parameterOf[error.argument]);
    }
    throw error;
  }
}
