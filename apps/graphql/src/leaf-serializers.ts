// graphql-jit's serializers for the built-in scalars, each with a fast path for a value that already has the
// scalar's output type and graphql-js's own serializer for anything else, so every answer is what graphql-js would
// give, errors included. graphql-jit calls the scalar's serializer once per leaf value (a 10,000-item cone-stream
// page has ~20,000), and graphql-js's serializers first look for an object's valueOf and toJSON; answers of this
// schema are nearly all strings, integers and booleans already.
// Not graphql-jit's disableLeafSerialization: that would let a resolver's wrong scalar type into the answer.
import { GraphQLBoolean, GraphQLFloat, GraphQLID, GraphQLInt, GraphQLString } from 'graphql';

/** GraphQL's Int is a signed 32-bit integer (graphql-js rejects anything outside it). */
const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

export const leafSerializers: Record<string, (value: unknown) => unknown> = {
  String: (value) => (typeof value === 'string' ? value : GraphQLString.serialize(value)),
  ID: (value) => (typeof value === 'string' ? value : GraphQLID.serialize(value)),
  Int: (value) =>
    typeof value === 'number' && Number.isInteger(value) && value >= INT_MIN && value <= INT_MAX
      ? value
      : GraphQLInt.serialize(value),
  Float: (value) =>
    typeof value === 'number' && Number.isFinite(value) ? value : GraphQLFloat.serialize(value),
  Boolean: (value) => (typeof value === 'boolean' ? value : GraphQLBoolean.serialize(value)),
};
