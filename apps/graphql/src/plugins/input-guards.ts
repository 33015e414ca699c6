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
// - a request whose envelope is not {query, variables, operationName} of the right types. Mercurius answered these
//   with "Unknown query" (no query), with its body schema's wording ("body/variables must be object,null, body must
//   be array, body must match a schema in anyOf"), after Fastify's coercion had turned `"query": 123` or `["…"]`
//   into text, or, for a batch's operation without a query, with an error object in place of that operation's
//   answer (status 200). Each is now a 400 naming the field, what it must be and what it was.
// Registered in the context of the GraphQL routes only, whose every request it checks before Fastify validates and
// coerces the body (preValidation), so it sees what the client sent.
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
    // for...in, not Object.entries: no array of pairs for every request's variables.
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const found = nulPath((value as Record<string, unknown>)[key], path ? `${path}.${key}` : key);
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
  app.addHook('preValidation', (request, _reply, done) => {
    let refusal: Error | undefined;
    try {
      refusal =
        // GET and the HEAD Fastify adds for it read the query string.
        request.method !== 'POST'
          ? operationRefusalOf(request.query, true)
          : Array.isArray(request.body)
            ? batchRefusalOf(request.body, maxBatchOperations)
            : (bodyRefusalOf(request.body) ?? operationRefusalOf(request.body, false));
    } catch (error) {
      refusal = error as Error;
    }
    done(refusal);
  });
}

/** What a JSON value is, for messages: `a number`, `an array`, `null`. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const OPERATION_SHAPE = '{"query": "<GraphQL document>", "variables": {...}, "operationName": "..."}';

/** Why a POST body that is neither one operation nor a batch must be refused. */
function bodyRefusalOf(body: unknown): Refusal | undefined {
  if (body !== null && typeof body === 'object') return undefined;
  if (body === undefined) {
    return refuse(
      `the request has no body: POST one operation ${OPERATION_SHAPE} as application/json, or GET with ?query=`,
      { code: 'BAD_REQUEST' },
    );
  }
  return refuse(
    `the body must be one operation ${OPERATION_SHAPE} or a JSON array of them (a batch), got ${kindOf(body)}`,
    { code: 'BAD_REQUEST' },
  );
}

/** An operation's envelope as checked: its query text, and its variables as a value (a GET's parsed from JSON). */
interface Envelope {
  query: string;
  variables: unknown;
}

/**
 * An operation's envelope, or why it must be refused: no query, or a field of the wrong type. A GET's fields are query
 * string parameters, its variables JSON text.
 */
function envelopeOf(operation: unknown, fromQueryString: boolean): Envelope | Refusal {
  if (operation === null || typeof operation !== 'object' || Array.isArray(operation)) {
    return refuse(`an operation must be a JSON object ${OPERATION_SHAPE}, got ${kindOf(operation)}`, {
      code: 'BAD_REQUEST',
    });
  }
  const { query, variables, operationName } = operation as Record<string, unknown>;
  if (query === undefined || query === null || query === '') {
    return refuse(
      fromQueryString
        ? 'the request holds no query: send the GraphQL document as the query parameter, ' +
            'e.g. ?query={ datasets { totalCount } }'
        : `the request holds no query: send the GraphQL document as "query", e.g. ${OPERATION_SHAPE}`,
      { code: 'BAD_REQUEST' },
    );
  }
  if (typeof query !== 'string') {
    return refuse(`query must be a string holding a GraphQL document, got ${kindOf(query)}`, {
      code: 'BAD_REQUEST',
    });
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    return refuse(
      `operationName must be a string naming an operation of the query, got ${kindOf(operationName)}`,
      { code: 'BAD_REQUEST' },
    );
  }
  let values = variables;
  if (fromQueryString && typeof variables === 'string') {
    try {
      values = JSON.parse(variables);
    } catch (error) {
      return refuse(
        `variables must be a JSON object of variable values, got text that is not JSON (${
          (error as Error).message
        })`,
        { code: 'BAD_REQUEST' },
      );
    }
  }
  if (values !== undefined && values !== null && (typeof values !== 'object' || Array.isArray(values))) {
    return refuse(`variables must be a JSON object of variable values, or null, got ${kindOf(values)}`, {
      code: 'BAD_REQUEST',
    });
  }
  return { query, variables: values };
}

/** Why one operation (a request's, or one of a batch's) must be refused, or undefined. */
function operationRefusalOf(operation: unknown, fromQueryString: boolean): Refusal | undefined {
  const envelope = envelopeOf(operation, fromQueryString);
  return envelope instanceof Error ? envelope : contentRefusalOf(envelope);
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
    const refusal = operationRefusalOf(operations[index], false);
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

/** Why an operation whose envelope holds must be refused for what its query or variables hold, or undefined. */
function contentRefusalOf({ query, variables }: Envelope): Refusal | undefined {
  if (isJsonText(query)) {
    return refuse('Syntax Error: the query must be a GraphQL document, not JSON', {
      code: 'GRAPHQL_PARSE_FAILED',
    });
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
