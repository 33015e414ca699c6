// Sends one route's GraphQL query with the request's id, so both services log the same id per request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GraphqlResponseError } from '../plugins/graphql-client';
import type { ListQuery } from './parameters';

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
  const { data } = await inRestWording(parameterOf, () =>
    request.server.graphqlClient.execute<TData>({ query, variables, requestId: request.id }),
  );
  return data;
}

/**
 * Pages of at least this many rows are sent alone and answered verbatim (answerList). Smaller ones gain more from
 * a batch: under ten connections `/restful/asns?first=5` answered ~15% fewer requests a second alone, while pages of
 * 10 answered ~10% more and of 40 to 1,000 20-50% more (docs/performance.md, seventy-seventh round).
 */
export const VERBATIM_FROM_PAGE_SIZE = 10;

/**
 * The answer of a list route: with `populate=1` the page as REST records (`populated`), else the GraphQL data as it
 * is. Then a page of VERBATIM_FROM_PAGE_SIZE rows or more is sent alone, and its answer, when it holds nothing but
 * data, is passed on as the GraphQL service's own bytes: a 1,000-ASN page spent about 8 ms of its ~28 reading that
 * JSON and writing it again. A smaller page goes in a batch, whose answer is read.
 */
export async function answerList<TData>(
  request: FastifyRequest<{ Querystring: ListQuery }>,
  reply: FastifyReply,
  page: { query: string; variables: Record<string, unknown>; populated: (data: TData) => unknown },
  parameterOf: Readonly<Record<string, string>> = {},
): Promise<Buffer | { data: unknown }> {
  const { query, variables, populated } = page;
  if (request.query.populate === 1)
    return { data: populated(await queryGraphql<TData>(request, query, variables, parameterOf)) };
  if (request.query.first < VERBATIM_FROM_PAGE_SIZE)
    return { data: await queryGraphql<TData>(request, query, variables, parameterOf) };
  const answer = await inRestWording(parameterOf, () =>
    request.server.graphqlClient.executeVerbatim<TData>({ query, variables, requestId: request.id }),
  );
  if (!Buffer.isBuffer(answer)) return { data: answer.data };
  // Fastify sends bytes without its serializer, and without a type names them application/octet-stream.
  void reply.type('application/json; charset=utf-8');
  return answer;
}

/** Runs `call`, its GraphQL argument errors renamed to the REST parameters they came from (`parameterOf`). */
async function inRestWording<TResult>(
  parameterOf: Readonly<Record<string, string>>,
  call: () => Promise<TResult>,
): Promise<TResult> {
  try {
    return await call();
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
