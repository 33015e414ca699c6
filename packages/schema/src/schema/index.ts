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
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { builder } from '../builder';

let schema: GraphQLSchema | undefined;

/** The executable schema (built once; Pothos builders cannot build twice). */
export function createSchema(): GraphQLSchema {
  schema ??= builder.toSchema();
  return schema;
}

/** The SDL committed as packages/schema/schema.graphql. */
export function printSchemaSDL(): string {
  return `${printSchema(lexicographicSortSchema(createSchema()))}\n`;
}
