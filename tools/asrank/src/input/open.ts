// Opens an input file as a stream of decompressed bytes. The compression is detected from the first bytes
// (gzip 1f 8b, bzip2 "BZh"), never from the file name: CAIDA mirrors rename and recompress freely.
import fs from 'node:fs';
import zlib from 'node:zlib';
import { PassThrough, Readable } from 'node:stream';
// unbzip2-stream: Node has no built-in bzip2; this is the widely used streaming pure-JS decoder.
import unbzip2Stream from 'unbzip2-stream';

export type Compression = 'gzip' | 'bzip2' | 'none';

/** Bytes detectCompression needs to decide: the longest magic it knows ("BZh"). */
const MAGIC_BYTES = 3;
const CHUNK_BYTES = 1 << 20;

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

/** Opens the file once; the stream reads from this descriptor, so a pipe or FIFO is never opened twice. */
function openForReading(file: string): { fd: number; totalBytes: number } {
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
    const stats = fs.fstatSync(fd);
    if (stats.isDirectory()) throw new InputFileError(file, 'is a directory, expected a file');
    // A pipe has no size to show progress against.
    return { fd, totalBytes: stats.isFile() ? stats.size : 0 };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/** Told how far each input file has been read (compressed bytes), for progress bars. */
export type ReadListener = (file: string, bytesRead: number, totalBytes: number) => void;
let readListener: ReadListener | null = null;

/** Installs (or with null removes) the one listener of input reads; the CLI's progress display uses it. */
export function onInputRead(listener: ReadListener | null): void {
  readListener = listener;
}

/** The raw bytes as they are read, reported to the read listener; a read failure names the file. */
async function* rawChunks(file: string, raw: fs.ReadStream, totalBytes: number): AsyncGenerator<Buffer> {
  const chunks = raw[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let bytesRead = 0;
  try {
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = await chunks.next();
      } catch (error) {
        throw new InputFileError(file, error instanceof Error ? error.message : String(error));
      }
      if (next.done) return;
      bytesRead += next.value.length;
      readListener?.(file, bytesRead, totalBytes);
      yield next.value;
    }
  } finally {
    // Also when the reader stopped early (a malformed line): release the descriptor now, not at exit.
    raw.destroy();
  }
}

/**
 * Why a decoder gave up, in words a user can act on. unbzip2-stream reports a truncated stream as whatever
 * TypeError reading past its buffers raised, and most of its format errors are jokes ("moo i'm a cow"); zlib's
 * messages ("unexpected end of file", "invalid block type") are meaningful as they are.
 */
function corruptionReason(compression: Exclude<Compression, 'none'>, error: Error): string {
  if (compression === 'gzip' && String((error as NodeJS.ErrnoException).code).startsWith('Z_'))
    return error.message;
  if (compression === 'bzip2' && /crc32/i.test(error.message)) return 'checksum mismatch';
  return 'truncated or damaged';
}

/** The compressed bytes decoded, streamed; a decoder failure becomes an InputFileError naming the file. */
async function* decoded(
  file: string,
  compression: Exclude<Compression, 'none'>,
  compressed: AsyncIterable<Buffer>,
): AsyncGenerator<Buffer> {
  const decoder: NodeJS.ReadWriteStream = compression === 'gzip' ? zlib.createGunzip() : unbzip2Stream();
  // unbzip2-stream is a classic (pre-streams3) stream without async iteration; this gives it one.
  const output = new PassThrough({ highWaterMark: CHUNK_BYTES });
  const source = Readable.from(compressed, { objectMode: false, highWaterMark: CHUNK_BYTES });
  source.on('error', (error) => output.destroy(error));
  decoder.on('error', (error: Error) =>
    output.destroy(
      new InputFileError(file, `corrupt ${compression} data (${corruptionReason(compression, error)})`),
    ),
  );
  source.pipe(decoder as unknown as NodeJS.WritableStream);
  decoder.pipe(output);
  try {
    yield* output as AsyncIterable<Buffer>;
  } finally {
    source.destroy();
  }
}

/**
 * The file's bytes, decompressed. The magic bytes are taken from the stream itself and handed on with the rest,
 * because a pipe (stdin, `<(bzcat ...)`) can neither be read at a fixed position nor reopened.
 */
async function* decompressedChunks(
  file: string,
  raw: fs.ReadStream,
  totalBytes: number,
): AsyncGenerator<Buffer> {
  const chunks = rawChunks(file, raw, totalBytes);
  const head: Buffer[] = [];
  let headBytes = 0;
  // A pipe may deliver fewer bytes per read than the magic is long.
  while (headBytes < MAGIC_BYTES) {
    const next = await chunks.next();
    if (next.done) break;
    head.push(next.value);
    headBytes += next.value.length;
  }
  async function* everything(): AsyncGenerator<Buffer> {
    yield* head;
    yield* chunks;
  }
  const compression = detectCompression(Buffer.concat(head, Math.min(headBytes, MAGIC_BYTES)));
  if (compression === 'none') yield* everything();
  else yield* decoded(file, compression, everything());
}

/** A readable stream of the file's decompressed bytes (regular files, pipes and FIFOs alike). */
export function openInput(file: string): Readable {
  const { fd, totalBytes } = openForReading(file);
  const raw = fs.createReadStream(file, { fd, highWaterMark: CHUNK_BYTES });
  const stream = Readable.from(decompressedChunks(file, raw, totalBytes), {
    objectMode: false,
    highWaterMark: CHUNK_BYTES,
  });
  // A stream destroyed before its first read never runs the generator that would close the descriptor.
  stream.once('close', () => raw.destroy());
  return stream;
}

/**
 * The file's lines, decompressed and streamed, with 1-based line numbers. Hand-rolled over chunks instead of
 * node:readline because readline's async iterator costs several times more per line on multi-million-line files.
 */
export async function* readLines(file: string): AsyncGenerator<{ line: string; lineNumber: number }> {
  const stream = openInput(file);
  let rest = '';
  let lineNumber = 0;
  let atStart = true;
  stream.setEncoding('utf8');
  for await (const chunk of stream as AsyncIterable<string>) {
    let text = rest + chunk;
    if (atStart) {
      // Editors on Windows save UTF-8 with a byte order mark; it is not part of the first line's data.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      atStart = false;
    }
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
