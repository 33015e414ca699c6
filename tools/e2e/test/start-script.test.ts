// The README's start command (scripts/start.js) as an operator runs it: under BASE_PATH its REST service reaches the
// GraphQL service and both addresses are printed once they answer; SIGTERM stops both services and then exits 0; a
// service that cannot start makes the command fail.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import fs from 'node:fs';
import { freePort, makeTempDir, repoRoot } from '../src';

const START = path.join(repoRoot, 'scripts', 'start.js');

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, [START], {
    cwd: repoRoot,
    // The suite has built the workspace; a rebuild here would rewrite dist/ while other test files run it.
    env: { ...process.env, LOG_LEVEL: 'warn', START_SKIP_BUILD: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

async function until(condition: () => boolean, what: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('scripts/start.js', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTempDir('start-script');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('serves under BASE_PATH, prints the addresses once they answer, and exits 0 after both stop on SIGTERM', async () => {
    const [graphqlPort, restPort] = [await freePort(), await freePort()];
    const run = start({
      DATABASE_URL: path.join(dir, 'asrank.db'),
      GRAPHQL_PORT: String(graphqlPort),
      REST_PORT: String(restPort),
      BASE_PATH: '/v2',
    });
    await until(() => run.output().includes('REST:'), run.output);
    expect(run.output()).toContain(`GraphQL: http://127.0.0.1:${graphqlPort}/v2/graphql`);
    expect(run.output()).toContain(`REST:    http://127.0.0.1:${restPort}/v2/restful/asns`);
    // The REST service reaches the GraphQL service under its base path.
    const answer = await fetch(`http://127.0.0.1:${restPort}/v2/restful/asns?first=1`);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { data: { asns: { edges: unknown[] } } }).data.asns.edges).toHaveLength(
      1,
    );
    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(0);
    // Both services had stopped by then: their ports are free.
    for (const port of [graphqlPort, restPort]) {
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    }
  }, 180_000);

  it('fails when a service cannot start', async () => {
    // It only holds the port: a connection to it (start.js waiting for the service there) is closed at once.
    const taken = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const run = start({
        DATABASE_URL: path.join(dir, 'asrank.db'),
        GRAPHQL_PORT: String((taken.address() as net.AddressInfo).port),
        REST_PORT: String(await freePort()),
      });
      expect(await run.exit).toBe(1);
      expect(run.output()).toMatch(/EADDRINUSE/);
      expect(run.output()).not.toContain('GraphQL: http');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 180_000);
});
