// Input that graphql-js and Mercurius accept but the service must refuse with a 400, found by the fuzz and
// security tests in tools/e2e:
// - query text that is JSON (`"abc"`, `123`, `{"kind":"Document"}`): Mercurius falls back to JSON.parse when
//   the GraphQL parse fails and executes the result as a pre-parsed AST, so a malformed "AST" crashed
//   validation with a 500 (and a well-formed one would bypass the token limit). No GraphQL document is
//   valid JSON, so such text is refused as a syntax error.
// - NUL characters in string arguments: PostgreSQL cannot store or compare them in text and failed with a
//   500; no AS Rank value contains one, so they are refused naming the argument or variable.
// - a batch (a JSON array of operations) longer than GRAPHQL_MAX_BATCH or empty: every operation of a batch costs
//   what a request costs, so its length is bounded like any other per-request limit. A fault in any one operation
//   refuses the whole batch, naming the operation by its index.
// Registered in the context of the GraphQL routes only, whose every request it checks.
import fp from 'fastify-plugin';
import { GraphQLError, Kind, parse, visit, type DocumentNode } from 'graphql';
import type { FastifyInstance } from 'fastify';

export interface InputGuardsOptions {
  /** Most operations a POST may carry as a JSON array. */
  maxBatchOperations: number;
}

const JSON_START = /^\s*["[{0-9tfn-]/;

function isJsonText(text: string): boolean {
  if (!JSON_START.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

type Refusal = Error & { statusCode: number; errors: GraphQLError[] };

function refuse(message: string, extensions: Record<string, unknown>): Refusal {
  // Shaped like Mercurius' validation errors, so the error formatter answers 400 listing the message.
  return Object.assign(new Error(message), {
    statusCode: 400,
    errors: [new GraphQLError(message, { extensions })],
  });
}

/** The path of the first string containing NUL in a variables value, e.g. `name` or `asns[2]`. */
function nulPath(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = nulPath(value[index], `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const found = nulPath(inner, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return undefined;
}

async function inputGuardsPlugin(
  app: FastifyInstance,
  { maxBatchOperations }: InputGuardsOptions,
): Promise<void> {
  // Callback style: the check never waits, and an async hook costs a promise and a microtask per request.
  app.addHook('preHandler', (request, _reply, done) => {
    let refusal: Error | undefined;
    try {
      refusal =
        request.method === 'GET'
          ? refusalOf(request.query)
          : Array.isArray(request.body)
            ? batchRefusalOf(request.body, maxBatchOperations)
            : refusalOf(request.body);
    } catch (error) {
      refusal = error as Error;
    }
    done(refusal);
  });
}

/** Why a batch must be refused: its length, or the first operation that must be (named by its index). */
function batchRefusalOf(operations: unknown[], maxBatchOperations: number): Refusal | undefined {
  if (maxBatchOperations <= 1) {
    return refuse(
      'this service takes no batches (GRAPHQL_MAX_BATCH is 1): send one operation as a JSON object, not an array',
      { code: 'BAD_REQUEST' },
    );
  }
  if (operations.length === 0) {
    return refuse('a batch must hold at least one operation', { code: 'BAD_REQUEST' });
  }
  if (operations.length > maxBatchOperations) {
    return refuse(
      `a batch may hold at most ${maxBatchOperations} operations (GRAPHQL_MAX_BATCH), got ${operations.length}`,
      { code: 'BAD_REQUEST', maxBatchOperations },
    );
  }
  for (let index = 0; index < operations.length; index += 1) {
    const refusal = refusalOf(operations[index]);
    if (refusal !== undefined) {
      const [cause] = refusal.errors;
      return refuse(`operation ${index} of the batch: ${refusal.message}`, {
        ...cause?.extensions,
        operation: index,
      });
    }
  }
  return undefined;
}

/** Why a /graphql request must be refused (a 400 naming the fault), or undefined. */
function refusalOf(body: unknown): Refusal | undefined {
  const source = body as { query?: unknown } | null | undefined;
  const query = source?.query;
  if (typeof query !== 'string') return undefined;
  if (isJsonText(query)) {
    return refuse('Syntax Error: the query must be a GraphQL document, not JSON', {
      code: 'GRAPHQL_PARSE_FAILED',
    });
  }
  let variables = (source as { variables?: unknown }).variables;
  if (typeof variables === 'string') {
    try {
      variables = JSON.parse(variables);
    } catch {
      return undefined; // Mercurius reports malformed variables itself.
    }
  }
  const variable = nulPath(variables ?? {}, '');
  if (variable !== undefined) {
    return refuse(`variable $${variable} must not contain NUL (\\u0000) characters`, {
      code: 'BAD_USER_INPUT',
      argument: variable.split(/[.[]/)[0],
    });
  }
  // Parsing twice only for the rare document that spells a NUL escape; syntax errors are Mercurius' to report.
  if (!query.includes('\\u0000') && !query.includes('\u0000')) return undefined;
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch {
    return undefined;
  }
  const argument = firstArgumentWithNul(document);
  if (argument === undefined) return undefined;
  return refuse(`argument ${argument} must not contain NUL (\\u0000) characters`, {
    code: 'BAD_USER_INPUT',
    argument,
  });
}

/** The name of the first argument whose value contains a string with a NUL character. */
function firstArgumentWithNul(document: DocumentNode): string | undefined {
  let argument: string | undefined;
  visit(document, {
    Argument(node) {
      if (argument !== undefined) return false;
      visit(node.value, {
        [Kind.STRING]: (value) => {
          if (value.value.includes('\u0000')) argument = node.name.value;
        },
      });
      return undefined;
    },
  });
  return argument;
}

export const inputGuards = fp(inputGuardsPlugin, { name: 'input-guards', fastify: '5.x' });
