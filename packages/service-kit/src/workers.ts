// Several processes of one service on one port (Node's cluster module: the primary accepts the connections and
// deals them to the workers in turn). A service process uses one core: SQLite reads, GraphQL execution and JSON
// serialization are all synchronous. Each worker is a whole service (its own database handle, caches, load
// shedding and metrics); the primary only supervises:
// - it starts one worker and waits for it to listen before starting the others, so a start-up refusal (missing
//   database, pending migrations) is printed once, by that worker, and stops the service;
// - a worker that dies while serving is replaced; more than RESTART_LIMIT deaths within RESTART_WINDOW_MS stop
//   the service instead of looping;
// - on SIGTERM or SIGINT it asks every worker to close gracefully over IPC, not with a second signal:
//   close-with-grace exits at once on a second signal, and a terminal's Ctrl-C has already signalled the whole
//   process group;
// - /metrics of any worker reports the sum over all workers (prom-client's AggregatorRegistry, asked over IPC).
import cluster, { type Worker } from 'node:cluster';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { FastifyInstance } from 'fastify';
import { AggregatorRegistry, type Registry } from 'prom-client';

const STOP = 'asrank:stop';
const METRICS_REQUEST = 'asrank:metrics-request';
const METRICS_REPLY = 'asrank:metrics-reply';
const RESTART_LIMIT = 5;
const RESTART_WINDOW_MS = 60_000;

interface Message {
  type?: unknown;
  id?: unknown;
  text?: unknown;
  contentType?: unknown;
  error?: unknown;
}

/**
 * The `WORKERS` setting of both services, for their environment schema: a count, or `auto` for one per core the process
 * may use. One by default: a predictable footprint (each worker holds its own caches).
 */
export const WORKERS_ENV_SCHEMA = {
  type: 'string',
  pattern: '^(auto|[1-9][0-9]{0,2})$',
  default: '1',
} as const;

/** The number of service processes a validated `WORKERS` value asks for. */
export function workerCount(setting: string): number {
  return setting === 'auto' ? os.availableParallelism() : Number(setting);
}

export interface SuperviseOptions {
  workers: number;
  /** Prefix of the primary's own lines on stderr, e.g. `asrank graphql`. */
  name: string;
  /** How long a stop waits for the workers to close before killing them. */
  stopTimeoutMs: number;
}

/** True in a worker started by {@link superviseWorkers}. */
export function isServiceWorker(): boolean {
  return cluster.isWorker;
}

/** Runs the primary: starts the workers and supervises them until the service stops (it then exits). */
export function superviseWorkers(options: SuperviseOptions): void {
  const aggregator = new AggregatorRegistry();
  const live = new Set<Worker>();
  const deaths: number[] = [];
  let serving = false;
  let stopping = false;
  let exitCode = 0;
  const say = (line: string) => console.error(`${options.name}: ${line}`);

  const fork = (): Worker => {
    const worker = cluster.fork();
    live.add(worker);
    return worker;
  };

  const stop = (code: number): void => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    if (live.size === 0) process.exit(exitCode);
    for (const worker of live) if (worker.isConnected()) worker.send({ type: STOP });
    setTimeout(() => {
      say(`workers still running after ${options.stopTimeoutMs} ms: killing them`);
      for (const worker of live) worker.process.kill('SIGKILL');
      process.exit(1);
    }, options.stopTimeoutMs).unref();
  };

  cluster.on('exit', (worker, code, signal) => {
    live.delete(worker);
    if (stopping) {
      if (live.size === 0) process.exit(exitCode);
      return;
    }
    // The first worker failed to start: it has printed why.
    if (!serving) return stop(code || 1);
    say(`worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another`);
    const now = Date.now();
    deaths.push(now);
    while (deaths.length > 0 && deaths[0]! < now - RESTART_WINDOW_MS) deaths.shift();
    if (deaths.length > RESTART_LIMIT) {
      say(`${deaths.length} workers died within ${RESTART_WINDOW_MS / 1000} s: stopping`);
      return stop(1);
    }
    fork();
  });

  cluster.on('message', (worker, message: Message) => {
    if (message?.type !== METRICS_REQUEST) return;
    aggregator.clusterMetrics().then(
      (text) =>
        worker.isConnected() &&
        worker.send({ type: METRICS_REPLY, id: message.id, text, contentType: aggregator.contentType }),
      (error: unknown) =>
        worker.isConnected() &&
        worker.send({
          type: METRICS_REPLY,
          id: message.id,
          error: error instanceof Error ? error.message : String(error),
        }),
    );
  });

  process.on('SIGTERM', () => stop(0));
  process.on('SIGINT', () => stop(0));

  fork().once('listening', () => {
    serving = true;
    for (let started = 1; started < options.workers; started += 1) fork();
  });
}

/**
 * In a worker: calls `close` when the primary asks the service to stop, or disappears (its IPC channel closes).
 * `close` must end the process.
 */
export function onStopRequest(close: () => void): void {
  process.on('message', (message: Message) => {
    if (message?.type === STOP) close();
  });
  process.on('disconnect', close);
}

/**
 * In a worker of several: makes `registry` part of the metrics the primary aggregates and serves GET /metrics as
 * the sum over all workers. Returns false (and does nothing) in a service that runs alone, which keeps its own
 * /metrics route.
 */
export function serveWorkerMetrics(
  app: FastifyInstance,
  registry: Registry,
  routeConfig: Record<string, unknown> = {},
): boolean {
  if (!cluster.isWorker) return false;
  AggregatorRegistry.setRegistries([registry]);
  // prom-client answers the primary's requests only once an AggregatorRegistry has been made in the worker.
  new AggregatorRegistry();
  app.get('/metrics', { config: routeConfig }, async (_request, reply) => {
    const { contentType, text } = await clusterMetrics();
    return reply.type(contentType).send(text);
  });
  return true;
}

/** In a worker: the metrics of every worker, summed by the primary. */
function clusterMetrics(timeoutMs = 5000): Promise<{ contentType: string; text: string }> {
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.off('message', onReply);
      reject(new Error(`the primary did not send the workers' metrics within ${timeoutMs} ms`));
    }, timeoutMs);
    function onReply(message: Message): void {
      if (message?.type !== METRICS_REPLY || message.id !== id) return;
      clearTimeout(timer);
      process.off('message', onReply);
      if (typeof message.text === 'string' && typeof message.contentType === 'string')
        resolve({ text: message.text, contentType: message.contentType });
      else reject(new Error(`aggregating the workers' metrics failed: ${String(message.error)}`));
    }
    process.on('message', onReply);
    process.send!({ type: METRICS_REQUEST, id });
  });
}
