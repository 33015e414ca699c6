// Organization routes: the list and one organization (also under the short form /orgs/:orgId).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ORGANIZATION_QUERY, ORGANIZATIONS_QUERY } from '../graphql/queries';
import {
  mapConnection,
  restOrganizationRecord,
  type GraphqlConnection,
  type GraphqlOrganization,
} from '../populate';
import { queryGraphql } from './forward';
import {
  listQuerystring,
  listVariables,
  organizationParams,
  orgIdParams,
  recordQuerystring,
  recordVariables,
  type ListQuery,
  type RecordQuery,
} from './parameters';
import { responses } from './schemas';

interface OrganizationData {
  organization: GraphqlOrganization | null;
}

interface OrganizationsData {
  organizations: GraphqlConnection<GraphqlOrganization>;
}

async function answerOrganization(
  request: FastifyRequest<{ Querystring: RecordQuery }>,
  orgId: string,
  parameter: string,
) {
  const variables = { orgId, ...recordVariables(request.query) };
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
    async (request) => {
      const data = await queryGraphql<OrganizationsData>(
        request,
        ORGANIZATIONS_QUERY,
        listVariables(request.query, 'organizations'),
      );
      return {
        data:
          request.query.populate === 1
            ? { organizations: mapConnection(data.organizations, restOrganizationRecord) }
            : data,
      };
    },
  );

  const oneOrganization = {
    tags: ['organizations'],
    summary: 'One organization',
    description:
      'One organization in the latest month or the month `date`, with its member ASNs; GraphQL `organization(orgId, date)`. Unknown ids answer `{"data": {"organization": null}}`.',
    querystring: recordQuerystring,
    response: responses('`{"data": {"organization": {...} | null}}`'),
  };
  app.get<{ Params: { organization: string }; Querystring: RecordQuery }>(
    '/restful/organizations/:organization',
    { schema: { ...oneOrganization, params: organizationParams } },
    (request) => answerOrganization(request, request.params.organization, 'organization'),
  );
  app.get<{ Params: { orgId: string }; Querystring: RecordQuery }>(
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
