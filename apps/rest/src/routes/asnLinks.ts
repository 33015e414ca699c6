// AS link routes: every link of the month, or the links of one ASN (asn0 is that ASN, asn1 the neighbour).
import type { FastifyInstance } from 'fastify';
import { ASN_LINKS_OF_ASN_QUERY, ASN_LINKS_QUERY } from '../graphql/queries';
import { mapConnection, restAsnLinkRecord, type GraphqlAsnLink, type GraphqlConnection } from '../populate';
import { answerList } from './forward';
import { asn0Params, listQuerystring, listVariables, type ListQuery } from './parameters';
import { responses } from './schemas';

interface AsnLinksData {
  asnLinks: GraphqlConnection<GraphqlAsnLink>;
}

/** `populate=1`: the page's links as REST records. */
function restLinks(data: AsnLinksData): { asnLinks: GraphqlConnection<unknown> } {
  return { asnLinks: mapConnection(data.asnLinks, restAsnLinkRecord) };
}

export default async function asnLinkRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: ListQuery }>(
    '/restful/asnLinks',
    {
      schema: {
        tags: ['asnLinks'],
        summary: 'List AS links',
        description:
          'Links of the latest month; GraphQL `asnLinks(first, offset, sort, dateStart, dateEnd)`.',
        querystring: listQuerystring,
        response: responses('`{"data": {"asnLinks": {totalCount, pageInfo, edges: [{cursor, node}]}}}`'),
      },
    },
    (request, reply) =>
      answerList(request, reply, {
        query: ASN_LINKS_QUERY,
        variables: listVariables(request.query, 'asnLinks'),
        populated: restLinks,
      }),
  );

  app.get<{ Params: { asn0: string }; Querystring: ListQuery }>(
    '/restful/asnLinks/:asn0',
    {
      schema: {
        tags: ['asnLinks'],
        summary: 'Links of one ASN',
        description:
          'Links of ASN `asn0` (asn0 is that ASN, asn1 the neighbour); GraphQL `asnLinks(asn, first, offset, sort, dateStart, dateEnd)`.',
        params: asn0Params,
        querystring: listQuerystring,
        response: responses('`{"data": {"asnLinks": {totalCount, pageInfo, edges: [{cursor, node}]}}}`'),
      },
    },
    (request, reply) =>
      answerList(
        request,
        reply,
        {
          query: ASN_LINKS_OF_ASN_QUERY,
          variables: { asn: request.params.asn0, ...listVariables(request.query, 'asnLinks') },
          populated: restLinks,
        },
        { asn: 'asn0' },
      ),
  );
}
