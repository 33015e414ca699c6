// W5's client: walks asnConesStream page by page on one keep-alive connection, in a process of its own.
//
// Run inside the suite's process, the walk's client CPU per page grew from ~1 ms (W5 alone) to 4-4.7 ms after the
// other workloads (twentieth round): that process by then holds every workload's recorded answers and statements,
// and the walk's ~370 KB of socket Buffers per page make V8 collect that large heap again and again, on the two
// cores the service shares. A client process of its own holds only the walk, as a user's client would.
import { fork } from 'node:child_process';
import http from 'node:http';

export interface ConeWalkRequest {
  url: string;
  query: string;
  asns: readonly string[];
}

export interface ConeWalkResult {
  bytes: number;
  pages: number;
  seconds: number;
  clientCpuSeconds: number;
}

/**
 * Measured walks per store. One sequential walk moved by ±20% between consecutive walks of the same code on this
 * machine (twenty-second round): the suite reports the median walk and every walk's rate.
 */
export const MEASURED_CONE_WALKS = 3;

/** Index of the median of the walks' rates (the lower middle one for an even count). */
export function medianWalkIndex(rates: readonly number[]): number {
  if (rates.length === 0) throw new Error('no walk to take the median of');
  const byRate = rates.map((rate, index) => ({ rate, index })).sort((a, b) => a.rate - b.rate);
  return byRate[Math.floor((byRate.length - 1) / 2)]!.index;
}

/** Bytes of a page decoded for its pageInfo (it leads the answer). */
const HEAD_BYTES = 400;

/**
 * One POST on the walk's connection, through node:http. Global fetch() reads a body through WHATWG streams, which
 * cost this 2-core machine about 1.5 ms per 370 KB page in the client, between two requests of a sequential walk
 * (48-52 MB/s with fetch, 62-64 with node:http, the service's own CPU per page unchanged). The page is kept as the
 * chunks that arrived, not decoded into one string: a string that large is a fresh V8 large object, ~90 page faults
 * at ~19 µs each on this machine, ~1.7-2 ms per page of the walk (twentieth round).
 */
function postOnConnection(
  agent: http.Agent,
  url: string,
  body: string,
): Promise<{ status: number; bytes: number; head: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          if (bytes < HEAD_BYTES) chunks.push(chunk);
          bytes += chunk.length;
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            bytes,
            head: Buffer.concat(chunks).subarray(0, HEAD_BYTES).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** Walks the stream from an empty cursor to its end, in this process. */
export async function walkConeStream(request: ConeWalkRequest): Promise<ConeWalkResult> {
  let cursor = '';
  let bytes = 0;
  let pages = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const cpuStart = process.cpuUsage();
  const started = process.hrtime.bigint();
  try {
    for (;;) {
      const answer = await postOnConnection(
        agent,
        request.url,
        JSON.stringify({ query: request.query, variables: { asns: request.asns, cursor } }),
      );
      bytes += answer.bytes;
      pages++;
      // pageInfo is selected first, so it leads the answer: no need to parse the whole page.
      const match = /"hasNextPage":(true|false),"nextPageCursor":"([^"]*)"/.exec(answer.head);
      if (answer.status !== 200 || !match) {
        throw new Error(`W5: page ${pages} answered ${answer.status}: ${answer.head}`);
      }
      if (match[1] === 'false') break;
      cursor = match[2] as string;
    }
  } finally {
    agent.destroy();
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuStart);
  return { bytes, pages, seconds, clientCpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

/** What the caller does around each measured walk (its samplers of the service). */
export interface MeasuredWalkHooks {
  beforeWalk: () => void;
  afterWalk: (result: ConeWalkResult) => void;
}

/**
 * Walks the stream in a child process of its own (this file run with --child): `warmUpWalks` walks first, so the
 * client's code is optimised as the service's is, then `measuredWalks` walks, each between the caller's
 * `beforeWalk` and `afterWalk` (the caller starts and reads its samplers there). Returns the measured walks' figures.
 */
export function walkConeStreamInChild(
  request: ConeWalkRequest,
  warmUpWalks: number,
  measuredWalks: number,
  hooks: MeasuredWalkHooks,
): Promise<ConeWalkResult[]> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, ['--child', JSON.stringify({ ...request, warmUpWalks })], {
      stdio: 'inherit',
    });
    const results: ConeWalkResult[] = [];
    const next = () => {
      if (results.length < measuredWalks) {
        hooks.beforeWalk();
        child.send('measure');
      } else child.send('done');
    };
    child.on('message', (message: ChildMessage) => {
      if (message.kind === 'measured') {
        results.push(message.result);
        hooks.afterWalk(message.result);
      }
      next();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (results.length === measuredWalks) resolve(results);
      else
        reject(new Error(`W5: the walking client exited with code ${code} after ${results.length} walk(s)`));
    });
  });
}

type ChildMessage = { kind: 'warmed-up' } | { kind: 'measured'; result: ConeWalkResult };

async function runChild(request: ConeWalkRequest & { warmUpWalks: number }): Promise<void> {
  for (let walk = 0; walk < request.warmUpWalks; walk++) await walkConeStream(request);
  const nextCommand = () => new Promise<unknown>((resolve) => process.once('message', resolve));
  let command = nextCommand();
  process.send?.({ kind: 'warmed-up' } satisfies ChildMessage);
  while ((await command) === 'measure') {
    const result = await walkConeStream(request);
    command = nextCommand();
    process.send?.({ kind: 'measured', result } satisfies ChildMessage);
  }
}

if (require.main === module && process.argv[2] === '--child') {
  runChild(JSON.parse(process.argv[3] ?? '{}') as ConeWalkRequest & { warmUpWalks: number })
    .then(() => process.exit(0))
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
}
