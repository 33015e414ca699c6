import { ArgumentError, SORT_KEYS, compareCodePoints, parseSort, type SortOperation } from '../src';

function argumentErrorOf(run: () => unknown): ArgumentError {
  try {
    run();
  } catch (error) {
    if (error instanceof ArgumentError) return error;
    throw error;
  }
  throw new Error('expected an ArgumentError');
}

describe('parseSort', () => {
  it('returns no keys for an absent or blank argument', () => {
    expect(parseSort(undefined, 'asns')).toEqual([]);
    expect(parseSort(null, 'asns')).toEqual([]);
    expect(parseSort('  ', 'asns')).toEqual([]);
  });

  it('reads + and - prefixes, ascending by default (the spec sample -country,region)', () => {
    expect(parseSort('-country,region', 'locations')).toEqual([
      { key: 'country', direction: 'desc' },
      { key: 'region', direction: 'asc' },
    ]);
    expect(parseSort('+rank, -cone.numberAsns', 'asns')).toEqual([
      { key: 'rank', direction: 'asc' },
      { key: 'cone.numberAsns', direction: 'desc' },
    ]);
  });

  it('accepts a + that a URL query string turned into a space', () => {
    expect(parseSort(' asnDegree.total', 'organizations')).toEqual([
      { key: 'asnDegree.total', direction: 'asc' },
    ]);
  });

  it.each(Object.keys(SORT_KEYS) as SortOperation[])('accepts every key of the %s table', (operation) => {
    const keys: readonly string[] = SORT_KEYS[operation];
    const parsed = parseSort(keys.map((key, index) => (index % 2 ? `-${key}` : key)).join(','), operation);
    expect(parsed.map((sortKey) => sortKey.key)).toEqual(keys);
    expect(parsed.map((sortKey) => sortKey.direction)).toEqual(
      keys.map((_key: string, index: number) => (index % 2 ? 'desc' : 'asc')),
    );
  });

  it('rejects an unknown key, listing the allowed keys', () => {
    const error = argumentErrorOf(() => parseSort('rank,provider', 'asns'));
    expect(error.argument).toBe('sort');
    expect(error.message).toContain('"provider"');
    for (const key of SORT_KEYS.asns) expect(error.message).toContain(key);
  });

  it('rejects keys of another operation (asnDegree.provider is an organizations key only)', () => {
    expect(() => parseSort('asnDegree.provider', 'asns')).toThrow(ArgumentError);
    expect(parseSort('asnDegree.provider', 'organizations')).toEqual([
      { key: 'asnDegree.provider', direction: 'asc' },
    ]);
  });

  it('allows date only for historic queries', () => {
    expect(() => parseSort('-date', 'asns')).toThrow(/not sortable/);
    // A root field that could read several months but reads one says what date needs.
    expect(() => parseSort('-date', 'asns', { historic: false })).toThrow(
      /^sort key "date" needs a query over several months \(dateStart and dateEnd, or dates\); this one reads a single month; allowed keys: asn, /,
    );
    expect(parseSort('-date,rank', 'asns', { historic: true })).toEqual([
      { key: 'date', direction: 'desc' },
      { key: 'rank', direction: 'asc' },
    ]);
    expect(parseSort('date', 'datasets')).toEqual([{ key: 'date', direction: 'asc' }]);
  });

  it('rejects duplicate keys even with different directions', () => {
    const error = argumentErrorOf(() => parseSort('rank,-rank', 'asns'));
    expect(error.message).toContain('more than once');
  });

  it.each(['rank,', ',rank', 'rank,,asn', '-', '+ '])('rejects the empty entry in %j', (value) => {
    expect(argumentErrorOf(() => parseSort(value, 'asns')).message).toContain('empty key');
  });

  it('uses the argument name it is given', () => {
    expect(argumentErrorOf(() => parseSort('nope', 'asnLinks', { argument: 'linkSort' })).argument).toBe(
      'linkSort',
    );
  });
});

describe('compareCodePoints', () => {
  it('orders strings as their UTF-8 bytes do, where UTF-16 code units would not', () => {
    const words = ['\u{1F4A5}ville', '\uE000Sydney', '\uFB00rankfurt', 'Zurich', 'abc', 'ab', 'Ärhus', ''];
    const byBytes = [...words].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect([...words].sort(compareCodePoints)).toEqual(byBytes);
    expect(byBytes.slice(-3)).toEqual(['\uE000Sydney', '\uFB00rankfurt', '\u{1F4A5}ville']);
    // JavaScript's own order puts the surrogate pair first among those three.
    expect([...words].sort()).not.toEqual(byBytes);
  });
});
