// ASN routes: the list, one ASN (also under the short form /asns/:asn the spec's samples use), and the
// name search, each answered by one GraphQL query.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ArgumentError } from '@asrank/domain';
import { ASN_QUERY, ASNS_BY_NAME_QUERY, ASNS_QUERY } from '../graphql/queries';
import { mapConnection, restAsnRecord, type GraphqlAsn, type GraphqlConnection } from '../populate';
import { answerList, queryGraphql } from './forward';
import {
  asnParams,
  listQuerystring,
  listVariables,
  invalidParameterMessage,
  nameParams,
  recordQuerystring,
  recordVariables,
  type ListQuery,
  type RecordQuery,
} from './parameters';
import { responses } from './schemas';

interface AsnData {
  asn: GraphqlAsn | null;
}

interface AsnsData {
  asns: GraphqlConnection<GraphqlAsn>;
}

/** `populate=1`: the page's ASNs as REST records. */
function restAsns(data: AsnsData): { asns: GraphqlConnection<unknown> } {
  return { asns: mapConnection(data.asns, restAsnRecord) };
}

export default async function asnRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: ListQuery }>(
    '/restful/asns',
    {
      schema: {
        tags: ['asns'],
        summary: 'List ASNs',
        description:
          'ASNs of the latest month (or one record per ASN and month of [dateStart, dateEnd]); GraphQL `asns(first, offset, sort, dateStart, dateEnd)`.',
        querystring: listQuerystring,
        response: responses('`{"data": {"asns": {totalCount, pageInfo, edges: [{cursor, node}]}}}`'),
      },
    },
    (request, reply) =>
      answerList(request, reply, {
        query: ASNS_QUERY,
        variables: listVariables(request.query, 'asns'),
        populated: restAsns,
      }),
  );

  app.get<{ Params: { name: string }; Querystring: ListQuery }>(
    '/restful/asns/name/:name',
    {
      schema: {
        tags: ['asns'],
        summary: 'Search ASNs by name',
        description:
          'ASNs whose name or organization name contains `name` (case-insensitive); GraphQL `asns(name, first, offset, sort, dateStart, dateEnd)`.',
        params: nameParams,
        querystring: listQuerystring,
        response: responses('`{"data": {"asns": {totalCount, pageInfo, edges: [{cursor, node}]}}}`'),
      },
    },
    (request, reply) =>
      answerList(request, reply, {
        query: ASNS_BY_NAME_QUERY,
        variables: { name: request.params.name, ...listVariables(request.query, 'asns') },
        populated: restAsns,
      }),
  );

  // Without it, `/restful/asns/name` is read as the ASN "name" and refused as one, which hides what is missing.
  app.get('/restful/asns/name', { schema: { hide: true } }, async () => {
    throw new ArgumentError(
      'name',
      invalidParameterMessage(
        'path parameter',
        'name',
        'missing; the name search is /restful/asns/name/:name',
      ),
    );
  });

  const oneAsn = {
    schema: {
      tags: ['asns'],
      summary: 'One ASN',
      description:
        'One ASN in the latest month or the month `date`; GraphQL `asn(asn, date)`. Unknown ASNs answer `{"data": {"asn": null}}`.',
      params: asnParams,
      querystring: recordQuerystring,
      response: responses('`{"data": {"asn": {...} | null}}`'),
    },
  };
  const answerAsn = async (
    request: FastifyRequest<{ Params: { asn: string }; Querystring: RecordQuery }>,
  ) => {
    const data = await queryGraphql<AsnData>(request, ASN_QUERY, {
      asn: request.params.asn,
      ...recordVariables(request.query),
    });
    return { data: request.query.populate === 1 ? { asn: data.asn && restAsnRecord(data.asn) } : data };
  };
  app.get<{ Params: { asn: string }; Querystring: RecordQuery }>('/restful/asns/:asn', oneAsn, answerAsn);
  app.get<{ Params: { asn: string }; Querystring: RecordQuery }>(
    '/asns/:asn',
    { schema: { ...oneAsn.schema, summary: 'One ASN (short form of /restful/asns/:asn)' } },
    answerAsn,
  );
}
