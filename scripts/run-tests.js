#!/usr/bin/env node
// The README test command: builds, type-checks, lints and runs every package's jest suite through turbo,
// then prints one closing line `N passed, N failed[, N skipped]` that CI can read (jest's own summary is not).
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const workspaceDirs = ['packages', 'apps', 'tools']
  .flatMap((group) => {
    const dir = path.join(root, group);
    return fs.existsSync(dir) ? fs.readdirSync(dir).map((name) => path.join(dir, name)) : [];
  })
  .filter((dir) => fs.existsSync(path.join(dir, 'package.json')));

for (const dir of workspaceDirs) fs.rmSync(path.join(dir, '.jest-results.json'), { force: true });

const turbo = spawnSync(
  'pnpm',
  [
    'exec',
    'turbo',
    'run',
    'build',
    'typecheck',
    'lint',
    'test',
    '--continue',
    // Several jest suites at once on CI's 2 cores starve each other's servers into timeouts; 3 keeps both cores busy.
    '--concurrency=3',
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: 'inherit', env: { TURBO_TELEMETRY_DISABLED: '1', ...process.env } },
);

let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
for (const dir of workspaceDirs) {
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  if (!pkg.scripts || !pkg.scripts.test) continue;
  const resultsFile = path.join(dir, '.jest-results.json');
  if (!fs.existsSync(resultsFile)) {
    missing.push(pkg.name);
    continue;
  }
  const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  passed += results.numPassedTests;
  failed += results.numFailedTests;
  skipped += results.numPendingTests + (results.numTodoTests || 0);
  // A suite that fails to load (syntax error, missing module) counts no test but is a failure.
  failed += results.testResults.filter(
    (suite) => suite.status === 'failed' && suite.assertionResults.length === 0,
  ).length;
}
if (missing.length) console.error(`No test results from: ${missing.join(', ')}`);
const ok = turbo.status === 0 && failed === 0 && missing.length === 0 && passed > 0;
console.log(`${passed} passed, ${failed + missing.length} failed, ${skipped} skipped`);
process.exit(ok ? 0 : 1);
