import { ArgumentError, parseDateArgument, parseDateInterval, parseDateList, selectDates } from '../src';

function argumentErrorOf(run: () => unknown): ArgumentError {
  try {
    run();
  } catch (error) {
    if (error instanceof ArgumentError) return error;
    throw error;
  }
  throw new Error('expected an ArgumentError');
}

describe('parseDateArgument', () => {
  it.each([
    ['2017-12-01', '2017-12-01'],
    ['20171201', '2017-12-01'],
    ['2020-02-29', '2020-02-29'],
    ['20000229', '2000-02-29'],
    [' 2019-01-31 ', '2019-01-31'],
  ])('normalises %s to %s', (input, expected) => {
    expect(parseDateArgument(input, 'date')).toBe(expected);
  });

  it.each([
    '2019-02-30',
    '2019-02-29',
    '1900-02-29',
    '2019-13-01',
    '2019-00-10',
    '2019-04-31',
    '20190230',
    '2019-01-00',
  ])('rejects the impossible date %s', (input) => {
    const error = argumentErrorOf(() => parseDateArgument(input, 'dateEnd'));
    expect(error.argument).toBe('dateEnd');
    expect(error.message).toContain('dateEnd');
    expect(error.message).toContain('does not exist');
  });

  it.each([
    '',
    '2019-1-01',
    '2019/01/01',
    '201901',
    '2019-0101',
    '01-12-2019',
    'yesterday',
    '2019-01-01T00:00:00Z',
    '２０１９-01-01',
  ])('rejects the malformed value %j naming the accepted forms', (input) => {
    const error = argumentErrorOf(() => parseDateArgument(input, 'dateStart'));
    expect(error.argument).toBe('dateStart');
    expect(error.message).toMatch(/dateStart must be .*YYYY-MM-DD or YYYYMMDD/);
  });
});

describe('parseDateInterval', () => {
  it('returns null (latest month) when neither bound is given', () => {
    expect(parseDateInterval()).toBeNull();
    expect(parseDateInterval(null, undefined)).toBeNull();
    expect(parseDateInterval('', '  ')).toBeNull();
  });

  it('normalises both bounds and keeps an open bound open', () => {
    expect(parseDateInterval('20170101', '2017-12-01')).toEqual({ start: '2017-01-01', end: '2017-12-01' });
    expect(parseDateInterval('2017-06-01', null)).toEqual({ start: '2017-06-01', end: null });
    expect(parseDateInterval(undefined, '20180101')).toEqual({ start: null, end: '2018-01-01' });
  });

  it('names the bad bound', () => {
    expect(argumentErrorOf(() => parseDateInterval('2017-02-30', '2018-01-01')).argument).toBe('dateStart');
    expect(argumentErrorOf(() => parseDateInterval('2017-01-01', 'soon')).argument).toBe('dateEnd');
  });

  it('rejects a start after the end', () => {
    const error = argumentErrorOf(() => parseDateInterval('2018-02-01', '2018-01-01'));
    expect(error.message).toContain('2018-02-01');
    expect(error.message).toContain('2018-01-01');
  });
});

describe('selectDates', () => {
  const available = ['2018-01-01', '2017-12-01', '2018-03-01', '2018-02-01', '2018-01-01'];

  it('picks only the latest month without an interval', () => {
    expect(selectDates(available, null)).toEqual(['2018-03-01']);
    expect(selectDates([], null)).toEqual([]);
  });

  it('treats both bounds as inclusive', () => {
    expect(selectDates(available, { start: '2018-01-01', end: '2018-02-01' })).toEqual([
      '2018-01-01',
      '2018-02-01',
    ]);
    expect(selectDates(available, { start: '2018-01-02', end: '2018-02-28' })).toEqual(['2018-02-01']);
  });

  it('treats a null bound as open', () => {
    expect(selectDates(available, { start: null, end: '2018-01-01' })).toEqual(['2017-12-01', '2018-01-01']);
    expect(selectDates(available, { start: '2018-02-01', end: null })).toEqual(['2018-02-01', '2018-03-01']);
    expect(selectDates(available, { start: null, end: null })).toEqual([
      '2017-12-01',
      '2018-01-01',
      '2018-02-01',
      '2018-03-01',
    ]);
  });
});

describe('parseDateList', () => {
  it('normalises, sorts and de-duplicates', () => {
    expect(parseDateList(['20180101', '2017-12-01', '2018-01-01'], 'dates')).toEqual([
      '2017-12-01',
      '2018-01-01',
    ]);
  });

  it('returns null for an absent or empty list', () => {
    expect(parseDateList(undefined, 'dates')).toBeNull();
    expect(parseDateList([], 'dates')).toBeNull();
  });

  it('names the argument on a bad entry', () => {
    expect(argumentErrorOf(() => parseDateList(['2018-01-01', '2018-02-31'], 'dates')).argument).toBe(
      'dates',
    );
  });
});
