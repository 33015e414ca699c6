// pg-protocol as patched here (patches/pg-protocol@1.16.1.patch) reads a row of ASCII values as one string and cuts
// the values from it; other rows value by value. Either way a row's values must come out as PostgreSQL sent them:
// UTF-8 text, NULLs, empty values, lengths whose bytes are over 0x7f (read back from the latin1 string), and rows of
// long values. The parser is fed hand-built DataRow messages, whole and split across reads; a real server then echoes
// the same values through pg (DATABASE_URL_PG).
import path from 'node:path';
import { Client } from 'pg';

interface ProtocolMessage {
  name: string;
  fields?: (string | null)[];
}
interface ProtocolParser {
  parse(buffer: Buffer, callback: (message: ProtocolMessage) => void): void;
}
// pg-protocol is pg's dependency, not ours: the parser pg itself loads, found from pg's own folder.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Parser } = require(
  require.resolve('pg-protocol/dist/parser', { paths: [path.dirname(require.resolve('pg'))] }),
) as { Parser: new () => ProtocolParser };

const PG_URL = process.env.DATABASE_URL_PG;
if (!PG_URL) console.warn('pg-row-decoding.test.ts: DATABASE_URL_PG is not set, the server case is skipped');

/** A DataRow message ('D', its length, the value count, each value's length or -1 and its UTF-8 bytes). */
function dataRow(values: readonly (string | null)[]): Buffer {
  const parts = values.map((value) => {
    if (value === null) return Buffer.from([0xff, 0xff, 0xff, 0xff]);
    const bytes = Buffer.from(value, 'utf8');
    const length = Buffer.alloc(4);
    length.writeInt32BE(bytes.length);
    return Buffer.concat([length, bytes]);
  });
  const body = Buffer.concat([Buffer.from([values.length >> 8, values.length & 0xff]), ...parts]);
  const header = Buffer.alloc(5);
  header.write('D', 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

function parsedRows(chunks: readonly Buffer[]): (string | null)[][] {
  const parser = new Parser();
  const rows: (string | null)[][] = [];
  for (const chunk of chunks)
    parser.parse(chunk, (message) => {
      expect(message.name).toBe('dataRow');
      rows.push(message.fields!);
    });
  return rows;
}

const ROWS: (string | null)[][] = [
  ['AS3356', '3356', 'LEVEL3', null, '', '2024-12-01', '  spaces around  '],
  // lengths 128, 200 and 255 have a byte over 0x7f and 256 fills a second byte, in rows short enough on average to be
  // read as one string; 0x7f itself is ASCII
  ['a'.repeat(128), 'b'.repeat(200), '\x7f', '', '1', '\x00tab\tnew\nline'],
  ['c'.repeat(255), 'd'.repeat(256), '0', '1', '2', '3', '4', '5', '6', '7'],
  // any byte over 0x7f sends the whole row value by value
  ['Zürich', 'ASCII next to it', '☃ snow', '𝄞', null, 'Ελλάδα'],
  [null, null, null],
  [],
  // long values (over 64 bytes a value on average): value by value, all ASCII
  ['x'.repeat(5000), 'y'.repeat(5000), 'short'],
  ['z'.repeat(9000)],
];

describe('pg-protocol DataRow decoding (patched)', () => {
  it('gives every row its values as sent, ASCII or not, NULL or empty, short or long', () => {
    expect(parsedRows([Buffer.concat(ROWS.map(dataRow))])).toEqual(ROWS);
  });

  it('gives the same values when two rows arrive split across two reads at any byte', () => {
    const message = Buffer.concat([dataRow(ROWS[1]!), dataRow(ROWS[3]!)]);
    // Copies: the parser may reuse a read's buffer for the next (as it does a socket's), which would change `message`.
    for (let split = 1; split < message.length; split++)
      expect(
        parsedRows([Buffer.from(message.subarray(0, split)), Buffer.from(message.subarray(split))]),
      ).toEqual([ROWS[1], ROWS[3]]);
  });

  (PG_URL ? it : it.skip)('reads back from PostgreSQL the values it was sent', async () => {
    const client = new Client({ connectionString: PG_URL });
    await client.connect();
    try {
      for (const row of ROWS.filter((values) => values.length > 0)) {
        // \x00 cannot be a PostgreSQL text value
        const sent = row.map((value) => (value === null ? null : value.replaceAll('\x00', '')));
        const placeholders = sent.map((_, index) => `$${index + 1}::text`).join(', ');
        const result = await client.query<unknown[]>({
          text: `select ${placeholders}`,
          values: sent,
          rowMode: 'array',
        });
        expect(result.rows).toEqual([sent]);
      }
    } finally {
      await client.end();
    }
  });
});
