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

const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], {
  cwd: root,
  stdio: 'inherit',
  env,
});
if (build.status !== 0) process.exit(build.status ?? 1);

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
    console.log(`${name} exited (${signal ?? code}); stopping.`);
    shutdown(code ?? 1);
  });
  return child;
}

const children = [];
let stopping = false;
function shutdown(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 200).unref();
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

ensureSampleLoaded()
  .then(() => {
    // The flags the GraphQL service is meant to run with (apps/graphql/src/node-flags.ts says why).
    const { SERVICE_NODE_FLAGS } = require(path.join(root, 'apps/graphql/dist/node-flags.js'));
    children.push(
      run('graphql', 'apps/graphql/dist/main.js', { PORT: graphqlPort, HOST: host }, SERVICE_NODE_FLAGS),
    );
    children.push(
      run('rest', 'apps/rest/dist/main.js', {
        PORT: restPort,
        HOST: host,
        GRAPHQL_URL: env.GRAPHQL_URL || `http://${host}:${graphqlPort}/graphql`,
      }),
    );
    console.log(
      `GraphQL: http://${host}:${graphqlPort}/graphql  GraphiQL: http://${host}:${graphqlPort}/graphiql`,
    );
    console.log(`REST:    http://${host}:${restPort}/restful/asns  (guide: /restful/doc)`);
  })
  .catch((error) => {
    console.error(`Start failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
