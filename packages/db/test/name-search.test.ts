// Each month owns its own rowid range in the name search indexes: ranges of different dates never overlap, and
// every rowid is a safe JavaScript integer.
import { dateRowidRange, NAME_SEARCH_ROWIDS_PER_DATE } from '../src';

describe('dateRowidRange', () => {
  it('gives consecutive dates adjacent, disjoint ranges of exact integers', () => {
    const dates = [
      '1970-01-01',
      '1999-12-31',
      '2000-01-01',
      '2017-12-01',
      '2017-12-02',
      '2024-02-29',
      '9999-12-31',
    ];
    const ranges = dates.map(dateRowidRange);
    for (const range of ranges) {
      expect(Number.isSafeInteger(range.first)).toBe(true);
      expect(Number.isSafeInteger(range.end - 1)).toBe(true);
      expect(range.end - range.first).toBe(NAME_SEARCH_ROWIDS_PER_DATE);
      expect(NAME_SEARCH_ROWIDS_PER_DATE).toBeGreaterThan(1_000_000);
    }
    for (let i = 1; i < ranges.length; i += 1)
      expect(ranges[i]!.first).toBeGreaterThanOrEqual(ranges[i - 1]!.end);
    expect(dateRowidRange('1999-12-31').end).toBe(dateRowidRange('2000-01-01').first);
    expect(dateRowidRange('1970-01-01').first).toBe(0);
  });

  it('refuses text that is not a YYYY-MM-DD date', () => {
    for (const text of ['2017-12', '20171201', '2017-12-01 ', ''])
      expect(() => dateRowidRange(text)).toThrow(`not a dataset date (YYYY-MM-DD): ${text}`);
  });
});
