// What a client sees when something fails. Errors the client caused (bad syntax, unknown fields, a bad
// argument reported by the schema as an ArgumentError, limits) keep their message; anything else is
// logged with its stack and replaced by a generic message, so no stack trace or SQL text ever leaves.
import { GraphQLError, type ExecutionResult } from 'graphql';
import { defaultErrorFormatter, type MercuriusContext } from 'mercurius';
import { ArgumentError } from '@asrank/domain';

export const INTERNAL_ERROR_MESSAGE = 'Internal server error: the request could not be completed';

function isArgumentError(error: unknown): error is ArgumentError {
  // Checked by shape too, in case two copies of @asrank/domain are loaded.
  return (
    error instanceof ArgumentError ||
    (error instanceof Error &&
      error.name === 'ArgumentError' &&
      typeof (error as { argument?: unknown }).argument === 'string')
  );
}

/** Fastify/Mercurius errors with a 4xx status (body too large, validation, bad JSON) are the client's. */
function isClientHttpError(error: unknown): boolean {
  const statusCode = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500;
}

/** The innermost cause of an error (resolvers may wrap it in GraphQLErrors more than once). */
function rootCause(error: GraphQLError): unknown {
  let cause: unknown = error;
  while (cause instanceof GraphQLError && cause.originalError) cause = cause.originalError;
  return cause;
}

function sanitize(error: GraphQLError, log: MercuriusContext['app']['log']): GraphQLError {
  const cause = rootCause(error);
  if (error.extensions?.['code'] === 'INTERNAL_SERVER_ERROR') {
    // The schema already replaced the message with a generic one; the cause is only for our log.
    log.error({ err: cause, path: error.path }, 'unexpected error while answering a GraphQL request');
    return error;
  }
  // No cause outside GraphQLError means graphql-js or our limits produced it from the request.
  if (cause === error || cause instanceof GraphQLError) return error;
  if (isArgumentError(cause)) {
    return new GraphQLError(cause.message, {
      nodes: error.nodes,
      path: error.path,
      extensions: { ...error.extensions, code: 'BAD_USER_INPUT', argument: cause.argument },
    });
  }
  if (isClientHttpError(cause)) return error;
  log.error({ err: cause, path: error.path }, 'unexpected error while answering a GraphQL request');
  return new GraphQLError(INTERNAL_ERROR_MESSAGE, {
    nodes: error.nodes,
    path: error.path,
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
  });
}

export function asrankErrorFormatter(
  execution: ExecutionResult & Required<Pick<ExecutionResult, 'errors'>>,
  context: MercuriusContext,
): ReturnType<typeof defaultErrorFormatter> {
  const log = context.reply ? context.reply.log : context.app.log;
  const errors = execution.errors.map((error) => sanitize(error, log));
  const formatted = defaultErrorFormatter({ ...execution, errors }, context);
  // A failure that is not the client's (no data at all, only internal errors) is a server error.
  const allInternal = errors.every((error) => error.extensions?.['code'] === 'INTERNAL_SERVER_ERROR');
  if (!execution.data && allInternal) return { ...formatted, statusCode: 500 };
  return formatted;
}
