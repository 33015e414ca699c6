// Interleaved rounds are combined into one measurement per contender: the rates must be over the total time (not an
// average of per-round averages that would weigh a short round like a long one) and the percentiles over every
// response (not an average of the rounds' percentiles, which hides a round whose tail was long).
import { combineRounds, percentile, type RoundMeasurement } from '../src/rounds';

function round(overrides: Partial<RoundMeasurement>): RoundMeasurement {
  return {
    total: 0,
    seconds: 1,
    bytes: 0,
    errors: 0,
    latenciesMs: [],
    answeringCpuSeconds: 0,
    loadGeneratorCpuMicros: 0,
    ...overrides,
  };
}

describe('percentile', () => {
  it('takes the nearest rank of sorted values', () => {
    const values = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(values, 0.5)).toBe(50);
    expect(percentile(values, 0.99)).toBe(99);
    expect(percentile(values, 1)).toBe(100);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.5)).toBeNaN();
  });
});

describe('combineRounds', () => {
  it('divides the rounds’ requests and bytes by their total time', () => {
    const combined = combineRounds([
      round({ total: 3000, seconds: 1, bytes: 6000 }),
      round({ total: 1000, seconds: 3, bytes: 2000 }),
    ]);
    // 4,000 requests in 4 s, where the mean of the rounds' rates would say (3000 + 333) / 2.
    expect(combined.requestsPerSecond).toBe(1000);
    expect(combined.bytesPerSecond).toBe(2000);
    expect(combined.total).toBe(4000);
    expect(combined.roundRequestsPerSecond).toEqual([3000, 1000 / 3]);
  });

  it('takes latency percentiles over every response of every round', () => {
    const fast = round({ total: 99, latenciesMs: Array.from({ length: 99 }, () => 1) });
    const slow = round({ total: 1, latenciesMs: [40] });
    const quiet = round({ total: 98, latenciesMs: Array.from({ length: 98 }, () => 2) });
    const combined = combineRounds([fast, slow, quiet]);
    expect(combined.p50Ms).toBe(1);
    // 198 responses, the 197th of them a 2 ms one; the rounds' own p99s (1, 40, 2) would average 14.3.
    expect(combined.p99Ms).toBe(2);
    const tail = combineRounds([
      fast,
      round({ total: 10, latenciesMs: Array.from({ length: 10 }, () => 40) }),
    ]);
    expect(tail.p99Ms).toBe(40);
  });

  it('adds errors and spreads the CPU over every answered request', () => {
    const combined = combineRounds([
      round({ total: 500, errors: 2, answeringCpuSeconds: 0.5, loadGeneratorCpuMicros: 50_000 }),
      round({ total: 1500, errors: 1, answeringCpuSeconds: 1.5, loadGeneratorCpuMicros: 150_000 }),
    ]);
    expect(combined.errors).toBe(3);
    expect(combined.cpuMicrosPerRequest).toEqual({ answering: 1000, loadGenerator: 100 });
  });

  it("takes the busiest thread's CPU over all rounds, not the sum of each round's busiest", () => {
    const combined = combineRounds([
      round({
        total: 1000,
        threadCpuSeconds: new Map([
          ['10/10', { seconds: 0.3, process: 'graphql' }],
          ['11/11', { seconds: 0.31, process: 'rest' }],
        ]),
      }),
      round({
        total: 1000,
        threadCpuSeconds: new Map([
          ['10/10', { seconds: 0.3, process: 'graphql' }],
          ['11/11', { seconds: 0.01, process: 'rest' }],
        ]),
      }),
    ]);
    // Thread 10/10 used 0.6 s for 2,000 requests; the rounds' busiest threads (0.31 + 0.3) would say 305 µs.
    expect(combined.cpuMicrosPerRequest?.busiestThread).toBeCloseTo(300, 6);
    expect(combined.cpuMicrosPerRequest?.busiestThreadProcess).toBe('graphql');
    expect(combineRounds([round({ total: 10 })]).cpuMicrosPerRequest).not.toHaveProperty('busiestThread');
  });

  it('rounds latencies to a tenth of a millisecond and refuses to combine nothing', () => {
    expect(combineRounds([round({ total: 1, latenciesMs: [1.2345] })]).p99Ms).toBe(1.2);
    expect(() => combineRounds([])).toThrow('no round measured');
  });
});
