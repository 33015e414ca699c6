// Progress reporting: a cli-progress bar per long step when stderr is a terminal, plain log lines otherwise
// (CI logs, pipes), nothing at all for programmatic callers. Also times each step for the closing summary.
import fs from 'node:fs';
import cliProgress from 'cli-progress';
import { onInputRead } from './input/open';

export interface ProgressBar {
  update(done: number): void;
  finish(done: number): void;
}

export interface Progress {
  /** A step with a known amount of work (rows, or input bytes with unit 'bytes'); returns its bar. */
  start(step: string, total: number, unit?: 'rows' | 'bytes'): ProgressBar;
  /** A one-line message (e.g. "reading as-rel ..."). */
  log(message: string): void;
  /** Seconds spent per step, in the order they ran. */
  readonly timings: { step: string; seconds: number }[];
}

class TimedProgress implements Progress {
  readonly timings: { step: string; seconds: number }[] = [];

  constructor(
    private readonly mode: 'tty' | 'plain' | 'silent',
    private readonly stream: NodeJS.WriteStream,
  ) {}

  start(step: string, total: number, unit: 'rows' | 'bytes' = 'rows'): ProgressBar {
    const began = process.hrtime.bigint();
    const record = () => this.timings.push({ step, seconds: Number(process.hrtime.bigint() - began) / 1e9 });
    if (this.mode === 'tty' && total > (unit === 'bytes' ? 1 << 20 : 10000)) {
      const bar = new cliProgress.SingleBar(
        {
          format: `${step.padEnd(24)} [{bar}] {percentage}% {value}/{total}${unit === 'bytes' ? ' bytes' : ''}`,
          stream: this.stream,
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total, 0);
      return {
        update: (done) => bar.update(done),
        finish: (done) => {
          bar.update(done);
          bar.stop();
          record();
        },
      };
    }
    return {
      update: () => undefined,
      finish: (done) => {
        record();
        const seconds = this.timings.at(-1)!.seconds.toFixed(2);
        if (this.mode !== 'silent') {
          this.stream.write(
            total < 0 || unit === 'bytes'
              ? `${step}: done (${seconds} s)\n`
              : `${step}: ${done} rows (${seconds} s)\n`,
          );
        }
      },
    };
  }

  log(message: string): void {
    if (this.mode !== 'silent') this.stream.write(`${message}\n`);
  }
}

export function createProgress(
  mode: 'auto' | 'silent',
  stream: NodeJS.WriteStream = process.stderr,
): Progress {
  if (mode === 'silent') return new TimedProgress('silent', stream);
  return new TimedProgress(stream.isTTY ? 'tty' : 'plain', stream);
}

/** Times a parsing step, with a bar over the input files' bytes when on a terminal. */
export async function timedRead<T>(
  progress: Progress,
  step: string,
  files: readonly string[],
  work: () => Promise<T>,
): Promise<T> {
  let totalBytes = 0;
  for (const file of files) {
    try {
      totalBytes += fs.statSync(file).size;
    } catch {
      // the parser reports a missing file
    }
  }
  const readSoFar = new Map<string, number>();
  const bar = progress.start(step, totalBytes, 'bytes');
  onInputRead((file, bytesRead) => {
    readSoFar.set(file, bytesRead);
    let sum = 0;
    for (const bytes of readSoFar.values()) sum += bytes;
    bar.update(Math.min(sum, totalBytes));
  });
  try {
    const result = await work();
    bar.finish(totalBytes);
    return result;
  } finally {
    onInputRead(null);
  }
}

/** Times an untallied step (parsing, computing). */
export async function timed<T>(progress: Progress, step: string, work: () => Promise<T> | T): Promise<T> {
  const bar = progress.start(step, -1);
  const result = await work();
  bar.finish(0);
  return result;
}
