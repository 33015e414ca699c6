// Real child processes on loopback for the cross-service tests: start one, capture its output, wait until
// it answers HTTP, stop it (signal, then SIGKILL after a bound). Every child is killed when the test process
// exits, whatever happened, so a failed test never leaves a server behind.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  readonly exited: Promise<number | null>;
  hasExited(): boolean;
  /** Sends `signal`, waits up to `timeoutMs` for the exit, then SIGKILLs. Resolves with the exit code. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

export interface StartOptions {
  env?: Record<string, string>;
  cwd?: string;
}

export function startProcess(
  name: string,
  command: string,
  args: string[],
  options: StartOptions = {},
): ManagedProcess {
  installExitHook();
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  let done = false;
  // Keep the tail only: a chatty process must not grow the test's memory without bound.
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      done = true;
      running.delete(child);
      resolve(code);
    });
    child.on('error', (error) => {
      append(Buffer.from(`\nspawn error: ${error.message}\n`));
      done = true;
      running.delete(child);
      resolve(-1);
    });
  });
  return {
    name,
    child,
    output: () => output,
    exited,
    hasExited: () => done,
    async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 10_000) {
      if (done) return exited;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('could not pick a free port');
  return address.port;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` until it returns true; fails with the process output when the process exits first or the
 * bound passes (the bound guards against a hang, it is not a performance assertion).
 */
export async function waitUntil(
  description: string,
  probe: () => Promise<boolean>,
  options: { timeoutMs?: number; process?: ManagedProcess } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (options.process?.hasExited()) {
      throw new Error(
        `${options.process.name} exited while waiting for ${description}:\n${options.process.output()}`,
      );
    }
    try {
      if (await probe()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${description}${options.process ? `:\n${options.process.output()}` : ''}`,
      );
    }
    await sleep(100);
  }
}

/** The absolute path of an executable, or null when it is not installed. */
export function findExecutable(candidates: readonly (string | undefined)[]): string | null {
  for (const candidate of candidates) {
    if (candidate && fs.existsSync(candidate)) return candidate;
  }
  return null;
}
