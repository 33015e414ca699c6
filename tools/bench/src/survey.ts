// `pnpm bench:survey`: a survey of slow queries. Starts the GraphQL service (uncached, as the suite runs it) on each
// benchmark store and sends it the catalogue of survey-queries.ts one query at a time, twice: the first answer is
// what the first such request of a process costs (bookmarks found, totals counted), the second what it costs once
// those are kept. Lists every query that took --slow-ms or more either time, and every answer with an error; writes
// both under tools/bench/results/ (survey-TIME.md and .json). A query stopped by the service's statement time limit
// (DB_STATEMENT_TIMEOUT_MS) is slow, not failed; any other error is a failure, and the run exits 1.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SERVICE_NODE_FLAGS } from '@asrank/graphql';
import { BENCH_ROOT, prepareGenerated, prepareReal, type PreparedStores } from './datasets';
import { parseSuiteOptions, runSuiteEntryPoint, SUITE_USAGE } from './options';
import { GRAPHQL_MAIN, startService } from './processes';
import {
  surveyQueries,
  totalQuery,
  type ListRange,
  type ListTotals,
  type SurveyQuery,
} from './survey-queries';
import { readFacts } from './workloads';

const RESULTS_DIR = path.join(BENCH_ROOT, 'results');
/** Longer than the service's own limits (statement 20 s, request 30 s): the service answers first. */
const REQUEST_TIMEOUT_MS = 60_000;

export interface SurveyAnswer {
  id: string;
  /** Milliseconds of the first and the second request. */
  firstMs: number;
  secondMs: number;
  /** The error codes (or messages) of the second answer, or of a request that failed; empty when it answered. */
  errors: string[];
  /** Every error was the statement time limit's. */
  stoppedByTimeLimit: boolean;
}

/** An answer's errors other than the statement time limit's: what fails the survey. */
function failed(answer: SurveyAnswer): boolean {
  return answer.errors.length > 0 && !answer.stoppedByTimeLimit;
}

/** Sends one query of the catalogue (or the totals' reads) to the GraphQL service. */
function post(graphqlUrl: string, request: SurveyQuery): Promise<Response> {
  return fetch(graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: request.query, variables: request.variables }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
}

async function ask(url: string, query: SurveyQuery): Promise<{ ms: number; errors: string[] }> {
  const started = performance.now();
  try {
    const response = await post(url, query);
    const text = await response.text();
    const ms = performance.now() - started;
    let body: { errors?: { message: string; extensions?: { code?: string } }[] };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      return { ms, errors: [`HTTP ${response.status}: ${text.slice(0, 200)}`] };
    }
    const errors = (body.errors ?? []).map((error) => error.extensions?.code ?? error.message);
    if (!response.ok && errors.length === 0) errors.push(`HTTP ${response.status}`);
    return { ms, errors };
  } catch (error) {
    return {
      ms: performance.now() - started,
      errors: [error instanceof Error ? error.message : String(error)],
    };
  }
}

/** Sends each query twice, one request at a time, to the service at `graphqlUrl`. */
export async function runSurvey(
  graphqlUrl: string,
  queries: readonly SurveyQuery[],
  progress: (done: number) => void = () => undefined,
): Promise<SurveyAnswer[]> {
  const answers: SurveyAnswer[] = [];
  for (const query of queries) {
    const first = await ask(graphqlUrl, query);
    const second = await ask(graphqlUrl, query);
    const errors = second.errors.length > 0 ? second.errors : first.errors;
    answers.push({
      id: query.id,
      firstMs: first.ms,
      secondMs: second.ms,
      errors,
      stoppedByTimeLimit: errors.length > 0 && errors.every((code) => code === 'STATEMENT_TIMEOUT'),
    });
    progress(answers.length);
  }
  return answers;
}

/** Reads the totals the deep offsets are taken from, through the service. */
export async function readListTotals(graphqlUrl: string, dates: readonly string[]): Promise<ListTotals> {
  const totalOf = async (list: keyof ListTotals, months: ListRange) => {
    const request = totalQuery(list, months, dates);
    const response = await post(graphqlUrl, request);
    const body = (await response.json()) as {
      data?: Record<string, { totalCount: number }>;
      errors?: unknown;
    };
    const total = body.data?.[list]?.totalCount;
    if (typeof total !== 'number')
      throw new Error(`${request.id}: no total (${JSON.stringify(body.errors)})`);
    return total;
  };
  const rangesOf = async (list: keyof ListTotals) => {
    const latest = await totalOf(list, 'latest');
    return {
      latest,
      all: dates.length > 1 ? await totalOf(list, 'all') : latest,
      first: dates.length > 1 ? await totalOf(list, 'first') : latest,
    };
  };
  return {
    asns: await rangesOf('asns'),
    organizations: await rangesOf('organizations'),
    asnLinks: await rangesOf('asnLinks'),
  };
}

export interface StoreSurvey {
  store: string;
  dialect: 'sqlite' | 'postgres';
  queries: number;
  answers: SurveyAnswer[];
}

/** The survey's Markdown: per store, how many queries were slow or failed, then those queries, slowest first. */
export function formatSurvey(surveys: readonly StoreSurvey[], slowMs: number, at: string): string {
  const lines = [`# Survey of slow queries, ${at}`, ''];
  lines.push(
    `Each query sent twice, one request at a time, to the GraphQL service with RESULT_CACHE_MB=0; listed when either ` +
      `answer took ${slowMs} ms or more, or carried an error.`,
    '',
  );
  for (const survey of surveys) {
    const slow = survey.answers.filter((answer) => Math.max(answer.firstMs, answer.secondMs) >= slowMs);
    const failures = survey.answers.filter(failed);
    lines.push(
      `## ${survey.store} — ${survey.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`,
      '',
      `${survey.queries} queries: ${slow.length} took ${slowMs} ms or more, ${failures.length} failed.`,
      '',
    );
    const listed = survey.answers
      .filter((answer) => slow.includes(answer) || failures.includes(answer))
      .sort((a, b) => Math.max(b.firstMs, b.secondMs) - Math.max(a.firstMs, a.secondMs));
    if (listed.length === 0) continue;
    lines.push('| query | first ms | second ms | errors |', '|---|---:|---:|---|');
    for (const answer of listed)
      lines.push(
        `| ${answer.id} | ${answer.firstMs.toFixed(0)} | ${answer.secondMs.toFixed(0)} | ${answer.errors.join(', ')} |`,
      );
    lines.push('');
  }
  return lines.join('\n');
}

export const SURVEY_USAGE = SUITE_USAGE.replace(
  'usage: pnpm bench [options]',
  'usage: pnpm bench:survey [options]',
);

async function main(): Promise<void> {
  const options = parseSuiteOptions();
  const pgServer = options.skipPostgres ? null : (process.env.DATABASE_URL_PG ?? null);
  const stores: PreparedStores[] = [await prepareGenerated(options.spec, pgServer, options.stores)];
  if (!options.skipReal) {
    const real = await prepareReal(pgServer, options.stores);
    if (real) stores.push(real);
  }
  const at = new Date().toISOString();
  const stamp = at.replace(/[:.]/g, '-');
  const logDir = path.join(RESULTS_DIR, `logs-survey-${stamp}`);
  const surveys: StoreSurvey[] = [];
  for (const store of stores) {
    for (const dialect of ['sqlite', 'postgres'] as const) {
      if (dialect === 'postgres' && !store.postgresUrl) continue;
      if (options.stores !== 'both' && options.stores !== dialect) continue;
      const databaseUrl = dialect === 'sqlite' ? store.sqliteFile : (store.postgresUrl as string);
      const facts = await readFacts(databaseUrl);
      const service = await startService({
        name: `graphql-survey-${dialect}`,
        script: GRAPHQL_MAIN,
        nodeFlags: SERVICE_NODE_FLAGS,
        env: {
          DATABASE_URL: databaseUrl,
          RESULT_CACHE_MB: '0',
          MAX_EVENT_LOOP_DELAY_MS: '0',
        },
        readyPath: '/health',
        logDir,
      });
      try {
        const graphqlUrl = `${service.baseUrl}/graphql`;
        const queries = surveyQueries(facts, await readListTotals(graphqlUrl, facts.dates)).filter(
          (query) => !options.match || options.match.test(query.id),
        );
        console.log(`[survey] ${store.label} — ${dialect}: ${queries.length} queries`);
        const answers = await runSurvey(graphqlUrl, queries, (done) => {
          if (done % 50 === 0) console.log(`[survey]   ${done} of ${queries.length}`);
        });
        surveys.push({ store: store.label, dialect, queries: queries.length, answers });
      } finally {
        await service.stop();
      }
    }
  }
  const markdown = formatSurvey(surveys, options.slowMs, at);
  console.log(`\n${markdown}`);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(
    path.join(RESULTS_DIR, `survey-${stamp}.json`),
    `${JSON.stringify({ at, surveys }, null, 2)}\n`,
  );
  writeFileSync(path.join(RESULTS_DIR, `survey-${stamp}.md`), `${markdown}\n`);
  console.log(`[survey] results written to tools/bench/results/survey-${stamp}.{md,json}`);
  if (surveys.some((survey) => survey.answers.some(failed))) process.exitCode = 1;
}

if (require.main === module) runSuiteEntryPoint(main, process.argv.slice(2), SURVEY_USAGE);
