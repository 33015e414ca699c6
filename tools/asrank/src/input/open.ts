// Opens an input file as a stream of decompressed bytes. The compression is detected from the first bytes
// (gzip 1f 8b, bzip2 "BZh"), never from the file name: CAIDA mirrors rename and recompress freely.
import fs from 'node:fs';
import zlib from 'node:zlib';
import { PassThrough, type Readable } from 'node:stream';
// unbzip2-stream: Node has no built-in bzip2; this is the widely used streaming pure-JS decoder.
import unbzip2Stream from 'unbzip2-stream';

export type Compression = 'gzip' | 'bzip2' | 'none';

export function detectCompression(head: Uint8Array): Compression {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.length >= 3 && head[0] === 0x42 && head[1] === 0x5a && head[2] === 0x68) return 'bzip2';
  return 'none';
}

export class InputFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'InputFileError';
  }
}

function readHead(file: string): Buffer {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputFileError(
      file,
      code === 'ENOENT' ? 'file not found' : `cannot open (${code ?? String(error)})`,
    );
  }
  try {
    if (fs.fstatSync(fd).isDirectory()) throw new InputFileError(file, 'is a directory, expected a file');
    const head = Buffer.alloc(4);
    const read = fs.readSync(fd, head, 0, 4, 0);
    return head.subarray(0, read);
  } finally {
    fs.closeSync(fd);
  }
}

/** Told how far each input file has been read (compressed bytes), for progress bars. */
export type ReadListener = (file: string, bytesRead: number, totalBytes: number) => void;
let readListener: ReadListener | null = null;

/** Installs (or with null removes) the one listener of input reads; the CLI's progress display uses it. */
export function onInputRead(listener: ReadListener | null): void {
  readListener = listener;
}

/** A readable stream of the file's decompressed bytes. */
export function openInput(file: string): Readable {
  const compression = detectCompression(readHead(file));
  const raw = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  const totalBytes = fs.statSync(file).size;
  let bytesRead = 0;
  raw.on('data', (chunk: Buffer | string) => {
    bytesRead += chunk.length;
    readListener?.(file, bytesRead, totalBytes);
  });
  if (compression === 'none') return raw;
  const decoder: NodeJS.ReadWriteStream = compression === 'gzip' ? zlib.createGunzip() : unbzip2Stream();
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  const fail = (error: Error) =>
    out.destroy(new InputFileError(file, `corrupt ${compression} data (${error.message})`));
  raw.on('error', (error) => out.destroy(new InputFileError(file, error.message)));
  decoder.on('error', fail);
  raw.pipe(decoder as unknown as NodeJS.WritableStream);
  decoder.pipe(out);
  return out;
}

/**
 * The file's lines, decompressed and streamed, with 1-based line numbers. Hand-rolled over chunks instead of
 * node:readline because readline's async iterator costs several times more per line on multi-million-line files.
 */
export async function* readLines(file: string): AsyncGenerator<{ line: string; lineNumber: number }> {
  const stream = openInput(file);
  let rest = '';
  let lineNumber = 0;
  stream.setEncoding('utf8');
  for await (const chunk of stream as AsyncIterable<string>) {
    const text = rest + chunk;
    let start = 0;
    let newline = text.indexOf('\n', start);
    while (newline !== -1) {
      lineNumber += 1;
      const end = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      yield { line: text.slice(start, end), lineNumber };
      start = newline + 1;
      newline = text.indexOf('\n', start);
    }
    rest = text.slice(start);
  }
  if (rest.length > 0) {
    lineNumber += 1;
    yield { line: rest.endsWith('\r') ? rest.slice(0, -1) : rest, lineNumber };
  }
}
