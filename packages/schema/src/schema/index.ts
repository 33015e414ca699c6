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
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from 'graphql';
import { ArgumentError } from '@asrank/domain';
import { builder } from '../builder';

let schema: GraphQLSchema | undefined;

/**
 * Client errors keep their message: an ArgumentError gets `extensions { code: 'BAD_USER_INPUT', argument }` (so the
 * HTTP layers can answer 400). Anything else (SQL, driver, bug) becomes a generic error naming only the field
 * (`extensions.code: 'INTERNAL_SERVER_ERROR'`), so no SQL text or stack reaches a client; the original error stays on
 * `originalError` for the server's log.
 */
function publicError(error: unknown, where: string): unknown {
  if (error instanceof GraphQLError) return error;
  if (error instanceof ArgumentError) {
    return new GraphQLError(error.message, {
      originalError: error,
      extensions: { code: 'BAD_USER_INPUT', argument: error.argument },
    });
  }
  return new GraphQLError(`internal error while resolving ${where}`, {
    originalError: error instanceof Error ? error : undefined,
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
  });
}

function guardResolvers(target: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(target.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve as GraphQLFieldResolver<unknown, unknown> | undefined;
      if (!resolve) continue;
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
