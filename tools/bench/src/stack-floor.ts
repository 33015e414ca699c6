// The stack floor: what the fixed stack alone costs per request, measured beside the ceiling. A Fastify server
// with Mercurius over the service's own schema (its SDL, graphql-jit as the service configures it), whose root
// fields answer from memory: the first time a request body is seen it is forwarded to the real GraphQL service
// and its `data` kept; from then on Mercurius parses (cached), validates (cached), coerces the variables,
// executes the compiled query over that data with default resolvers and serializes the answer, exactly as it
// does in the service, but with none of our plugins, resolvers or statements. The gap between the ceiling and
// the floor is the stack's share of a workload; only the gap between the floor and the service is ours to close.
import Fastify, { type FastifyInstance } from 'fastify';
import mercurius, { type IResolvers } from 'mercurius';
import { buildSchema, type GraphQLResolveInfo } from 'graphql';
import { printSchemaSDL } from '@asrank/schema';

export interface StackFloorOptions {
  /** The real service's /graphql URL, asked once per distinct request body. */
  upstreamUrl: string;
  /** The service's GRAPHQL_JIT_AFTER (compile a query with graphql-jit once seen this many times). */
  jitAfter: number;
}

interface FloorContext {
  /** The kept answer of the request's one operation, or of each operation of a batch by its index. */
  answers: Record<string, unknown>[];
  /** Set by Mercurius on each operation of a batch. */
  operationId?: number;
}

/** A request whose upstream answer carries errors: the floor measures answered requests only. */
class UpstreamAnswerError extends Error {}

export async function buildStackFloor(options: StackFloorOptions): Promise<FastifyInstance> {
  const sdl = printSchemaSDL();
  const queryType = buildSchema(sdl).getQueryType();
  if (!queryType) throw new Error('the service schema has no Query type');
  // Answers by request body; the bench sends a few thousand distinct bodies, so memory is bounded by the run.
  const answers = new Map<string, Record<string, unknown>>();

  const fromUpstream = async (body: string): Promise<Record<string, unknown>> => {
    const response = await fetch(options.upstreamUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const answer = (await response.json()) as { data?: Record<string, unknown> | null; errors?: unknown[] };
    if (!response.ok || answer.errors?.length || !answer.data) {
      throw new UpstreamAnswerError(
        `the service answered ${response.status} for ${body.slice(0, 200)}: ${JSON.stringify(answer).slice(0, 400)}`,
      );
    }
    return answer.data;
  };

  const keptAnswer = async (operation: unknown): Promise<Record<string, unknown>> => {
    const body = JSON.stringify(operation);
    let answer = answers.get(body);
    if (!answer) {
      answer = await fromUpstream(body);
      answers.set(body, answer);
    }
    return answer;
  };

  // Every root field returns its part of the kept answer (by response key, so root aliases work); nested fields use
  // graphql's default resolver, which reads the property of the field's name (the workloads alias no nested field).
  const rootResolvers: Record<
    string,
    (root: unknown, args: unknown, context: FloorContext, info: GraphQLResolveInfo) => unknown
  > = {};
  for (const name of Object.keys(queryType.getFields())) {
    rootResolvers[name] = (_root, _args, context, info) =>
      context.answers[context.operationId ?? 0]![info.path.key];
  }

  const app = Fastify({ logger: false, bodyLimit: 16 * 1024 * 1024 });
  await app.register(mercurius, {
    schema: sdl,
    resolvers: { Query: rootResolvers } as IResolvers,
    path: '/graphql',
    graphiql: false,
    jit: options.jitAfter,
    // As the service takes them: the REST service sends its concurrent requests as one batch.
    allowBatchedQueries: true,
    // The body Fastify parsed, written back: JSON.stringify of a parsed JSON.stringify text is that text again.
    // A batch's operations are kept one by one, as the REST service's batches mix them anew every time.
    context: async (request): Promise<FloorContext> => {
      if (!Array.isArray(request.body)) return { answers: [await keptAnswer(request.body)] };
      return { answers: await Promise.all((request.body as unknown[]).map(keptAnswer)) };
    },
  });
  app.get('/health', async () => ({ status: 'ok', answers: answers.size }));
  return app;
}
