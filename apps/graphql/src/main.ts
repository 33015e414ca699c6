// The service's entry point: runs the bundled service (dist/service.js, made by scripts/bundle.mjs from
// src/service.ts) through the V8 code cache of an earlier run (code-cache.ts). Without a cache V8 would take, one is
// written when a process that served ends cleanly: a start that fails (say, on a bad setting) has compiled only the
// configuration's code, and so has a primary that only supervised workers (WORKERS > 1); a cache of either would be
// accepted, and kept, by every later start.
import cluster from 'node:cluster';
import path from 'node:path';
import { runWithCodeCache } from './code-cache';

let supervisedWorkers = false;
cluster.once('fork', () => {
  supervisedWorkers = true;
});
const run = runWithCodeCache(path.join(__dirname, 'service.js'));
if (run.state === 'absent' || run.state === 'rejected')
  process.once('exit', (code) => {
    if (code === 0 && !supervisedWorkers) run.save();
  });
