// The suite divides the CPU time of the answering processes by the requests they answered: the reading must count
// every process behind a service (a primary and its workers), or a service with WORKERS > 1 would look cheaper.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpuSeconds } from '../src/processes';

const onLinux = process.platform === 'linux' ? it : it.skip;

/**
 * A node process that starts a child which spins until it has used `spinMs` of CPU time (not wall-clock time, so a
 * busy machine only makes it slower), then both stay alive until killed.
 */
function parentOfSpinningChild(spinMs: number): ChildProcess {
  const child = `while (process.cpuUsage().user < ${spinMs * 1000}); console.log('spun'); setInterval(() => {}, 1000);`;
  const parent = `const { spawn } = require('node:child_process');
    const c = spawn(process.execPath, ['-e', ${JSON.stringify(child)}], { stdio: ['ignore', 'inherit', 'inherit'] });
    process.on('SIGTERM', () => { c.kill('SIGKILL'); process.exit(0); });
    setInterval(() => {}, 1000);`;
  return spawn(process.execPath, ['-e', parent], { stdio: ['ignore', 'pipe', 'inherit'] });
}

describe('cpuSeconds', () => {
  let parent: ChildProcess | undefined;
  afterEach(() => {
    parent?.kill('SIGTERM');
  });

  onLinux("counts a process's descendants' CPU time with its own", async () => {
    parent = parentOfSpinningChild(800);
    await new Promise<void>((resolve) => parent!.stdout!.once('data', () => resolve()));
    // The child used at least 0.8 s of CPU; the idle parent's own start-up is a small fraction of that.
    expect(cpuSeconds(parent.pid)).toBeGreaterThan(0.8);
  });

  it('answers NaN for a process that does not exist', () => {
    expect(cpuSeconds(undefined)).toBeNaN();
    expect(cpuSeconds(2 ** 22 + 12345)).toBeNaN();
  });
});
