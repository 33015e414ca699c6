// Buffered, back-pressure-aware line output to a plain or gzip file: the generator writes millions of
// lines at full scale and must never hold a whole file in memory.
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { createGzip, type Gzip } from 'node:zlib';

const FLUSH_AT_CHARS = 1 << 16;

export class LineWriter {
  private buffer = '';
  private readonly file: WriteStream;
  private readonly sink: WriteStream | Gzip;

  constructor(
    readonly path: string,
    gzip: boolean,
  ) {
    this.file = createWriteStream(path);
    if (gzip) {
      // Node's gzip header carries no timestamp or file name, so compressed output is reproducible too.
      const compressor = createGzip({ level: 6 });
      compressor.pipe(this.file);
      this.sink = compressor;
    } else {
      this.sink = this.file;
    }
  }

  /** Appends one line (the newline is added here). */
  async line(text: string): Promise<void> {
    this.buffer += text;
    this.buffer += '\n';
    if (this.buffer.length >= FLUSH_AT_CHARS) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.buffer.length === 0) return;
    const chunk = this.buffer;
    this.buffer = '';
    if (!this.sink.write(chunk)) await once(this.sink, 'drain');
  }

  async close(): Promise<void> {
    await this.flush();
    this.sink.end();
    await finished(this.file);
  }
}

/** Runs `body` with a writer and always closes the file, so a failure never leaves a stream open. */
export async function writeLines(
  path: string,
  gzip: boolean,
  body: (writer: LineWriter) => Promise<void>,
): Promise<void> {
  const writer = new LineWriter(path, gzip);
  try {
    await body(writer);
  } finally {
    await writer.close();
  }
}
