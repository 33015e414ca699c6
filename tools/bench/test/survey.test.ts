// The survey of slow queries must keep up with the schema (every query valid, every list's every sort key asked in
// both directions) and tell slow and failed answers apart from the rest. Its catalogue runs here against the bundled
// sample, so every order of every list answers without error on SQLite at least.
import { parse, validate } from 'graphql';
import { SORT_KEYS } from '@asrank/domain';
import { createSchema } from '@asrank/schema';
import { formatSurvey, readListTotals, runSurvey, type StoreSurvey } from '../src/survey';
import { sortsOf, surveyQueries, type SurveyQuery } from '../src/survey-queries';
import { readFacts, type DataFacts } from '../src/workloads';
import { startSampleService, type SampleService } from './sample-service';

jest.setTimeout(120_000);

describe('survey of slow queries', () => {
  let sample: SampleService;
  let facts: DataFacts;
  let queries: SurveyQuery[];

  beforeAll(async () => {
    sample = await startSampleService();
    facts = await readFacts(sample.databaseFile);
    queries = surveyQueries(facts, await readListTotals(sample.url, facts.dates));
  });
  afterAll(async () => {
    await sample?.dispose();
  });

  it('asks only queries the schema accepts, each under its own id', () => {
    const schema = createSchema();
    for (const query of queries)
      expect([query.id, validate(schema, parse(query.query))]).toEqual([query.id, []]);
    expect(new Set(queries.map((query) => query.id)).size).toBe(queries.length);
  });

  it('asks every sort key of every list both ways, near the start and deep, over the latest month, all and the first', () => {
    expect(facts.dates.length).toBeGreaterThan(1);
    for (const list of ['asns', 'organizations', 'asnLinks'] as const)
      for (const [months, named] of [
        ['latest', 'latest month'],
        ['all', 'all months'],
        ['first', 'first month as an interval'],
      ] as const) {
        const sorts = sortsOf(list, months);
        // The default order, each key both ways, and over an interval the month as well.
        expect(sorts.length).toBe(1 + 2 * (SORT_KEYS[list].length + (months === 'latest' ? 0 : 1)));
        for (const sort of sorts) {
          const asked = queries.filter((query) =>
            query.id.startsWith(`${list} ${named} sort=${sort || '(default)'} `),
          );
          expect([list, named, sort, asked.length]).toEqual([list, named, sort, 2]);
          expect(asked.map((query) => query.variables['offset'])).toEqual([0, expect.any(Number)]);
          expect(asked[1]!.variables['offset']).toBeGreaterThan(0);
        }
      }
    const walks = queries.filter((query) => query.id.startsWith('asnConesStream '));
    expect(walks).toHaveLength(sortsOf('asns', 'latest').length + sortsOf('asns', 'all').length);
  });

  it('gets an answer without error to every query of the catalogue from the service', async () => {
    const answers = await runSurvey(sample.url, queries);
    expect(answers).toHaveLength(queries.length);
    expect(answers.filter((answer) => answer.errors.length > 0)).toEqual([]);
    for (const answer of answers) expect(answer.secondMs).toBeGreaterThan(0);
  });

  it('lists slow and failed answers, slowest first, and tells a stopped statement from a failure', async () => {
    const bad: SurveyQuery = {
      id: 'asns sort=nope',
      query: '{ asns(sort: "nope") { totalCount } }',
      variables: {},
    };
    const [failed] = await runSurvey(sample.url, [bad]);
    expect(failed!.errors.length).toBeGreaterThan(0);
    expect(failed!.stoppedByTimeLimit).toBe(false);
    const survey: StoreSurvey = {
      store: 'sample',
      dialect: 'sqlite',
      queries: 4,
      answers: [
        failed!,
        { id: 'fast', firstMs: 2, secondMs: 1, errors: [], stoppedByTimeLimit: false },
        { id: 'slow once', firstMs: 1500, secondMs: 3, errors: [], stoppedByTimeLimit: false },
        {
          id: 'stopped',
          firstMs: 20_001,
          secondMs: 20_002,
          errors: ['STATEMENT_TIMEOUT'],
          stoppedByTimeLimit: true,
        },
      ],
    };
    const markdown = formatSurvey([survey], 1000, 'now');
    expect(markdown).toContain('4 queries: 2 took 1000 ms or more, 1 failed.');
    const rows = markdown.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| query'));
    expect(rows.map((row) => row.split(' | ')[0])).toEqual(['| stopped', '| slow once', '| asns sort=nope']);
    expect(markdown).not.toContain('| fast |');
  });
});
