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

/**
 * `made` (an error rebuilt from `original`) with `original`'s locations: graphql-jit's errors carry their locations
 * without the AST nodes graphql-js derives them from, so a compiled query's answer lost them.
 */
function locatedAs(original: GraphQLError, made: GraphQLError): GraphQLError {
  if (made.locations === undefined && original.locations !== undefined)
    (made as { locations: GraphQLError['locations'] }).locations = original.locations;
  return made;
}

function sanitize(error: GraphQLError, log: MercuriusContext['app']['log']): GraphQLError {
  const cause = rootCause(error);
  if (error.extensions?.['code'] === 'INTERNAL_SERVER_ERROR') {
    // The schema already replaced the message with a generic one; the cause is only for our log.
    log.error({ err: cause, path: error.path }, 'unexpected error while answering a GraphQL request');
    return error;
  }
  if (error.extensions?.['code'] === 'STATEMENT_TIMEOUT') {
    // The schema said what happened (the request asked for too much at once); the statement is for our log.
    log.warn({ err: cause, path: error.path }, 'a statement ran past the statement time limit');
    return error;
  }
  // No cause outside GraphQLError means graphql-js or our limits produced it from the request.
  if (cause === error || cause instanceof GraphQLError) return error;
  if (isArgumentError(cause)) {
    return locatedAs(
      error,
      new GraphQLError(cause.message, {
        nodes: error.nodes,
        path: error.path,
        extensions: { ...error.extensions, code: 'BAD_USER_INPUT', argument: cause.argument },
      }),
    );
  }
  if (isClientHttpError(cause)) return error;
  log.error({ err: cause, path: error.path }, 'unexpected error while answering a GraphQL request');
  return locatedAs(
    error,
    new GraphQLError(INTERNAL_ERROR_MESSAGE, {
      nodes: error.nodes,
      path: error.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    }),
  );
}

/**
 * Refusals whose wording comes from the stack, rewritten to say what was refused and why, as this service's own
 * limits do (`query refused: ...`, code QUERY_TOO_COMPLEX).
 */
const REWORDED_REFUSALS: readonly {
  pattern: RegExp;
  message: (match: RegExpExecArray) => string;
  extensions: (match: RegExpExecArray) => Record<string, unknown>;
}[] = [
  {
    // Mercurius' depth limit: "`unnamedQuery query depth (17) exceeds the query depth limit of 15`".
    pattern: /^`?\S+ query depth \((\d+)\) exceeds the query depth limit of (\d+)`?$/,
    message: (match) => `query refused: its depth ${match[1]} exceeds the query depth limit of ${match[2]}`,
    extensions: (match) => ({
      code: 'QUERY_TOO_COMPLEX',
      depth: Number(match[1]),
      maxDepth: Number(match[2]),
    }),
  },
  {
    // graphql-js gives up comparing a document's fields for conflicts when they are too many (its own budget).
    pattern: /^Validation aborted\.$/,
    message: () =>
      'query refused: it has too many fields of the same name for graphql-js to check that they agree; ' +
      'ask for each field once, or give repeated fields aliases of their own',
    extensions: () => ({ code: 'QUERY_TOO_COMPLEX' }),
  },
  {
    // graphql-js's own spelling.
    pattern: /^Syntax Error: Document contains more that (\d+) tokens\. Parsing aborted\.$/,
    message: (match) => `Syntax Error: Document contains more than ${match[1]} tokens. Parsing aborted.`,
    extensions: () => ({}),
  },
];

type FormattedError = { message: string; extensions?: Record<string, unknown> } & Record<string, unknown>;

function reworded(error: FormattedError): FormattedError {
  for (const refusal of REWORDED_REFUSALS) {
    const match = refusal.pattern.exec(error.message);
    if (match) {
      const extensions = { ...error.extensions, ...refusal.extensions(match) };
      return {
        ...error,
        message: refusal.message(match),
        ...(Object.keys(extensions).length > 0 ? { extensions } : {}),
      };
    }
  }
  return error;
}

export function asrankErrorFormatter(
  execution: ExecutionResult & Required<Pick<ExecutionResult, 'errors'>>,
  context: MercuriusContext,
): ReturnType<typeof defaultErrorFormatter> {
  const log = context.reply ? context.reply.log : context.app.log;
  const errors = execution.errors.map((error) => sanitize(error, log));
  const formatted = defaultErrorFormatter({ ...execution, errors }, context);
  const response = formatted.response as { errors?: FormattedError[] };
  if (response.errors) response.errors = response.errors.map(reworded);
  // A failure that is not the client's (no data at all, only internal errors) is a server error.
  const allInternal = errors.every((error) => error.extensions?.['code'] === 'INTERNAL_SERVER_ERROR');
  if (!execution.data && allInternal) return { ...formatted, statusCode: 500 };
  // Mercurius answers a refused document (one validation error wrapping each of graphql-js's) with that error's 400
  // only when it holds a single message, and 200 when it holds several.
  const wrapped = (errors[0]?.originalError as { statusCode?: unknown } | undefined)?.statusCode;
  if (!execution.data && errors.length === 1 && typeof wrapped === 'number' && formatted.statusCode === 200)
    return { ...formatted, statusCode: wrapped };
  return formatted;
}
