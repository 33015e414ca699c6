// Row objects built from arrays: the statement's column names in order, a repeated name keeping its last value, as
// better-sqlite3's and pg's own row objects do.
import { renamingObjectBuilder, rowObjectBuilder } from '../src';

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

  it('keeps a __proto__ column as a property of its own, not as the prototype', () => {
    const row = rowObjectBuilder(['asn', '__proto__'])([1, { polluted: true }]);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.keys(row)).toEqual(['asn', '__proto__']);
    expect((row as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('makes one builder per column list, whose rows share their shape', () => {
    expect(rowObjectBuilder(['a', 'b'])).toBe(rowObjectBuilder(['a', 'b']));
    expect(rowObjectBuilder(['a', 'b'])).not.toBe(rowObjectBuilder(['b', 'a']));
    // Names that would break out of the literal are only keys.
    const odd = rowObjectBuilder(['a"]; throw 1; //', 'b\\', 'c\u2028'])([1, 2, 3]);
    expect(Object.values(odd)).toEqual([1, 2, 3]);
  });
});

describe('renamingObjectBuilder', () => {
  it("copies each pair's property under its name, in the pairs' order, a repeated name keeping its last value", () => {
    const toRecord = renamingObjectBuilder([
      ['date', 'date'],
      ['asn', 'asn1__asn'],
      ['rank', 'asn1__rank'],
      ['asn', 'asn1__asn_again'],
    ]);
    const row = { date: '2017-12-01', asn0: 3356, asn1__asn: 174, asn1__rank: 3, asn1__asn_again: 175 };
    const record = toRecord(row);
    expect(record).toEqual({ date: '2017-12-01', asn: 175, rank: 3 });
    expect(Object.keys(record)).toEqual(['date', 'asn', 'rank']);
    // A property the source lacks is copied as undefined; the source is left as it was.
    expect(renamingObjectBuilder([['missing', 'nowhere']])(row)).toEqual({ missing: undefined });
    expect(row.asn1__asn).toBe(174);
  });

  it('keeps a __proto__ name as a property of its own, and reads odd property names only as keys', () => {
    const record = renamingObjectBuilder([
      ['__proto__', 'polluting'],
      ['odd', 'a"]; throw 1; //'],
    ])({ polluting: { polluted: true }, 'a"]; throw 1; //': 2 });
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.keys(record)).toEqual(['__proto__', 'odd']);
    expect((record as { polluted?: unknown }).polluted).toBeUndefined();
    expect(record.odd).toBe(2);
  });

  it('makes one builder per list of pairs', () => {
    expect(renamingObjectBuilder([['a', 'b']])).toBe(renamingObjectBuilder([['a', 'b']]));
    expect(renamingObjectBuilder([['a', 'b']])).not.toBe(renamingObjectBuilder([['a', 'c']]));
  });
});
