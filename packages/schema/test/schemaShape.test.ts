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
    ['AsnEdge', 'node'],
    ['AsnLinkEdge', 'node'],
    ['AsnCone', 'asn'],
  ])('%s.%s has no resolver of its own', (typeName, fieldName) => {
    const type = schema.getType(typeName) as GraphQLObjectType;
    expect(type.getFields()[fieldName]?.resolve).toBeUndefined();
  });

  // graphql-jit, as patched, reads a field inline when its extensions say what its resolver reads (schema/index.ts):
  // a column exposed under another name, or the parent itself (a record's cone and degrees). Every row of a list
  // shows several. The markers must say what the resolvers do, or graphql-jit and graphql-js would answer apart.
  const fields = Object.values(schema.getTypeMap())
    .filter((type): type is GraphQLObjectType => isObjectType(type) && !type.name.startsWith('__'))
    .flatMap((type) => Object.values(type.getFields()).map((field) => ({ type, field })));
  const extensionOf = (field: (typeof fields)[number]['field'], name: string): unknown =>
    (field.extensions as Record<string, unknown>)[name];
  const noInfo = {} as never;

  it.each([
    ['Asn', 'asnName', 'asn_name'],
    ['Organization', 'orgId', 'org_id'],
    ['Organization', 'orgName', 'org_name'],
    ['AsnLink', 'numberPaths', 'number_paths'],
    ['Cone', 'numberAsns', 'cone_asns'],
    ['AsnDegree', 'total', 'degree_total'],
    ['AsnCone', 'cone', 'asn'],
  ])('%s.%s is read inline from its property %s', (typeName, fieldName, property) => {
    const field = (schema.getType(typeName) as GraphQLObjectType).getFields()[fieldName]!;
    expect(extensionOf(field, 'jitReadsProperty')).toBe(property);
  });

  it.each([
    ['Asn', 'cone'],
    ['Asn', 'asnDegree'],
    ['Organization', 'cone'],
    ['Organization', 'asnDegree'],
    ['Organization', 'members'],
    ['Organization', 'orgDegree'],
    ['Asn', 'announcing'],
  ])('%s.%s is read inline as its parent', (typeName, fieldName) => {
    const field = (schema.getType(typeName) as GraphQLObjectType).getFields()[fieldName]!;
    expect(extensionOf(field, 'jitReadsParent')).toBe(true);
  });

  it('marks only resolvers that read what their marker says', () => {
    const byProperty = fields.filter(({ field }) => extensionOf(field, 'jitReadsProperty') !== undefined);
    const byParent = fields.filter(({ field }) => extensionOf(field, 'jitReadsParent') !== undefined);
    expect(byProperty.length).toBeGreaterThanOrEqual(19);
    for (const { type, field } of byProperty) {
      const property = String(extensionOf(field, 'jitReadsProperty'));
      const value = { of: `${type.name}.${field.name}` };
      expect([
        `${type.name}.${field.name}`,
        field.resolve?.({ [property]: value }, {}, noInfo, noInfo),
      ]).toEqual([`${type.name}.${field.name}`, value]);
    }
    expect(byParent.length).toBeGreaterThanOrEqual(7);
    for (const { type, field } of byParent) {
      const parent = { of: type.name };
      expect(field.resolve?.(parent, {}, noInfo, noInfo)).toBe(parent);
    }
  });
});
