// The GraphQL endpoint: Mercurius serving the AS Rank schema at /graphql (POST and GET), with the query
// limits (depth, tokens, aliases, cost) and the client-safe error formatter. Registered under the base path.
import type { FastifyInstance } from 'fastify';
import mercurius, { type preExecutionHookHandler } from 'mercurius';
import { getOperationAST, type GraphQLSchema } from 'graphql';
import type { DatabaseHandle } from '@asrank/db';
import { createContext, createStoreFacts, type StatementObserver } from '@asrank/schema';
import type { DataVersionReader } from '../data-version';
import type { GraphqlConfig } from '../config';
import { asrankErrorFormatter } from '../errors';
import { assertQueryCost } from '../query-cost';
import { aliasLimitRule } from '../alias-limit';
import { leafSerializers } from '../leaf-serializers';

export interface GraphqlPluginOptions {
  schema: GraphQLSchema;
  handle: DatabaseHandle;
  /** The store's data version, read once a turn (the result cache's reader, so both use one read). */
  readDataVersion: DataVersionReader;
  config: GraphqlConfig;
  /** Times the lookups the schema runs from SQL compiled once (the handle's Kysely plugins do not see them). */
  observeStatement?: StatementObserver;
}

/**
 * The operation name a request asked for, wherever the client put it (POST body, the batch's operation
 * `operationId`, or GET query string).
 */
function requestedOperationName(body: unknown, query: unknown, operationId: unknown): string | undefined {
  const operation = Array.isArray(body) && typeof operationId === 'number' ? body[operationId] : body;
  for (const source of [operation, query]) {
    const name = (source as { operationName?: unknown } | null | undefined)?.operationName;
    if (typeof name === 'string' && name !== '') return name;
  }
  return undefined;
}

/** Marks a preExecution hook that finishes at once and modifies nothing (patches/mercurius@16.10.1.patch). */
const RUNS_AT_ONCE = Symbol.for('mercurius.preExecution.runsAtOnce');

declare module 'fastify' {
  interface FastifyRequest {
    /** The data version the answer is made at, when it was known at once (SQLite): an ETag names it. */
    answeredVersion?: string;
  }
}

export async function graphqlPlugin(
  app: FastifyInstance,
  { schema, handle, readDataVersion, config, observeStatement }: GraphqlPluginOptions,
): Promise<void> {
  // Loaded months are re-read only when the data version moves, not on every request.
  const facts = createStoreFacts(handle, readDataVersion);
  app.decorateRequest('answeredVersion', undefined);
  // Bookmarks found in the background stop before the database closes (this plugin's hooks run before the app's).
  app.addHook('onClose', async () => {
    await facts.pageBookmarks.stop();
  });
  await app.register(mercurius, {
    schema,
    path: '/graphql',
    // Our own offline page is served by the graphiql plugin; Mercurius' page loads its scripts from a CDN.
    graphiql: false,
    // The version the result cache answered at; else, on SQLite, this turn's (known at once), so a request the cache
    // does not key (a batch of operations from the REST service) is answered without waiting where it can too. With
    // the cache off, the answer's ETag names it (result-cache.ts).
    context: (request) => {
      const dataVersion = request.resultCache?.version ?? readDataVersion.now();
      request.answeredVersion = dataVersion;
      return createContext(handle, { facts, dataVersion, observeStatement });
    },
    jit: config.jitAfter,
    // Mercurius hands these to graphql-jit (its documented `compilerOptions`, not in its types). The errors
    // graphql-jit makes itself (a null where its field allows none, as each of 1,000 organizations' fields is when
    // a nested argument is refused) without a call stack: the field, path and message say what failed, and capturing
    // one each was a third of such a refusal's time (docs/performance.md, the eighty-first round).
    ...{ compilerOptions: { customSerializers: leafSerializers, disablingCapturingStackErrors: true } },
    queryDepth: config.maxQueryDepth,
    graphql: { parseOptions: { maxTokens: config.maxQueryTokens } },
    validationRules: [aliasLimitRule(config.maxAliases)],
    // A POST may carry a JSON array of operations (the REST service sends its concurrent requests so); each
    // is parsed, limited, priced and executed on its own, and the input guards bound the batch's length.
    allowBatchedQueries: config.maxBatchOperations > 1,
    // Mercurius formats only answers that carry errors, so this is where the result cache learns not to keep one
    // (an answer of 200 may carry errors), without scanning its text and without an onResolution hook on every
    // request (that hook cost ~3% of the point lookup's throughput).
    errorFormatter: (execution, context) => {
      if (context.reply) context.reply.request.graphqlErrors = true;
      const formatted = asrankErrorFormatter(execution, context);
      // A batch answers 200 with each operation's errors in its own entry: one operation's failure is not the
      // status of the others' answers (Mercurius would set the status of the batch from the last to fail).
      // Refusals of the whole batch (its length, a malformed body) come here without an operation and keep theirs.
      const inBatch = typeof (context as { operationId?: unknown }).operationId === 'number';
      return inBatch && Array.isArray(context.reply?.request.body)
        ? { ...formatted, statusCode: 200 }
        : formatted;
    },
  });

  // The cost check needs the request's variables (`first: $n`), so it runs per request before execution,
  // after Mercurius' cached parse and validation. It never waits and modifies nothing: marked so, Mercurius calls it
  // without its async hook runner (patches/mercurius, runsAtOnce), and a refusal thrown here rejects the request as a
  // rejected hook does.
  const checkQueryCost: preExecutionHookHandler = (executionSchema, document, context, variables) => {
    const request = context.reply?.request;
    const operationName = requestedOperationName(
      request?.body,
      request?.query,
      (context as { operationId?: unknown }).operationId,
    );
    // An operation the document lacks (or none named in a document of several) runs nothing: graphql-js reports it
    // when it executes, in its own words. graphql-query-complexity fails on an anonymous operation with a TypeError.
    if (getOperationAST(document, operationName) === null) return;
    try {
      assertQueryCost(
        {
          schema: executionSchema,
          document,
          variables: variables as Record<string, unknown> | undefined,
          operationName,
        },
        config.maxQueryCost,
      );
    } catch (costError) {
      // Shaped like Mercurius' validation error, so the formatter answers 400 with the message listed.
      throw Object.assign(new Error('GraphQL query refused'), { statusCode: 400, errors: [costError] });
    }
  };
  app.graphql.addHook('preExecution', Object.assign(checkQueryCost, { [RUNS_AT_ONCE]: true }));
}
