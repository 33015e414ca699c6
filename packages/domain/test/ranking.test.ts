import fc from 'fast-check';
import { competitionRanks, rankAsns, rankLinks, rankOrganizations, type AsnRankInput } from '../src';

const measures = { coneAsns: 1, conePrefixes: 1, coneAddresses: 256, degreeTotal: 1, degreeTransit: 0 };

describe('competitionRanks', () => {
  it('gives ties the same rank and skips after them (1, 2, 2, 4)', () => {
    expect(competitionRanks([50, 40, 40, 10], (a, b) => b - a)).toEqual([1, 2, 2, 4]);
  });

  it('returns ranks in input order', () => {
    expect(competitionRanks([10, 40, 50, 40], (a, b) => b - a)).toEqual([4, 2, 1, 2]);
    expect(competitionRanks([], (a: number, b: number) => a - b)).toEqual([]);
  });

  it('is 1 + the number of strictly better items, for any input', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 60 }), (values) => {
        const ranks = competitionRanks(values, (a, b) => b - a);
        values.forEach((value, index) => {
          expect(ranks[index]).toBe(1 + values.filter((other) => other > value).length);
        });
      }),
    );
  });
});

describe('rankAsns', () => {
  it('orders by cone ASNs, then prefixes, addresses, total degree and transit degree, all descending', () => {
    const rows: AsnRankInput[] = [
      { asn: 1, ...measures, coneAsns: 5 },
      { asn: 2, ...measures, coneAsns: 5, conePrefixes: 9 },
      { asn: 3, ...measures, coneAsns: 5, conePrefixes: 9, coneAddresses: 1024 },
      { asn: 4, ...measures, degreeTotal: 7 },
      { asn: 5, ...measures, degreeTotal: 7, degreeTransit: 3 },
      { asn: 6, ...measures },
      { asn: 7, ...measures },
    ];
    const ranks = rankAsns(rows);
    expect([1, 2, 3, 4, 5, 6, 7].map((asn) => ranks.get(asn))).toEqual([3, 2, 1, 5, 4, 6, 6]);
  });
});

describe('rankOrganizations', () => {
  it('ranks organizations on the same measures, keyed by orgId', () => {
    const ranks = rankOrganizations([
      { orgId: 'SMALL', ...measures },
      { orgId: 'BIG', ...measures, coneAsns: 100 },
      { orgId: 'MID', ...measures, coneAsns: 10 },
      { orgId: 'MID-TWIN', ...measures, coneAsns: 10 },
    ]);
    expect(Object.fromEntries(ranks)).toEqual({ BIG: 1, MID: 2, 'MID-TWIN': 2, SMALL: 4 });
  });
});

describe('rankLinks', () => {
  const asnRanks = new Map([
    [10, 1],
    [20, 2],
    [30, 3],
    [40, 3],
  ]);
  const rankOf = (asn: number): number | undefined => asnRanks.get(asn);

  it('orders by the better end, then the worse end, ends in any orientation', () => {
    const links = [
      { asn0: 30, asn1: 20 }, // (2, 3)
      { asn0: 10, asn1: 40 }, // (1, 3)
      { asn0: 20, asn1: 10 }, // (1, 2)
      { asn0: 40, asn1: 20 }, // (2, 3): ties with the first
    ];
    expect(rankLinks(links, rankOf)).toEqual([3, 2, 1, 3]);
  });

  it('puts links with unranked ends last', () => {
    const links = [
      { asn0: 99, asn1: 98 }, // (none, none)
      { asn0: 99, asn1: 10 }, // (1, none)
      { asn0: 30, asn1: 40 }, // (3, 3)
      { asn0: 10, asn1: 30 }, // (1, 3)
    ];
    expect(rankLinks(links, rankOf)).toEqual([4, 2, 3, 1]);
  });
});
