// Registers every type (each type file declares its type and root fields) and builds the schema.
import '../types/pageInfo';
import '../types/stats';
import '../types/country';
import '../types/dataset';
import '../types/asn';
import '../types/organization';
import '../types/asnLink';
import '../types/location';
import '../types/prefix';
import '../types/asnCone';
import '../types/asnConesStream';
import {
  GraphQLError,
  isObjectType,
  lexicographicSortSchema,
  printSchema,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from 'graphql';
import { ArgumentError } from '@asrank/domain';
import { isStatementTimeout } from '@asrank/db';
import { builder } from '../builder';

let schema: GraphQLSchema | undefined;

/** What a client is told when one of its statements ran past the service's limit (DB_STATEMENT_TIMEOUT_MS). */
export const STATEMENT_TIMEOUT_MESSAGE =
  'the request was stopped: one of its database statements ran longer than the service allows one statement ' +
  '(DB_STATEMENT_TIMEOUT_MS); ask for less at once: a smaller offset or page, fewer months (dateStart, dateEnd), ' +
  'or over several months a sort that starts with "date"';

/**
 * Client errors keep their message: an ArgumentError gets `extensions { code: 'BAD_USER_INPUT', argument }` (so the
 * HTTP layers can answer 400), a statement stopped by its time limit code STATEMENT_TIMEOUT. Anything else (SQL, driver, bug) becomes a generic error naming only the field
 * (`extensions.code: 'INTERNAL_SERVER_ERROR'`), so no SQL text or stack reaches a client; the original error stays on
 * `originalError` for the server's log.
 */
function publicError(error: unknown, where: string): unknown {
  if (error instanceof GraphQLError) return error;
  if (error instanceof ArgumentError) {
    // Without a call stack of its own either, as the ArgumentError is made (its constructor says why).
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return new GraphQLError(error.message, {
        originalError: error,
        extensions: { code: 'BAD_USER_INPUT', argument: error.argument },
      });
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
  }
  // The request asked for more than one statement may take (code STATEMENT_TIMEOUT): said as such, not as a fault.
  if (isStatementTimeout(error))
    return new GraphQLError(STATEMENT_TIMEOUT_MESSAGE, {
      originalError: error instanceof Error ? error : undefined,
      extensions: { code: 'STATEMENT_TIMEOUT' },
    });
  return new GraphQLError(`internal error while resolving ${where}`, {
    originalError: error instanceof Error ? error : undefined,
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
  });
}

/** The property a field exposed by Pothos under another name reads (`t.exposeString('asn_name')` as asnName). */
function exposedProperty(field: GraphQLField<unknown, unknown>): string | undefined {
  const property = (field.extensions as { pothosExposedField?: unknown }).pothosExposedField;
  return typeof property === 'string' && property !== field.name ? property : undefined;
}

/**
 * Wraps every resolver in the error guard (publicError), except a field Pothos exposes under another name: reading a
 * property of a record cannot fail, and such a field is marked instead (`jitReadsProperty`) for graphql-jit to read
 * that property inline, as it reads a field without a resolver. A field of PARENT_ITSELF (types/stats.ts) carries
 * `jitReadsParent` from its declaration. graphql-jit, as patched (patches/graphql-jit@0.8.9.patch), reads both
 * inline: a resolver call costs ~60 ns with its arguments, info, path and closures, paid per row of a list for every
 * such field it shows. graphql-js still calls the resolvers, with the same answers.
 */
function guardResolvers(target: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(target.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve as GraphQLFieldResolver<unknown, unknown> | undefined;
      if (!resolve) continue;
      const property = exposedProperty(field);
      if (property !== undefined) {
        field.extensions = { ...field.extensions, jitReadsProperty: property };
        continue;
      }
      const where = `${type.name}.${field.name}`;
      field.resolve = (source, args, context, info) => {
        try {
          const result = resolve(source, args, context, info);
          // Only promises get a handler, so synchronous fields stay synchronous.
          return result instanceof Promise
            ? result.catch((error: unknown) => Promise.reject(publicError(error, where)))
            : result;
        } catch (error) {
          throw publicError(error, where);
        }
      };
    }
  }
  return target;
}

/** The executable schema (built once; Pothos builders cannot build twice). */
export function createSchema(): GraphQLSchema {
  schema ??= guardResolvers(builder.toSchema());
  return schema;
}

/** The SDL committed as packages/schema/schema.graphql. */
export function printSchemaSDL(): string {
  return `${printSchema(lexicographicSortSchema(createSchema()))}\n`;
}
