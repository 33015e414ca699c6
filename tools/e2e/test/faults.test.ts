// Faults injected into real processes: the GraphQL service SIGKILLed under load and restarted (REST answers
// 502/503 meanwhile, never hangs, then recovers); SIGTERM with requests in flight (each one is answered,
// then the process exits 0); a database that cannot be read at start (a clear one-line error, exit 1).
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import {
  eventually,
  loadSampleSqlite,
  makeTempDir,
  sleep,
  startGraphqlProcess,
  waitUntil,
  startLoad,
  startProcess,
  startRestProcess,
  writeSummary,
  graphqlMain,
  freePort,
  type ServiceProcess,
} from '../src';

let workDir: string;
let databaseFile: string;
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  workDir = makeTempDir('faults');
  databaseFile = path.join(workDir, 'asrank.db');
  await loadSampleSqlite(databaseFile);
}, 120_000);

afterAll(() => {
  writeSummary('faults', figures);
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

describe('GraphQL service killed under load', () => {
  let graphql: ServiceProcess | undefined;
  let rest: ServiceProcess | undefined;

  afterAll(async () => {
    await rest?.process.stop();
    await graphql?.process.stop();
  });

  it('REST answers 502/503 while it is down, never hangs, and recovers after a restart on the same port', async () => {
    graphql = await startGraphqlProcess({ databaseUrl: databaseFile });
    const graphqlPort = graphql.port;
    rest = await startRestProcess({
      graphqlUrl: `${graphql.baseUrl}/graphql`,
      env: { GRAPHQL_TIMEOUT_MS: '5000' },
    });
    const restBase = rest.baseUrl;
    const load = startLoad((index) => ({ url: `${restBase}/restful/asns?first=5&offset=${index % 20}` }), {
      concurrency: 8,
      requestTimeoutMs: 15_000,
    });
    try {
      await eventually('100 answers before the kill', () => (load.tally.outcomes['200'] ?? 0) >= 100);
      const beforeKill = { ...load.tally.outcomes };
      await graphql.process.stop('SIGKILL');
      const gatewayErrors = () => (load.tally.outcomes['502'] ?? 0) + (load.tally.outcomes['503'] ?? 0);
      await eventually('REST reports the outage', () => gatewayErrors() >= 50);
      graphql = await startGraphqlProcess({ databaseUrl: databaseFile, port: graphqlPort });
      await eventually('REST recovers (50 answers in a row)', () =>
        load.recent(50).every((outcome) => outcome === '200'),
      );
      const tally = await load.stop();
      figures['killAndRestart'] = {
        requests: tally.total,
        outcomesBeforeKill: beforeKill,
        outcomes: tally.outcomes,
        faultsInjected: 1,
      };
      // Only answers: success, or the gateway errors that say the upstream is down. No hang, no 500.
      expect(Object.keys(tally.outcomes).sort()).toEqual(expect.arrayContaining(['200']));
      for (const outcome of Object.keys(tally.outcomes))
        expect(['200', '502', '503', '504']).toContain(outcome);
      expect(tally.outcomes['timeout'] ?? 0).toBe(0);
      expect((await fetch(`${rest.origin}/readyz`)).status).toBe(200);
    } finally {
      await load.stop();
    }
  }, 90_000);
});

/** Sends the request line, headers and half the body of a GraphQL POST, and returns a way to finish it. */
async function openPartialRequest(
  port: number,
  body: string,
): Promise<{ finish(): Promise<{ status: number; body: string }> }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const ended = new Promise<void>((resolve) => {
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
  const half = Math.floor(body.length / 2);
  socket.write(
    `POST /v2/graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, half)}`,
  );
  return {
    async finish() {
      socket.write(body.slice(half));
      await ended;
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
      return { status, body: received.slice(received.indexOf('\r\n\r\n') + 4) };
    },
  };
}

describe('SIGTERM with requests in flight', () => {
  it('answers every request already received, refuses new connections, and exits 0', async () => {
    const graphql = await startGraphqlProcess({ databaseUrl: databaseFile });
    try {
      const query = JSON.stringify({
        query: '{ asns(first: 20) { totalCount edges { node { asn rank } } } }',
      });
      const inFlight = await Promise.all(
        Array.from({ length: 20 }, () => openPartialRequest(graphql.port, query)),
      );
      // Complete requests keep arriving on other connections while the signal lands.
      const load = startLoad(
        () => ({
          url: `${graphql.baseUrl}/graphql?query=${encodeURIComponent('{ datasets { totalCount } }')}`,
        }),
        {
          concurrency: 4,
        },
      );
      await eventually('some complete requests answered', () => load.tally.total >= 20);
      graphql.process.child.kill('SIGTERM');
      await sleep(300);
      // The process must still be waiting for the half-received requests.
      expect(graphql.process.hasExited()).toBe(false);
      const answers = await Promise.all(inFlight.map((request) => request.finish()));
      const exitCode = await graphql.process.exited;
      const tally = await load.stop();
      figures['sigtermInFlight'] = {
        inFlightRequests: inFlight.length,
        inFlightAnswered: answers.filter((answer) => answer.status === 200).length,
        concurrentLoad: tally,
        exitCode,
      };
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(
          (JSON.parse(answer.body) as { data: { asns: { edges: unknown[] } } }).data.asns.edges,
        ).toHaveLength(20);
      }
      expect(exitCode).toBe(0);
      // Requests racing the close get an answer or a refused/reset connection, never a server error.
      for (const outcome of Object.keys(tally.outcomes))
        expect(['200', '503', 'ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET']).toContain(outcome);
    } finally {
      await graphql.process.stop('SIGKILL');
    }
  }, 60_000);
});

/**
 * A slow upstream in front of the real GraphQL service: while `hold` is on it keeps every POST it receives
 * until `release()`, then forwards it and relays the real answer, so the test decides exactly when REST's
 * upstream calls may complete (no sleeps racing the signal).
 */
async function startHoldingProxy(target: string): Promise<{
  url: string;
  hold(): void;
  /** GraphQL operations held so far (a batch holds several). */
  held(): number;
  release(): void;
  close(): Promise<void>;
}> {
  let holding = false;
  let gateOpen: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (gateOpen = resolve));
  let heldCount = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        if (holding) {
          // The REST service sends concurrent requests as batches (a JSON array of operations): count operations.
          const body: unknown = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
          heldCount += Array.isArray(body) ? body.length : 1;
          await gate;
        }
        try {
          const upstream = await fetch(target, {
            method: request.method,
            headers: { 'content-type': request.headers['content-type'] ?? 'application/json' },
            body: request.method === 'POST' ? Buffer.concat(chunks) : undefined,
          });
          const body = await upstream.text();
          response.writeHead(upstream.status, {
            'content-type': upstream.headers.get('content-type') ?? 'application/json',
          });
          response.end(body);
        } catch (error) {
          response.writeHead(502).end(String(error));
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/graphql`,
    hold: () => (holding = true),
    held: () => heldCount,
    release: () => gateOpen(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** True when a new TCP connection to the port is refused (the listener is closed). */
function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** A GET over a keep-alive connection (fetch keeps its sockets open after the answer, as nginx upstreams do). */
async function getKeepAlive(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.text() };
}

describe('SIGTERM to the REST service during load', () => {
  it('loses no in-flight request', async () => {
    const graphql = await startGraphqlProcess({ databaseUrl: databaseFile });
    const proxy = await startHoldingProxy(`${graphql.baseUrl}/graphql`);
    let rest: ServiceProcess | undefined;
    try {
      rest = await startRestProcess({
        graphqlUrl: proxy.url,
        env: { SHUTDOWN_TIMEOUT_MS: '30000', GRAPHQL_TIMEOUT_MS: '30000' },
      });
      const restProcess = rest;
      proxy.hold();
      // Distinct pages, so no layer can answer one request from another's result.
      const requestCount = 20;
      // Keep-alive clients: the answered connections stay open unless the service ends them itself, which is
      // what used to keep REST waiting until SHUTDOWN_TIMEOUT_MS and exit 1 (fixed by closeGracefully).
      const inFlight = Array.from({ length: requestCount }, (_unused, index) =>
        getKeepAlive(`${restProcess.baseUrl}/restful/asns?first=3&offset=${index}`),
      );
      await eventually('the upstream holds every request', () => proxy.held() >= requestCount);
      restProcess.process.child.kill('SIGTERM');
      await waitUntil('REST stops accepting connections', () => connectionRefused(restProcess.port), {
        timeoutMs: 10_000,
      });
      // The listener is closed but the process must still be waiting for the held requests.
      expect(restProcess.process.hasExited()).toBe(false);
      proxy.release();
      const answers = await Promise.all(inFlight);
      const exitCode = await restProcess.process.exited;
      figures['restSigtermInFlight'] = {
        inFlightRequests: requestCount,
        answered200: answers.filter((answer) => answer.status === 200).length,
        exitCode,
      };
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        const parsed = JSON.parse(answer.body) as { data: { asns: { edges: unknown[] } } };
        expect(parsed.data.asns.edges).toHaveLength(3);
      }
      expect(exitCode).toBe(0);
    } finally {
      proxy.release();
      await rest?.process.stop('SIGKILL');
      await proxy.close();
      await graphql.process.stop('SIGKILL');
    }
  }, 90_000);
});

describe('a database that cannot be read at start', () => {
  // Tests run as root in CI and root reads a chmod 000 file, so "unreadable" is made robust: a directory
  // where the file should be, and a file that is not SQLite at all.
  async function startExpectingFailure(
    databaseUrl: string,
  ): Promise<{ code: number | null; output: string }> {
    const child = startProcess('graphql', process.execPath, [graphqlMain], {
      env: {
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: 'warn',
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), 20_000)));
    const code = await Promise.race([child.exited, hung]);
    clearTimeout(timer);
    if (code === 'hung') {
      await child.stop('SIGKILL');
      throw new Error(`the service did not stop on a bad database:\n${child.output()}`);
    }
    return { code, output: child.output().trim() };
  }

  it.each([
    [
      'a directory',
      () => {
        const directory = path.join(workDir, 'is-a-directory.db');
        fs.mkdirSync(directory);
        return directory;
      },
    ],
    [
      'a file that is not SQLite',
      () => {
        const file = path.join(workDir, 'corrupt.db');
        fs.writeFileSync(file, Buffer.alloc(64 * 1024, 'not a database, just bytes\n'));
        return file;
      },
    ],
  ])('%s stops start-up with one clear line and exit code 1', async (_label, makePath) => {
    const { code, output } = await startExpectingFailure(makePath());
    expect(code).toBe(1);
    expect(output.split('\n')).toHaveLength(1);
    expect(output).toMatch(/^asrank graphql: /);
    expect(output).toMatch(/database|SQLite/);
    expect(output).not.toMatch(/\n\s+at /);
    const record = (figures['unreadableDatabase'] ?? []) as unknown[];
    figures['unreadableDatabase'] = [...record, { case: _label, exitCode: code, message: output }];
  });
});
