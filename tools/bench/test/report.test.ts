// The summary copied into docs/performance.md must say how the measured processes ran: a figure taken under other
// node flags than the service's start script uses would not be the service's.
import { parseSuiteOptions } from '../src/options';
import { cpuBudgetTable, formatMarkdown, type StoreReport, type SuiteReport } from '../src/report';

function reportWith(nodeFlags?: readonly string[]): SuiteReport {
  const { spec } = parseSuiteOptions([]);
  return {
    at: '2026-11-23T00:00:00.000Z',
    machine: { cpu: '2 x test CPU', memoryGb: 4, node: 'v20.0.0', platform: 'Linux' },
    loadAverageAtStart: [0.5, 0.5, 0.5],
    options: { connections: 10, duration: 10, spec, workers: 1, nodeFlags },
    stores: [],
  };
}

describe('formatMarkdown', () => {
  it('names the node flags the GraphQL service, the floor and the ceiling ran under', () => {
    const text = formatMarkdown(reportWith(['--max-semi-space-size=64']));
    expect(text).toContain(
      'GraphQL service WORKERS=1, under node --max-semi-space-size=64 (so are the stack floor and the ceiling).',
    );
  });

  it('says nothing of node flags when the run had none', () => {
    expect(formatMarkdown(reportWith([]))).not.toContain('under node');
    expect(formatMarkdown(reportWith())).toContain('GraphQL service WORKERS=1.');
  });

  it('judges start-up on the starts with the code cache and shows the first start without it apart', () => {
    const store: StoreReport = {
      label: 'test month',
      dialect: 'sqlite',
      months: 1,
      startupMs: [640, 520, 580],
      startupWithoutCodeCacheMs: 1040,
      workloads: [],
      stream: null,
    };
    expect(formatMarkdown({ ...reportWith(), stores: [store] })).toContain(
      'Start-up (spawn to first answered /health, median of 3, with the code cache an earlier start wrote): 580 ms ' +
        '(target < 1000 ms: met); the first start after a build, without it: 1040 ms (**missed**).',
    );
    const before = { ...store, startupWithoutCodeCacheMs: undefined };
    expect(formatMarkdown({ ...reportWith(), stores: [before] })).toContain(
      'Start-up (spawn to first answered /health, median of 3): 580 ms (target < 1000 ms: met).',
    );
  });

  it('reports the cone stream by its median walk and lists every walk', () => {
    const store: StoreReport = {
      label: 'test month',
      dialect: 'sqlite',
      months: 1,
      startupMs: [],
      workloads: [],
      stream: {
        dialect: 'sqlite',
        pages: 368,
        megabytes: 133.5,
        seconds: 2.6,
        mbPerSecond: 51.3,
        walkMbPerSecond: [44.1, 51.3, 58.0],
        rssStartMb: 300,
        rssPeakMb: 310,
        rssEndMb: 305,
        raw: null,
      },
    };
    const text = formatMarkdown({ ...reportWith(), stores: [store] });
    expect(text).toContain('the median of 3 walks at 44.1 / 51.3 / 58.0 MB/s) | | | | 51.3 |');
    expect(text).toContain('≥ 50 MB/s: met');
  });
});

describe('cpuBudgetTable', () => {
  const figures = (
    requestsPerSecond: number,
    answering: number,
    loadGenerator: number,
    busiestThread?: number,
  ) => ({
    requestsPerSecond,
    p50Ms: 1,
    p99Ms: 2,
    bytesPerSecond: 1e6,
    errors: 0,
    total: requestsPerSecond * 10,
    cpuMicrosPerRequest: {
      answering,
      loadGenerator,
      ...(busiestThread === undefined ? {} : { busiestThread }),
    },
  });
  const storeWith = (
    floorMicros: number,
    serviceMicros: number,
    floorThreadMicros?: number,
    serviceThreadMicros?: number,
  ): StoreReport => ({
    label: 'test month',
    dialect: 'sqlite',
    months: 1,
    startupMs: [],
    stream: null,
    workloads: [
      {
        id: 'W2',
        title: 'list',
        dialect: 'sqlite',
        distinctRequests: 10,
        meanResponseBytes: 1000,
        // 30% of 20,000 req/s is 6,000 req/s: two cores give 333 µs per request, the load generator takes 40.
        ceiling: figures(20_000, 45, 30),
        floor: figures(5_000, floorMicros, 40, floorThreadMicros),
        service: figures(900, serviceMicros, 60, serviceThreadMicros),
        raw: null,
        target: { minCeilingRatio: 0.3 },
      },
    ],
  });

  it('says a target is out of reach when the floor alone needs more CPU than the target leaves', () => {
    const text = cpuBudgetTable(storeWith(400, 1100), 2).join('\n');
    expect(text).toContain(
      '| W2 | 6000 | 333 | 167 | 40 | 293 | 45 | 400 | 1100 | 700 | – / – | no: the floor alone needs 107 µs more than is left |',
    );
  });

  it('gives what our layers may cost when the floor fits in the budget', () => {
    const text = cpuBudgetTable(storeWith(200, 1100), 2).join('\n');
    expect(text).toContain(
      '| W2 | 6000 | 333 | 167 | 40 | 293 | 45 | 200 | 1100 | 900 | – / – | only if ours costs ≤ 93 µs |',
    );
  });

  it("says a target is out of reach when the floor's busiest thread needs more than one thread has at its rate", () => {
    // 6,000 req/s leave one thread 167 µs a request: a floor whose main thread spends 180 cannot reach it, though
    // its 200 µs in all fit in the 293 the two cores leave.
    const text = cpuBudgetTable(storeWith(200, 1100, 180, 1000), 2).join('\n');
    expect(text).toContain(
      "| W2 | 6000 | 333 | 167 | 40 | 293 | 45 | 200 | 1100 | 900 | 180 / 1000 | no: the floor's busiest thread alone " +
        'needs 13 µs more than one thread has |',
    );
  });

  it('names both shortfalls when the floor exceeds both bounds', () => {
    const text = cpuBudgetTable(storeWith(400, 1100, 390, 1000), 2).join('\n');
    expect(text).toContain(
      "| 390 / 1000 | no: the floor alone needs 107 µs more than is left; the floor's busiest thread alone needs 223 µs " +
        'more than one thread has |',
    );
  });

  it('names the process of the busiest thread when the run knew it', () => {
    const store = storeWith(200, 1100, 150, 1000);
    const [workload] = store.workloads;
    workload!.floor!.cpuMicrosPerRequest!.busiestThreadProcess = 'rest';
    workload!.service.cpuMicrosPerRequest!.busiestThreadProcess = 'graphql';
    expect(cpuBudgetTable(store, 2).join('\n')).toContain('| 150 (rest) / 1000 (graphql) | only if');
  });

  it("gives what ours may cost on the busiest thread when the floor's fits in one thread", () => {
    const text = cpuBudgetTable(storeWith(200, 1100, 150, 1000), 2).join('\n');
    expect(text).toContain('| 150 / 1000 | only if ours costs ≤ 93 µs, ≤ 17 of it on the busiest thread |');
  });

  it("says when the service's CPU includes a local PostgreSQL server's", () => {
    const caption = (store: StoreReport) =>
      cpuBudgetTable(store, 2).find((line) => line.startsWith('CPU per answered request'));
    expect(caption(storeWith(200, 1100))).not.toContain('PostgreSQL');
    expect(caption({ ...storeWith(200, 1100), dialect: 'postgres', databaseServerCounted: true })).toContain(
      "the service's includes the PostgreSQL server's processes",
    );
    expect(
      caption({ ...storeWith(200, 1100), dialect: 'postgres', databaseServerCounted: false }),
    ).not.toContain('PostgreSQL server');
  });

  it('leaves the table out when the run has no CPU figures or no core count', () => {
    const store = storeWith(200, 1100);
    expect(cpuBudgetTable(store, undefined)).toEqual([]);
    const withoutCpu = {
      ...store,
      workloads: store.workloads.map((w) => ({
        ...w,
        floor: { ...w.floor!, cpuMicrosPerRequest: undefined },
      })),
    };
    expect(cpuBudgetTable(withoutCpu, 2)).toEqual([]);
  });
});
