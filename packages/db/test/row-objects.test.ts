// Row objects built from arrays: the statement's column names in order, a repeated name keeping its last value, as
// better-sqlite3's and pg's own row objects do.
import { rowObjectBuilder } from '../src';

describe('rowObjectBuilder', () => {
  it('makes an object per row, named in column order, a repeated name keeping its last value', () => {
    const toRow = rowObjectBuilder(['asn', 'asn_name', 'rank', 'asn']);
    const rows = [
      [3356, 'LEVEL3', 1, 3357],
      [174, null, null, 175],
    ].map(toRow);
    expect(rows).toEqual([
      { asn: 3357, asn_name: 'LEVEL3', rank: 1 },
      { asn: 175, asn_name: null, rank: null },
    ]);
    expect(Object.keys(rows[0]!)).toEqual(['asn', 'asn_name', 'rank']);
    expect(rows[0]).not.toBe(rows[1]);
  });

  it('gives missing trailing values as undefined and ignores extra ones', () => {
    const toRow = rowObjectBuilder(['a', 'b']);
    expect(toRow([1])).toEqual({ a: 1, b: undefined });
    expect(toRow([1, 2, 3])).toEqual({ a: 1, b: 2 });
  });
});
