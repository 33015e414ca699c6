// A large JSON answer written as UTF-8 bytes without ever being one large string.
//
// V8 keeps any object over 128 KB in its large-object space: a fresh memory mapping per object, unmapped when the
// object is collected, so each of its pages is faulted in anew. JSON.stringify returns a large answer as a rope of
// small parts, and every consumer (Buffer.from, TextEncoder, a socket write) first flattens that rope into one such
// large string. On this project's 2-core machine (a Firecracker microVM with paravirtualised paging) touching a
// fresh page costs ~19 µs: a 363 KB cone-stream page paid ~90 faults, ~1.8 ms of the service's ~7 ms per page
// (docs/performance.md, twentieth round). Here the large arrays are stringified a slice at a time, each slice a
// young-generation string of a few tens of KB, and the slices are encoded one after another into one Buffer, whose
// memory malloc reuses from one answer to the next. Everything else is still JSON.stringify's own work; no library
// stringifies by slices (the streaming ones walk every value in JavaScript, several times slower than V8's native
// JSON.stringify on a 10,000-item page).

/** Arrays at least this long make a value worth writing in pieces. */
export const LARGE_ARRAY_ELEMENTS = 2048;
/** Array elements per JSON.stringify call: ~20-40 KB of JSON for the answers' list items, far below 128 KB. */
const SLICE_ELEMENTS = 512;
/** Elements of a shorter array looked into for a large array below them (a list's items share one shape). */
const SAMPLED_ELEMENTS = 8;

const utf8Encoder = new TextEncoder();

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return (
    (prototype === Object.prototype || prototype === null) &&
    typeof (value as { toJSON?: unknown }).toJSON !== 'function'
  );
}

/**
 * Whether a plain object or array holds an array of LARGE_ARRAY_ELEMENTS or more, looking into the first
 * SAMPLED_ELEMENTS items of shorter arrays only: a cheap test run on every answer. A large array it misses only
 * means that part is stringified whole, as before.
 */
export function holdsLargeArray(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    if (value.length >= LARGE_ARRAY_ELEMENTS) return true;
    const sampled = Math.min(value.length, SAMPLED_ELEMENTS);
    for (let index = 0; index < sampled; index++) if (holdsLargeArray(value[index])) return true;
    return false;
  }
  if (!isPlainObject(value)) return false;
  for (const key in value) if (holdsLargeArray(value[key])) return true;
  return false;
}

/** Appends the JSON text of a plain object or array that holds a large array, in pieces. */
function appendPieces(value: object, pieces: string[]): void {
  if (Array.isArray(value)) {
    pieces.push('[');
    for (let start = 0; start < value.length; start += SLICE_ELEMENTS) {
      if (start > 0) pieces.push(',');
      const slice = value.slice(start, start + SLICE_ELEMENTS);
      if (holdsLargeArray(slice)) {
        // An index loop, not forEach: a hole is written as null, as JSON.stringify does.
        for (let index = 0; index < slice.length; index++) {
          const element = slice[index] as unknown;
          if (index > 0) pieces.push(',');
          if (holdsLargeArray(element)) appendPieces(element as object, pieces);
          // As JSON.stringify writes undefined, a function or a symbol inside an array.
          else pieces.push((JSON.stringify(element) as string | undefined) ?? 'null');
        }
      } else {
        pieces.push(JSON.stringify(slice).slice(1, -1));
      }
    }
    pieces.push(']');
    return;
  }
  const record = value as Record<string, unknown>;
  let separator = '{';
  for (const key of Object.keys(record)) {
    const member = record[key];
    if (holdsLargeArray(member)) {
      pieces.push(separator + JSON.stringify(key) + ':');
      appendPieces(member as object, pieces);
    } else {
      const text = JSON.stringify(member) as string | undefined;
      // As JSON.stringify leaves out a member that is undefined, a function or a symbol.
      if (text === undefined) continue;
      pieces.push(separator + JSON.stringify(key) + ':' + text);
    }
    separator = ',';
  }
  pieces.push(separator === '{' ? '{}' : '}');
}

/** Encodes the pieces into one Buffer: as many bytes as characters while they are ASCII, counted otherwise. */
function piecesAsBytes(pieces: string[]): Buffer {
  let characters = 0;
  for (const piece of pieces) characters += piece.length;
  const asciiSized = Buffer.allocUnsafeSlow(characters);
  let at = 0;
  let ascii = true;
  for (const piece of pieces) {
    // All of every piece read into exactly `characters` bytes means every character was one byte.
    const { read, written } = utf8Encoder.encodeInto(piece, asciiSized.subarray(at));
    if (read !== piece.length) {
      ascii = false;
      break;
    }
    at += written;
  }
  if (ascii) return asciiSized;
  let bytes = 0;
  for (const piece of pieces) bytes += Buffer.byteLength(piece, 'utf8');
  const exact = Buffer.allocUnsafeSlow(bytes);
  at = 0;
  for (const piece of pieces) at += exact.write(piece, at, 'utf8');
  return exact;
}

/**
 * The UTF-8 bytes of JSON.stringify(value) for a plain object or array that holds a large array (holdsLargeArray),
 * written without one large string. Objects with toJSON are stringified by JSON.stringify as a whole, so their
 * toJSON is called with '' or an index within a slice rather than their own key (none of the answers' use the key).
 */
export function largeJsonBytes(value: object): Buffer {
  const pieces: string[] = [];
  appendPieces(value, pieces);
  return piecesAsBytes(pieces);
}
