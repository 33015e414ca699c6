// The built entry point (dist/main.js, what `pnpm start:rest` runs): configuration is validated once at
// start-up with a one-line error, the service listens where PORT/HOST/BASE_PATH say, and SIGTERM stops it
// cleanly with exit code 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import http, { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ConfigError, readConfig } from '../src/config';
import { closedPortUrl, UNREACHABLE_GRAPHQL_URL } from './http';

const mainFile = path.resolve(__dirname, '..', 'dist', 'main.js');

describe('readConfig', () => {
  it('applies the documented defaults', () => {
    expect(readConfig({})).toMatchObject({
      port: 4001,
      host: '127.0.0.1',
      basePath: '',
      graphqlUrl: 'http://127.0.0.1:4000/graphql',
    });
  });

  it('reads every variable and drops a trailing slash from BASE_PATH', () => {
    const config = readConfig({
      PORT: '8081',
      HOST: '0.0.0.0',
      BASE_PATH: '/v2/',
      GRAPHQL_URL: 'http://graphql.internal:4000/v2/graphql',
      GRAPHQL_TIMEOUT_MS: '1500',
    });
    expect(config).toMatchObject({
      port: 8081,
      host: '0.0.0.0',
      basePath: '/v2',
      graphqlUrl: 'http://graphql.internal:4000/v2/graphql',
      graphqlTimeoutMs: 1500,
    });
  });

  it('trusts no proxy, every proxy, or the listed proxies only', () => {
    expect(readConfig({}).trustProxy).toBe(false);
    expect(readConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(readConfig({ TRUST_PROXY: '127.0.0.1,10.0.0.0/8,::1' }).trustProxy).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
    ]);
  });

  it('runs one process unless WORKERS asks for more', () => {
    expect(readConfig({}).workers).toBe(1);
    expect(readConfig({ WORKERS: '2' }).workers).toBe(2);
  });

  it.each([
    [{ PORT: '70000' }, /PORT/],
    [{ PORT: 'http' }, /PORT/],
    [{ BASE_PATH: 'v2' }, /BASE_PATH/],
    [{ GRAPHQL_URL: 'ftp://x/graphql' }, /GRAPHQL_URL/],
    [{ GRAPHQL_TIMEOUT_MS: '0' }, /GRAPHQL_TIMEOUT_MS/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ RATE_LIMIT_MAX: '-1' }, /RATE_LIMIT_MAX/],
    [{ CACHE_MAX_AGE_SECONDS: 'forever' }, /CACHE_MAX_AGE_SECONDS/],
    [{ TRUST_PROXY: 'maybe' }, /TRUST_PROXY/],
    [
      { TRUST_PROXY: '1' },
      /TRUST_PROXY must be true, false or proxy addresses\/CIDRs separated by commas, got "1"/,
    ],
    [{ TRUST_PROXY: '10.0.0.0/33' }, /TRUST_PROXY/],
    [{ WORKERS: '0' }, /WORKERS/],
  ])('refuses %p with an error naming the variable', (env, variable) => {
    expect(() => readConfig(env)).toThrow(ConfigError);
    expect(() => readConfig(env)).toThrow(variable);
  });
});

function run(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, [mainFile], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

const describeBuilt = existsSync(mainFile) ? describe : describe.skip;
if (!existsSync(mainFile))
  console.warn(
    `SKIP main.test.ts process tests: ${mainFile} is not built (run pnpm --filter @asrank/rest run build)`,
  );

describeBuilt('dist/main.js', () => {
  it('exits 1 with a one-line message naming a bad variable', async () => {
    const failing = run({ PORT: 'not-a-port' });
    expect(await failing.exit).toBe(1);
    const lines = failing.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/PORT/);
  });

  it('exits 1 with one line, no stack, when its port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((taken.address() as AddressInfo).port);
      const failing = run({ PORT: port, HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
      expect(await failing.exit).toBe(1);
      expect(failing.output().trim()).toBe(
        `asrank REST service failed to start: listen EADDRINUSE: address already in use 127.0.0.1:${port}`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('serves under BASE_PATH and stops cleanly on SIGTERM', async () => {
    const port = new URL(await closedPortUrl()).port;

    const service = run({
      PORT: port,
      HOST: '127.0.0.1',
      BASE_PATH: '/v2',
      GRAPHQL_URL: UNREACHABLE_GRAPHQL_URL,
      LOG_LEVEL: 'info',
    });
    try {
      // Wait until the listener is up (the log line says so), then check it answers under the prefix.
      await new Promise<void>((resolve, reject) => {
        const check = () => (service.output().includes('REST guide') ? resolve() : undefined);
        service.child.stdout?.on('data', check);
        service.child.on('exit', () => reject(new Error(`exited early: ${service.output()}`)));
        check();
      });
      const answer = await fetch(`http://127.0.0.1:${port}/v2/restful/asns/1`);
      expect(answer.status).toBe(502);
      await answer.arrayBuffer();
      service.child.kill('SIGTERM');
      expect(await service.exit).toBe(0);
    } finally {
      if (service.child.exitCode === null) service.child.kill('SIGKILL');
    }
  });

  it('with WORKERS=2 answers from two processes on one port, sums their metrics and stops both on SIGTERM', async () => {
    const port = new URL(await closedPortUrl()).port;
    const service = run({
      PORT: port,
      HOST: '127.0.0.1',
      GRAPHQL_URL: UNREACHABLE_GRAPHQL_URL,
      LOG_LEVEL: 'info',
      WORKERS: '2',
    });
    try {
      const guides = () =>
        [...service.output().matchAll(/"pid":(\d+)[^\n]*REST guide/g)].map((match) => match[1]);
      for (let attempt = 0; attempt < 200 && guides().length < 2; attempt += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(new Set(guides()).size).toBe(2);
      // A new connection per request: the primary deals connections to the workers in turn.
      const get = () =>
        new Promise<number>((resolve, reject) => {
          const request = http.get(
            { host: '127.0.0.1', port: Number(port), path: '/restful/asns/1', agent: false },
            (response) => {
              response.resume();
              response.on('end', () => resolve(response.statusCode ?? 0));
            },
          );
          request.on('error', reject);
        });
      for (let sent = 0; sent < 4; sent += 1) expect(await get()).toBe(502);
      const servedBy = new Set(
        [...service.output().matchAll(/"pid":(\d+)[^\n]*"url":"\/restful\/asns\/1"/g)].map(
          (match) => match[1],
        ),
      );
      expect(servedBy).toEqual(new Set(guides()));
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const counted =
        /asrank_rest_http_request_duration_seconds_count\{[^}]*status_code="502"[^}]*\} (\d+)/.exec(metrics);
      expect(Number(counted?.[1])).toBe(4);
      service.child.kill('SIGTERM');
      expect(await service.exit).toBe(0);
    } finally {
      if (service.child.exitCode === null) service.child.kill('SIGKILL');
    }
  });
});
