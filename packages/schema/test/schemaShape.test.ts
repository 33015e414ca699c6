// The schema's shape: committed SDL is current, and every connection follows the spec's connection rules.
import fs from 'node:fs';
import path from 'node:path';
import {
  getNamedType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLOutputType,
} from 'graphql';
import { createSchema, printSchemaSDL } from '../src';

describe('schema shape', () => {
  const schema = createSchema();

  it('matches the committed schema.graphql (run `pnpm --filter @asrank/schema run print-schema` to update)', () => {
    const committed = fs.readFileSync(path.join(__dirname, '..', 'schema.graphql'), 'utf8');
    expect(printSchemaSDL()).toBe(committed);
  });

  it('has every root field of the spec with its arguments', () => {
    const query = schema.getQueryType();
    expect(query).toBeDefined();
    const fields = query!.getFields();
    const argsOf = (name: string) =>
      (fields[name]?.args ?? []).map((arg: { name: string }) => arg.name).sort();
    const expected: Record<string, string[]> = {
      dataset: ['date'],
      datasets: ['first', 'offset', 'sort', 'dateStart', 'dateEnd'],
      asn: ['asn', 'date'],
      asns: ['first', 'offset', 'name', 'asns', 'seen', 'sort', 'dateStart', 'dateEnd'],
      organization: ['orgId', 'date'],
      organizations: ['first', 'offset', 'name', 'seen', 'sort', 'dateStart', 'dateEnd'],
      asnLink: ['asn0', 'asn1', 'date'],
      asnLinks: ['first', 'offset', 'asn', 'asns', 'sort', 'dateStart', 'dateEnd'],
      locations: ['first', 'offset', 'sort', 'dateStart', 'dateEnd'],
    };
    for (const [name, args] of Object.entries(expected)) {
      expect({ name, args: argsOf(name) }).toEqual({ name, args: [...args].sort() });
    }
  });

  it('gives every ...Connection type edges { node cursor }, a non-null PageInfo and totalCount', () => {
    const connections = Object.values(schema.getTypeMap()).filter(
      (type): type is GraphQLObjectType => isObjectType(type) && type.name.endsWith('Connection'),
    );
    expect(connections.length).toBeGreaterThanOrEqual(5);
    for (const connection of connections) {
      const fields = connection.getFields();
      expect(fields.totalCount?.type.toString()).toBe('Int!');
      if (connection.name === 'AsnConeStreamConnection') continue;
      expect(fields.pageInfo?.type.toString()).toBe('PageInfo!');
      const edgesType = fields.edges?.type as GraphQLOutputType;
      expect(isNonNullType(edgesType) && isListType(edgesType.ofType)).toBe(true);
      const edge = getNamedType(edgesType) as GraphQLObjectType;
      const edgeFields = edge.getFields();
      expect(edgeFields.cursor?.type.toString()).toBe('String!');
      const nodeType = edgeFields.node!.type;
      expect(nodeType instanceof GraphQLList).toBe(false);
      expect(nodeType instanceof GraphQLNonNull && nodeType.ofType instanceof GraphQLList).toBe(false);
    }
    const pageInfo = schema.getType('PageInfo') as GraphQLObjectType;
    const types = Object.fromEntries(
      Object.entries(pageInfo.getFields()).map(([name, field]) => [name, field.type.toString()]),
    );
    expect(types).toEqual({
      hasPreviousPage: 'Boolean!',
      hasNextPage: 'Boolean!',
      startCursor: 'String!',
      endCursor: 'String!',
      first: 'Int!',
      offset: 'Int!',
      status: 'String!',
    });
  });

  // graphql-jit reads a field without a resolver inline; a resolver costs a call with its own info and path objects
  // for every record of a list (docs/performance.md, nineteenth round). These fields are the record's own property.
  it.each([
    ['Asn', 'asn'],
    ['Asn', 'rank'],
    ['Asn', 'date'],
    ['Organization', 'rank'],
    ['Prefix', 'network'],
    ['Prefix', 'length'],
  ])('%s.%s has no resolver of its own', (typeName, fieldName) => {
    const type = schema.getType(typeName) as GraphQLObjectType;
    expect(type.getFields()[fieldName]?.resolve).toBeUndefined();
  });
});
