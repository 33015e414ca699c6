// Monthly datasets: `data` is the array of dataset records, newest first unless `sort` says otherwise
// (clients read `data[0].date` as the latest month).
import type { FastifyInstance } from 'fastify';
import { DATASETS_QUERY } from '../graphql/queries';
import type { GraphqlConnection } from '../populate';
import { queryGraphql } from './forward';
import { listQuerystring, listVariables, type ListQuery } from './parameters';
import { responses } from './schemas';

/** Order of /restful/datasets when the client gives no `sort`. */
export const DEFAULT_DATASET_SORT = '-date';

interface DatasetsData {
  datasets: GraphqlConnection<Record<string, unknown>>;
}

export default async function datasetRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: ListQuery }>(
    '/restful/datasets',
    {
      schema: {
        tags: ['datasets'],
        summary: 'List monthly datasets',
        description:
          'The loaded monthly datasets as an array, newest first by default; GraphQL `datasets(first, offset, sort, dateStart, dateEnd)` with sort "-date". `populate` has no effect (datasets have one shape).',
        querystring: listQuerystring,
        response: responses('`{"data": [dataset, ...]}`'),
      },
    },
    async (request) => {
      const variables = listVariables(
        { ...request.query, sort: request.query.sort ?? DEFAULT_DATASET_SORT },
        'datasets',
      );
      const data = await queryGraphql<DatasetsData>(request, DATASETS_QUERY, variables);
      return { data: data.datasets.edges.map((edge) => edge.node) };
    },
  );
}
