// One policy for malformed input lines: stop the load naming the file, line and expectation, or (with
// --skip-bad-lines) count the line and go on.
import { readLines } from './open';

export class MalformedLineError extends Error {
  /**
   * `expected` says what a line must be ("expected asn|asn|relationship ..."); `wording: 'problem'` takes it as what
   * is wrong with the line instead ("asnDegree.total must be an integer ..."), for a line whose one field is bad.
   */
  constructor(
    readonly file: string,
    readonly lineNumber: number,
    readonly expected: string,
    readonly content: string,
    wording: 'expectation' | 'problem' = 'expectation',
  ) {
    const shown = content.length > 120 ? `${content.slice(0, 117)}...` : content;
    const why = wording === 'problem' ? expected : `expected ${expected}`;
    super(`${file}:${lineNumber}: malformed line ${JSON.stringify(shown)}: ${why}`);
    this.name = 'MalformedLineError';
  }
}

export class BadLinePolicy {
  private readonly skippedByFile = new Map<string, number>();
  private readonly linesReadByFile = new Map<string, number>();

  constructor(readonly skipBadLines: boolean) {}

  /** Throws MalformedLineError, or records the skip when bad lines are allowed. */
  reject(file: string, lineNumber: number, expected: string, content: string): void {
    if (!this.skipBadLines) throw new MalformedLineError(file, lineNumber, expected, content);
    this.skippedByFile.set(file, (this.skippedByFile.get(file) ?? 0) + 1);
  }

  get skipped(): number {
    let total = 0;
    for (const count of this.skippedByFile.values()) total += count;
    return total;
  }

  skippedPerFile(): Record<string, number> {
    return Object.fromEntries(this.skippedByFile);
  }

  skippedIn(file: string): number {
    return this.skippedByFile.get(file) ?? 0;
  }

  /**
   * The file's lines, as readLines gives them, counted: a file which yielded no record can then be described as
   * empty, as comments only, or as skipped line by line.
   */
  async *lines(file: string): AsyncGenerator<{ line: string; lineNumber: number }> {
    let lineNumber = 0;
    try {
      for await (const entry of readLines(file)) {
        lineNumber = entry.lineNumber;
        yield entry;
      }
    } finally {
      this.linesReadByFile.set(file, lineNumber);
    }
  }

  linesReadFrom(file: string): number {
    return this.linesReadByFile.get(file) ?? 0;
  }
}

const UINT32_MAX = 4294967295;

/** Parses a decimal ASN (0..2^32-1, also "asdot" x.y); null when it is not one. */
export function parseAsn(text: string): number | null {
  if (/^\d{1,10}$/.test(text)) {
    const value = Number(text);
    return value <= UINT32_MAX ? value : null;
  }
  const dot = /^(\d{1,5})\.(\d{1,5})$/.exec(text);
  if (dot) {
    const high = Number(dot[1]);
    const low = Number(dot[2]);
    return high <= 65535 && low <= 65535 ? high * 65536 + low : null;
  }
  return null;
}
