// A workload's measurements taken in interleaved rounds: ceiling, stack floor and service each run for a share of
// the measurement time, in turn, round after round. This project's host changes speed by up to a factor of two within
// minutes (docs/performance.md), and three back-to-back 10 s measurements let such a swing land on one of them alone:
// the ratio to the ceiling then says more about the host than about the service. Interleaved, a slow or fast stretch
// weighs on all three alike. The rounds are combined here: rates over the total time, latency percentiles over every
// response of every round (not an average of the rounds' percentiles).
import type { ThreadCpu } from './processes';
import type { ThroughputFigures } from './report';

/** What one autocannon run of one round measured. */
export interface RoundMeasurement {
  /** Responses answered (autocannon's total). */
  total: number;
  /** Seconds the run lasted. */
  seconds: number;
  /** Response bytes received. */
  bytes: number;
  errors: number;
  /** Latency of every 2xx response, ms. */
  latenciesMs: number[];
  /** CPU seconds of the answering processes, and µs of the load generator, over the run. */
  answeringCpuSeconds: number;
  loadGeneratorCpuMicros: number;
  /** CPU seconds of each thread of the answering processes over the run, keyed `pid/tid` (processes.ts). */
  threadCpuSeconds?: ReadonlyMap<string, ThreadCpu>;
}

/** The value below which `fraction` of the sorted values lie (nearest rank); NaN for none. */
export function percentile(sortedValues: readonly number[], fraction: number): number {
  if (sortedValues.length === 0) return Number.NaN;
  const rank = Math.ceil(fraction * sortedValues.length);
  return sortedValues[Math.min(sortedValues.length, Math.max(1, rank)) - 1]!;
}

/** One round's requests per second. */
export function roundRate(round: RoundMeasurement): number {
  return round.seconds > 0 ? round.total / round.seconds : 0;
}

/** Rounds a latency to a tenth of a millisecond, as the reports print it. */
function tenths(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** One contender's rounds as one measurement: totals over the total time, percentiles over every response. */
export function combineRounds(rounds: readonly RoundMeasurement[]): ThroughputFigures {
  if (rounds.length === 0) throw new Error('combineRounds: no round measured');
  let total = 0;
  let seconds = 0;
  let bytes = 0;
  let errors = 0;
  let answeringCpuSeconds = 0;
  let loadGeneratorCpuMicros = 0;
  // A thread's time is added over the rounds before the busiest is chosen: the sum of each round's busiest would add
  // up different threads whenever two are close and the busiest changes from one round to the next.
  const threadCpuSeconds = new Map<string, ThreadCpu>();
  const latencies: number[] = [];
  for (const round of rounds) {
    total += round.total;
    seconds += round.seconds;
    bytes += round.bytes;
    errors += round.errors;
    answeringCpuSeconds += round.answeringCpuSeconds;
    loadGeneratorCpuMicros += round.loadGeneratorCpuMicros;
    for (const [thread, reading] of round.threadCpuSeconds ?? [])
      threadCpuSeconds.set(thread, {
        ...reading,
        seconds: (threadCpuSeconds.get(thread)?.seconds ?? 0) + reading.seconds,
      });
    for (const latency of round.latenciesMs) latencies.push(latency);
  }
  latencies.sort((a, b) => a - b);
  const answered = Math.max(total, 1);
  const busiest = [...threadCpuSeconds.values()].reduce<ThreadCpu | undefined>(
    (most, thread) => (most === undefined || thread.seconds > most.seconds ? thread : most),
    undefined,
  );
  return {
    requestsPerSecond: seconds > 0 ? total / seconds : 0,
    p50Ms: tenths(percentile(latencies, 0.5)),
    p99Ms: tenths(percentile(latencies, 0.99)),
    bytesPerSecond: seconds > 0 ? bytes / seconds : 0,
    errors,
    total,
    cpuMicrosPerRequest: {
      answering: (answeringCpuSeconds * 1e6) / answered,
      loadGenerator: loadGeneratorCpuMicros / answered,
      ...(busiest
        ? { busiestThread: (busiest.seconds * 1e6) / answered, busiestThreadProcess: busiest.process }
        : {}),
    },
    roundRequestsPerSecond: rounds.map(roundRate),
  };
}
