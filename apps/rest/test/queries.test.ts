// Every GraphQL document the REST routes send is valid against the committed schema (packages/schema/
// schema.graphql), so a renamed field or argument fails here rather than as a 400 in production.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema, isObjectType, Kind, parse, validate, type FragmentDefinitionNode } from 'graphql';
import * as queries from '../src/graphql/queries';

const schemaFile = path.resolve(__dirname, '..', '..', '..', 'packages', 'schema', 'schema.graphql');
const OPERATIONS = Object.entries(queries).filter(([name]) => name.endsWith('_QUERY'));

describe('REST query documents', () => {
  const schema = buildSchema(readFileSync(schemaFile, 'utf8'));

  it('covers every route operation', () => {
    expect(OPERATIONS.map(([name]) => name).sort()).toEqual(
      [
        'ASN_QUERY',
        'ASNS_QUERY',
        'ASNS_BY_NAME_QUERY',
        'ASN_LINKS_QUERY',
        'ASN_LINKS_OF_ASN_QUERY',
        'ORGANIZATION_QUERY',
        'ORGANIZATIONS_QUERY',
        'DATASETS_QUERY',
      ].sort(),
    );
  });

  it.each(OPERATIONS)('%s validates against schema.graphql', (_name, text) => {
    const errors = validate(schema, parse(text as string));
    expect(errors.map((error) => error.message)).toEqual([]);
  });

  it('asks for every field without arguments of Asn, Organization, AsnLink and Dataset', () => {
    /** Fields of `typeName` that take no arguments (those with arguments are nested connections with their own routes). */
    const plainFields = (typeName: string): string[] => {
      const type = schema.getType(typeName);
      if (!isObjectType(type)) throw new Error(`no object type ${typeName}`);
      return Object.values(type.getFields())
        .filter((field) => field.args.length === 0)
        .map((field) => field.name)
        .sort();
    };
    /** Top-level field names selected by the fragment on `typeName` in `document`. */
    const selected = (typeName: string, document: string): string[] => {
      const fragment = parse(document).definitions.find(
        (definition): definition is FragmentDefinitionNode =>
          definition.kind === Kind.FRAGMENT_DEFINITION && definition.typeCondition.name.value === typeName,
      );
      if (!fragment) throw new Error(`no fragment on ${typeName}`);
      return fragment.selectionSet.selections
        .flatMap((selection) => (selection.kind === Kind.FIELD ? [selection.name.value] : []))
        .sort();
    };
    expect(selected('Asn', queries.ASN_FIELDS)).toEqual(plainFields('Asn'));
    expect(selected('Organization', queries.ORGANIZATION_FIELDS)).toEqual(plainFields('Organization'));
    expect(selected('AsnLink', queries.LINK_FIELDS)).toEqual(plainFields('AsnLink'));
    expect(selected('Dataset', queries.DATASET_FIELDS)).toEqual(plainFields('Dataset'));
  });
});
