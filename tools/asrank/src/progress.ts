// Progress reporting: a cli-progress bar per long step when stderr is a terminal, plain log lines otherwise
// (CI logs, pipes), nothing at all for programmatic callers. Also times each step for the closing summary.
import cliProgress from 'cli-progress';

export interface ProgressBar {
  update(done: number): void;
  finish(done: number): void;
}

export interface Progress {
  /** A step with a known amount of work; returns its bar. */
  start(step: string, total: number): ProgressBar;
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

  start(step: string, total: number): ProgressBar {
    const began = process.hrtime.bigint();
    const record = () => this.timings.push({ step, seconds: Number(process.hrtime.bigint() - began) / 1e9 });
    if (this.mode === 'tty' && total > 10000) {
      const bar = new cliProgress.SingleBar(
        { format: `${step.padEnd(24)} [{bar}] {percentage}% {value}/{total}`, stream: this.stream, hideCursor: true },
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
        if (this.mode !== 'silent') this.stream.write(total < 0 ? `${step}: done (${seconds} s)\n` : `${step}: ${done} rows (${seconds} s)\n`);
      },
    };
  }

  log(message: string): void {
    if (this.mode !== 'silent') this.stream.write(`${message}\n`);
  }
}

export function createProgress(mode: 'auto' | 'silent', stream: NodeJS.WriteStream = process.stderr): Progress {
  if (mode === 'silent') return new TimedProgress('silent', stream);
  return new TimedProgress(stream.isTTY ? 'tty' : 'plain', stream);
}

/** Times an untallied step (parsing, computing). */
export async function timed<T>(progress: Progress, step: string, work: () => Promise<T> | T): Promise<T> {
  const bar = progress.start(step, -1);
  const result = await work();
  bar.finish(0);
  return result;
}
