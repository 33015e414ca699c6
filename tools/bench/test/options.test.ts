// The suite's options decide what is measured: the defaults must be the full-Internet month, a smaller
// --asns must scale the whole Internet with it, and a typo must stop the run instead of measuring something else.
import { parseSuiteOptions, UsageError } from '../src/options';
import { parseProfileSummaryArgs } from '../src/profile-summary';

describe('parseSuiteOptions', () => {
  it('defaults to the full-Internet store: 80,000 ASNs, 500,000 links, 1,000,000 prefixes, 12 months', () => {
    const options = parseSuiteOptions([]);
    expect(options.spec).toMatchObject({ asns: 80_000, links: 500_000, prefixes: 1_000_000, months: 12 });
    expect(options).toMatchObject({
      stores: 'both',
      connections: 10,
      only: null,
      profile: false,
      perf: false,
    });
  });

  it('records with Linux perf only when --perf is given', () => {
    expect(parseSuiteOptions(['--perf']).perf).toBe(true);
    expect(() => parseSuiteOptions(['--perf=yes'])).toThrow(UsageError);
  });

  it('splits each measurement into three interleaved rounds unless --rounds says otherwise', () => {
    expect(parseSuiteOptions([]).rounds).toBe(3);
    expect(parseSuiteOptions(['--rounds', '1']).rounds).toBe(1);
  });

  it('scales links and prefixes with --asns unless they are given', () => {
    expect(parseSuiteOptions(['--asns', '5000']).spec).toMatchObject({
      asns: 5000,
      links: 31_250,
      prefixes: 62_500,
    });
    expect(parseSuiteOptions(['--asns', '5000', '--links', '7']).spec).toMatchObject({
      links: 7,
      prefixes: 62_500,
    });
  });

  it('selects workloads and stores by name', () => {
    const options = parseSuiteOptions(['--only', 'w1, W5,s2', '--store', 'sqlite']);
    expect([...(options.only ?? [])].sort()).toEqual(['S2', 'W1', 'W5']);
    expect(options.stores).toBe('sqlite');
  });

  it.each([
    [['--asns', '3'], '--asns must be an integer >= 10, got "3"'],
    [['--duration', 'x'], '--duration must be an integer >= 1, got "x"'],
    [['--rounds', '0'], '--rounds must be an integer >= 1, got "0"'],
    [['--only', 'W7'], '--only takes workload names W1..W6, S2, S3, S4, S6 separated by commas, got W7'],
    [['--store', 'mysql'], '--store must be sqlite, postgres or both, got "mysql"'],
    [['--fast'], "Unknown option '--fast'"],
    [['--only'], "Option '--only <value>' argument missing"],
  ])('rejects %j with a usage error naming the option', (argv, message) => {
    expect(() => parseSuiteOptions(argv)).toThrow(message);
    expect(() => parseSuiteOptions(argv)).toThrow(UsageError);
  });
});

describe('parseProfileSummaryArgs', () => {
  it('takes one profile file and --top', () => {
    expect(parseProfileSummaryArgs(['p.cpuprofile'])).toEqual({ file: 'p.cpuprofile', top: 25 });
    expect(parseProfileSummaryArgs(['p.cpuprofile', '--top', '40'])).toEqual({
      file: 'p.cpuprofile',
      top: 40,
    });
  });

  it.each([
    [[], /one profile file is needed, got 0/],
    [['a.cpuprofile', 'b.cpuprofile'], /one profile file is needed, got 2/],
    [['p.cpuprofile', '--top', 'many'], /--top must be a positive integer, got "many"/],
    [['p.cpuprofile', '--top', '0'], /--top must be a positive integer, got "0"/],
    [['p.cpuprofile', '--tops', '3'], /Unknown option '--tops'/],
  ])('refuses %j with a usage error naming the fault', (argv, message) => {
    expect(() => parseProfileSummaryArgs(argv)).toThrow(UsageError);
    expect(() => parseProfileSummaryArgs(argv)).toThrow(message);
  });

  it("takes the survey's threshold and query filter, and refuses a filter that is no regular expression", () => {
    expect(parseSuiteOptions([])).toMatchObject({ slowMs: 1000, match: null });
    const options = parseSuiteOptions(['--slow-ms', '250', '--match', '^asnCone']);
    expect(options.slowMs).toBe(250);
    expect(options.match?.test('asnCone(3356) asns and prefixes')).toBe(true);
    expect(options.match?.test('asns latest month sort=asn offset=0')).toBe(false);
    expect(() => parseSuiteOptions(['--match', '(unclosed'])).toThrow(/--match must be a regular expression/);
    expect(() => parseSuiteOptions(['--slow-ms', '0'])).toThrow(UsageError);
  });
});
