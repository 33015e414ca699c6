// Query cost limit. Cost approximates the number of values the server must produce: every field costs 1,
// and a paged field multiplies the cost of its selection by the page it asks for (`first`, default
// DEFAULT_PAGE_SIZE), so nested connections and aliases multiply as they do in the real work. The cone
// stream returns up to its item budget per page (its `first`), so its selection is multiplied by that budget.
// Computed per request with the request's variables (a validation rule would only see the document),
// using graphql-query-complexity's walker.
import { GraphQLError, Kind, visit, type DocumentNode, type GraphQLSchema } from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import {
  DEFAULT_CONE_STREAM_BUDGET,
  DEFAULT_PAGE_SIZE,
  MAX_CONE_STREAM_BUDGET,
  MAX_PAGE_SIZE,
} from '@asrank/domain';

/** Selection nodes visited before the walk gives up (bounds the work of costing a hostile document). */
const MAX_QUERY_NODES = 5000;

/**
 * The page a paged field asks for: its `first`, or `fallback` when it gives none. Out-of-range values are refused by
 * the resolver with an argument error that names `first`; here they are clamped to what could be asked.
 */
function pageMultiplier(first: unknown, fallback: number, max: number): number {
  if (typeof first !== 'number' || !Number.isFinite(first)) return fallback;
  return Math.min(Math.max(Math.trunc(first), 1), max);
}

export const pagedFieldEstimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  const argumentNames = new Set(field.args.map((arg) => arg.name));
  // The cone stream's page is an item budget (its own `first`, default and maximum).
  if (argumentNames.has('pageCursor'))
    return (
      1 + pageMultiplier(args['first'], DEFAULT_CONE_STREAM_BUDGET, MAX_CONE_STREAM_BUDGET) * childComplexity
    );
  if (argumentNames.has('first'))
    return 1 + pageMultiplier(args['first'], DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE) * childComplexity;
  return 1 + childComplexity;
};

export interface CostCheckInput {
  schema: GraphQLSchema;
  document: DocumentNode;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/** The operation's cost; throws a GraphQLError when the document is too large to cost. */
export function queryCost({ schema, document, variables, operationName }: CostCheckInput): number {
  return getComplexity({
    schema,
    query: document,
    variables: variables ?? {},
    operationName: operationName ?? undefined,
    estimators: [pagedFieldEstimator],
    maxQueryNodes: MAX_QUERY_NODES,
  });
}

/**
 * Variables that can change a document's cost: those inside `first` arguments (the only argument the estimator
 * reads) and inside directive arguments (@include/@skip decide which fields count).
 */
function costVariableNames(document: DocumentNode): string[] {
  const names = new Set<string>();
  const collect = (node: Parameters<typeof visit>[0]) =>
    visit(node, {
      [Kind.VARIABLE]: (variable) => {
        names.add(variable.name.value);
      },
    });
  visit(document, {
    [Kind.ARGUMENT]: (argument) => {
      if (argument.name.value === 'first') collect(argument.value);
    },
    [Kind.DIRECTIVE]: (directive) => {
      for (const argument of directive.arguments ?? []) collect(argument.value);
    },
  });
  return [...names].sort();
}

/**
 * Costing walks the whole document (graphql-query-complexity: 12% of a point lookup's CPU), but a cost is a function
 * of the document, the operation and the cost variables only. Mercurius hands every request of one query text the
 * same parsed document, so costs are kept per document object (collected with it) and per cost-variable values.
 */
const costsByDocument = new WeakMap<DocumentNode, { names: string[]; costs: Map<string, number> }>();
/** Distinct cost-variable values remembered per document (a client paging with many `first` values). */
const COSTS_PER_DOCUMENT = 64;

function cachedQueryCost(input: CostCheckInput): number {
  let entry = costsByDocument.get(input.document);
  if (!entry) {
    entry = { names: costVariableNames(input.document), costs: new Map() };
    costsByDocument.set(input.document, entry);
  }
  // A document whose cost no variable changes (most: the point lookups) is keyed by its operation alone, with no
  // text built per request; the others by the values of their cost variables too.
  const key =
    entry.names.length === 0
      ? (input.operationName ?? '')
      : JSON.stringify([
          input.operationName ?? null,
          ...entry.names.map((name) => input.variables?.[name] ?? null),
        ]);
  const known = entry.costs.get(key);
  if (known !== undefined) return known;
  const cost = queryCost(input);
  if (entry.costs.size >= COSTS_PER_DOCUMENT) entry.costs.clear();
  entry.costs.set(key, cost);
  return cost;
}

/** Throws a client-facing GraphQLError when the operation costs more than `maxCost`. */
export function assertQueryCost(input: CostCheckInput, maxCost: number): void {
  let cost: number;
  try {
    cost = cachedQueryCost(input);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    // graphql-query-complexity names no limit; the client needs it to shrink the query.
    const limit = /maximum allowed number of nodes/.test(reason)
      ? ` (at most ${MAX_QUERY_NODES} fields once fragments are expanded)`
      : '';
    throw new GraphQLError(`query refused: ${reason}${limit}`, { extensions: { code: 'QUERY_TOO_COMPLEX' } });
  }
  if (cost > maxCost) {
    throw new GraphQLError(
      `query refused: its estimated cost ${cost} exceeds the limit of ${maxCost} ` +
        '(each field costs 1 and a paged field multiplies its selection by `first`; ask for smaller pages or fewer nested connections)',
      { extensions: { code: 'QUERY_TOO_COMPLEX', cost, maxCost } },
    );
  }
}
