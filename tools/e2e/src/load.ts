// A small closed-loop load generator for fault tests: `concurrency` workers each send requests one after
// another until stopped, and every outcome is counted (HTTP status, or the network error code). Each
// request has a bound, so a hang shows up as a 'timeout' outcome instead of a stuck test.
export interface LoadTally {
  /** Outcome → count: '200', '502', 'ECONNREFUSED', 'timeout', ... */
  outcomes: Record<string, number>;
  total: number;
}

export interface RunningLoad {
  tally: LoadTally;
  /** Outcomes in order of completion (for "recovered" checks). */
  recent(count: number): string[];
  stop(): Promise<LoadTally>;
}

function outcomeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; name?: unknown } } | null)?.cause;
  if ((error as { name?: unknown } | null)?.name === 'TimeoutError') return 'timeout';
  if (typeof cause?.code === 'string') return cause.code;
  if (cause?.name === 'TimeoutError') return 'timeout';
  return (error as { name?: string } | null)?.name ?? 'error';
}

export function startLoad(
  makeRequest: (index: number) => { url: string; init?: RequestInit },
  options: { concurrency: number; requestTimeoutMs?: number },
): RunningLoad {
  const tally: LoadTally = { outcomes: {}, total: 0 };
  const history: string[] = [];
  let stopped = false;
  let counter = 0;
  const record = (outcome: string) => {
    tally.outcomes[outcome] = (tally.outcomes[outcome] ?? 0) + 1;
    tally.total += 1;
    history.push(outcome);
    if (history.length > 10_000) history.splice(0, 5_000);
  };
  const worker = async () => {
    while (!stopped) {
      const { url, init } = makeRequest(counter++);
      try {
        const response = await fetch(url, {
          ...init,
          signal: AbortSignal.timeout(options.requestTimeoutMs ?? 15_000),
        });
        await response.arrayBuffer();
        record(String(response.status));
      } catch (error) {
        record(outcomeOf(error));
        // A refused connection returns at once; do not spin the CPU while the service is down.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  const workers = Array.from({ length: options.concurrency }, () => worker());
  return {
    tally,
    recent: (count) => history.slice(-count),
    stop: async () => {
      stopped = true;
      await Promise.all(workers);
      return tally;
    },
  };
}

/** Polls until `predicate` holds (checked every 50 ms), failing after `timeoutMs` with `description`. */
export async function eventually(
  description: string,
  predicate: () => boolean,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
