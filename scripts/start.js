#!/usr/bin/env node
// The README start command: builds the workspace, loads the bundled sample dataset into the embedded
// SQLite database on first run (when it holds no dataset), then runs the GraphQL service and the REST
// service side by side until Ctrl-C / SIGTERM.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const env = { TURBO_TELEMETRY_DISABLED: '1', ...process.env };
env.DATABASE_URL = env.DATABASE_URL || path.join(root, 'data', 'asrank.db');
const graphqlPort = env.GRAPHQL_PORT || '4000';
const restPort = env.REST_PORT || '4001';
const host = env.HOST || '127.0.0.1';

// START_SKIP_BUILD=1 runs what is built: a test of this script must not rebuild dist/ under the other tests' feet.
if (env.START_SKIP_BUILD !== '1') {
  const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], {
    cwd: root,
    stdio: 'inherit',
    env,
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

async function ensureSampleLoaded() {
  const { openDatabase, migrateToLatest } = require(path.join(root, 'packages/db/dist/index.js'));
  const { loadSampleData } = require(path.join(root, 'tools/asrank/dist/index.js'));
  const handle = openDatabase(env.DATABASE_URL);
  try {
    await migrateToLatest(handle.db, handle.dialect);
    const loaded = await handle.db.selectFrom('datasets').select('date').execute();
    if (loaded.length > 0) {
      console.log(
        `Database ${handle.location} already holds ${loaded.length} month(s); not loading the sample.`,
      );
      return;
    }
    console.log(`Loading the bundled sample dataset into ${handle.location} ...`);
    const dates = await loadSampleData(handle);
    console.log(`Loaded sample months: ${dates.join(', ')}`);
  } finally {
    await handle.close();
  }
}

function run(name, script, extraEnv, nodeFlags = []) {
  const child = spawn(process.execPath, [...nodeFlags, path.join(root, script)], {
    cwd: root,
    stdio: 'inherit',
    env: { ...env, ...extraEnv },
  });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.log(`${name} exited (${signal ?? code}); stopping.`);
      // A service that stops on its own has failed, whatever its code: the other one is no use alone.
      shutdown(code || 1);
    }
    exitWhenAllStopped();
  });
  return child;
}
const children = [];
let stopping = false;
let exitCode = 0;
// The services drain in-flight requests for up to SHUTDOWN_TIMEOUT_MS (10 s by default) before they exit.
const CHILDREN_STOP_MS = Number(env.SHUTDOWN_TIMEOUT_MS || 10000) + 5000;
function exitWhenAllStopped() {
  if (stopping && children.every((child) => child.exitCode !== null || child.signalCode !== null))
    process.exit(exitCode);
}
/**
 * Stops both services and exits once they have (with `code`, or the failed service's): exiting at once would leave
 * them draining requests with no parent, cut off by a supervisor that stops the process group with this process.
 */
function shutdown(code) {
  if (stopping) return;
  stopping = true;
  exitCode = code;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  setTimeout(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    process.exit(exitCode || 1);
  }, CHILDREN_STOP_MS).unref();
  exitWhenAllStopped();
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

/** Resolves once `url` answers (any status), so the addresses are printed when they work. */
async function answering(url) {
  for (;;) {
    if (stopping) return false;
    try {
      await fetch(url);
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

ensureSampleLoaded()
  .then(async () => {
    // The flags the GraphQL service is meant to run with (apps/graphql/src/node-flags.ts says why).
    const { SERVICE_NODE_FLAGS } = require(path.join(root, 'apps/graphql/dist/node-flags.js'));
    // Both services serve under BASE_PATH; an IPv6 address is bracketed in a URL.
    const basePath = (env.BASE_PATH || '').replace(/\/$/, '');
    const origin = (port) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    children.push(
      run('graphql', 'apps/graphql/dist/main.js', { PORT: graphqlPort, HOST: host }, SERVICE_NODE_FLAGS),
    );
    children.push(
      run('rest', 'apps/rest/dist/main.js', {
        PORT: restPort,
        HOST: host,
        GRAPHQL_URL: env.GRAPHQL_URL || `${origin(graphqlPort)}${basePath}/graphql`,
      }),
    );
    const graphqlRoot = `${origin(graphqlPort)}${basePath}`;
    const restRoot = `${origin(restPort)}${basePath}`;
    if (
      !(await answering(`${origin(graphqlPort)}/healthz`)) ||
      !(await answering(`${origin(restPort)}/healthz`))
    )
      return;
    console.log(`GraphQL: ${graphqlRoot}/graphql  GraphiQL: ${graphqlRoot}/graphiql`);
    console.log(`REST:    ${restRoot}/restful/asns  (guide: ${basePath}/restful/doc)`);
  })
  .catch((error) => {
    console.error(`Start failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
