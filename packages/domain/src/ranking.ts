/**
 * Competition ranking ("1224"): an item's rank is 1 + the number of items strictly ahead of it, so ties share a rank
 * and the next rank skips. `compare` orders best first (negative = a ranks ahead of b). Ranks come back in input order.
 */
export function competitionRanks<T>(items: readonly T[], compare: (a: T, b: T) => number): number[] {
  const order = items.map((_, index) => index);
  order.sort((a, b) => compare(items[a] as T, items[b] as T));
  const ranks = new Array<number>(items.length);
  for (let position = 0; position < order.length; position += 1) {
    const index = order[position] as number;
    const previous = position > 0 ? (order[position - 1] as number) : -1;
    ranks[index] =
      previous >= 0 && compare(items[previous] as T, items[index] as T) === 0
        ? (ranks[previous] as number)
        : position + 1;
  }
  return ranks;
}

/** What ranks an AS (or an organization): its cone sizes, then its degrees. */
export interface RankMeasures {
  coneAsns: number;
  conePrefixes: number;
  coneAddresses: number;
  degreeTotal: number;
  degreeTransit: number;
}

export interface AsnRankInput extends RankMeasures {
  asn: number;
}

export interface OrgRankInput extends RankMeasures {
  orgId: string;
}

/** AS Rank's order: bigger cone in ASNs, then prefixes, then addresses, then total degree, then transit degree. */
export function compareRankMeasures(a: RankMeasures, b: RankMeasures): number {
  return (
    b.coneAsns - a.coneAsns ||
    b.conePrefixes - a.conePrefixes ||
    b.coneAddresses - a.coneAddresses ||
    b.degreeTotal - a.degreeTotal ||
    b.degreeTransit - a.degreeTransit
  );
}

/** Rank of every given AS (pass only the ASNs that should be ranked, e.g. those seen in the routing data). */
export function rankAsns(rows: readonly AsnRankInput[]): Map<number, number> {
  const ranks = competitionRanks(rows, compareRankMeasures);
  return new Map(rows.map((row, index) => [row.asn, ranks[index] as number]));
}

/** Rank of every given organization, by the same measures taken on the organizations' cones and degrees. */
export function rankOrganizations(rows: readonly OrgRankInput[]): Map<string, number> {
  const ranks = competitionRanks(rows, compareRankMeasures);
  return new Map(rows.map((row, index) => [row.orgId, ranks[index] as number]));
}

/**
 * AS-link ranks: links ordered by the better (smaller) of their two ends' ranks, then the worse one; an unranked end
 * sorts after every ranked one. Competition ranking, so links with the same pair of end ranks share a rank.
 * Returned in input order.
 */
export function rankLinks(
  links: readonly { asn0: number; asn1: number }[],
  asnRank: (asn: number) => number | null | undefined,
): number[] {
  const rankOf = (asn: number): number => asnRank(asn) ?? Number.POSITIVE_INFINITY;
  const keys = links.map((link) => {
    const rank0 = rankOf(link.asn0);
    const rank1 = rankOf(link.asn1);
    return rank0 <= rank1 ? [rank0, rank1] : [rank1, rank0];
  });
  const compareRank = (a: number, b: number): number => (a === b ? 0 : a < b ? -1 : 1);
  const order = keys.map((_, index) => index);
  const compare = (a: number, b: number): number => {
    const keyA = keys[a] as number[];
    const keyB = keys[b] as number[];
    return (
      compareRank(keyA[0] as number, keyB[0] as number) || compareRank(keyA[1] as number, keyB[1] as number)
    );
  };
  return competitionRanks(order, compare);
}
