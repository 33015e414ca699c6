// Organization routes: the list and one organization (also under the short form /orgs/:orgId).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ORGANIZATION_QUERY, ORGANIZATIONS_QUERY } from '../graphql/queries';
import {
  mapConnection,
  restOrganizationRecord,
  type GraphqlConnection,
  type GraphqlOrganization,
} from '../populate';
import { answerList, queryGraphql } from './forward';
import {
  listQuerystring,
  listVariables,
  organizationParams,
  organizationQuerystring,
  orgIdParams,
  recordVariables,
  type ListQuery,
  type OrganizationQuery,
} from './parameters';
import { responses } from './schemas';

interface OrganizationData {
  organization: GraphqlOrganization | null;
}

interface OrganizationsData {
  organizations: GraphqlConnection<GraphqlOrganization>;
}

async function answerOrganization(
  request: FastifyRequest<{ Querystring: OrganizationQuery }>,
  orgId: string,
  parameter: string,
) {
  const { first, offset } = request.query;
  const variables = { orgId, ...recordVariables(request.query), first, offset };
  const data = await queryGraphql<OrganizationData>(request, ORGANIZATION_QUERY, variables, {
    orgId: parameter,
  });
  return {
    data:
      request.query.populate === 1
        ? { organization: data.organization && restOrganizationRecord(data.organization) }
        : data,
  };
}

export default async function organizationRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: ListQuery }>(
    '/restful/organizations',
    {
      schema: {
        tags: ['organizations'],
        summary: 'List organizations',
        description:
          'Organizations of the latest month (or one record per organization and month of [dateStart, dateEnd]); GraphQL `organizations(first, offset, sort, dateStart, dateEnd)`.',
        querystring: listQuerystring,
        response: responses('`{"data": {"organizations": {totalCount, pageInfo, edges: [{cursor, node}]}}}`'),
      },
    },
    (request, reply) =>
      answerList(request, reply, {
        query: ORGANIZATIONS_QUERY,
        variables: listVariables(request.query, 'organizations'),
        populated: (data: OrganizationsData) => ({
          organizations: mapConnection(data.organizations, restOrganizationRecord),
        }),
      }),
  );

  const oneOrganization = {
    tags: ['organizations'],
    summary: 'One organization',
    description:
      'One organization in the latest month or the month `date`, with a page of its member ASNs (`first`, `offset`); GraphQL `organization(orgId, date) { members { asns(first, offset) } }`. Unknown ids answer `{"data": {"organization": null}}`.',
    querystring: organizationQuerystring,
    response: responses('`{"data": {"organization": {...} | null}}`'),
  };
  app.get<{ Params: { organization: string }; Querystring: OrganizationQuery }>(
    '/restful/organizations/:organization',
    { schema: { ...oneOrganization, params: organizationParams } },
    (request) => answerOrganization(request, request.params.organization, 'organization'),
  );
  app.get<{ Params: { orgId: string }; Querystring: OrganizationQuery }>(
    '/orgs/:orgId',
    {
      schema: {
        ...oneOrganization,
        summary: 'One organization (short form of /restful/organizations/:organization)',
        params: orgIdParams,
      },
    },
    (request) => answerOrganization(request, request.params.orgId, 'orgId'),
  );
}
