// The body of a call to the GraphQL service is made from the query's JSON, kept per query text: it must stay
// byte for byte what JSON.stringify({ query, variables }) makes, on the first call of a query and on every later one.
import { ASN_QUERY, ASNS_QUERY } from '../src/graphql/queries';
import { requestBody } from '../src/plugins/graphql-client';

const awkwardQueries = [
  ASN_QUERY,
  ASNS_QUERY,
  'query Quoted($name: String) { asns(name: "a \\"b\\" \\\\ c") { totalCount } }',
  'query Unicode { asn(asn: "1") { asnName } } # é – 😀 \u2028',
  '\tquery Tabs {\r\n asn(asn: "1") { asn } }',
];

describe('requestBody', () => {
  it.each(awkwardQueries)('writes %j as JSON.stringify would, first and again', (query) => {
    const variables = { asn: '3356', first: 2, sort: '-rank', absent: undefined, none: null };
    const expected = JSON.stringify({ query, variables });
    expect(requestBody(query, variables)).toBe(expected);
    expect(requestBody(query, variables)).toBe(expected);
    expect(JSON.parse(requestBody(query, { asn: '7' }))).toEqual({ query, variables: { asn: '7' } });
  });

  it('keeps writing correct bodies once more query texts have been seen than it keeps', () => {
    for (let index = 0; index < 200; index += 1) {
      const query = `query Many${index} { asn(asn: "${index}") { asn } }`;
      expect(requestBody(query, { index })).toBe(JSON.stringify({ query, variables: { index } }));
    }
    expect(requestBody(ASN_QUERY, {})).toBe(JSON.stringify({ query: ASN_QUERY, variables: {} }));
  });
});
