import fc from 'fast-check';
import {
  AsGraph,
  computeCustomerCones,
  computeDegrees,
  computeOrgCones,
  computeOrgDegrees,
  countOrgLinks,
  type RelationshipCode,
  type RelationshipLink,
} from '../src';

const p2c = (provider: number, customer: number): RelationshipLink => ({
  asn0: provider,
  asn1: customer,
  code: -1,
});
const peer = (a: number, b: number): RelationshipLink => ({ asn0: a, asn1: b, code: 0 });

/** Reference cone: breadth-first closure with a Set, as a user would compute it by hand. */
function referenceCone(links: readonly RelationshipLink[], asn: number): number[] {
  const seen = new Set([asn]);
  const queue = [asn];
  while (queue.length > 0) {
    const current = queue.shift() as number;
    for (const link of links) {
      if (link.code === -1 && link.asn0 === current && !seen.has(link.asn1)) {
        seen.add(link.asn1);
        queue.push(link.asn1);
      }
    }
  }
  return [...seen].sort((a, b) => a - b);
}

describe('AsGraph', () => {
  const graph = AsGraph.fromLinks([
    p2c(1, 2),
    p2c(1, 3),
    peer(2, 3),
    p2c(1, 2),
    { asn0: 3, asn1: 4, code: 1 },
    p2c(5, 5),
  ]);

  it('lists neighbours by relationship, sorted and without duplicates', () => {
    expect(graph.asns()).toEqual([1, 2, 3, 4, 5]);
    expect(graph.customers(1)).toEqual([2, 3]);
    expect(graph.providers(2)).toEqual([1]);
    expect(graph.peers(3)).toEqual([2]);
    expect(graph.siblings(4)).toEqual([3]);
    expect(graph.neighbours(3)).toEqual([1, 2, 4]);
  });

  it.each([
    { asn0: -1, asn1: 2, code: -1 },
    { asn0: 1.5, asn1: 2, code: 0 },
    { asn0: 1, asn1: 2 ** 32, code: 0 },
    { asn0: 1, asn1: Number.NaN, code: 0 },
    { asn0: 1, asn1: 2, code: 2 },
  ])('rejects the bad link %j instead of wrapping it', (link) => {
    expect(() => AsGraph.fromLinks([link as RelationshipLink])).toThrow(/invalid AS relationship/);
  });

  it('ignores self-links and answers empty lists for unknown ASNs', () => {
    expect(graph.customers(5)).toEqual([]);
    expect(graph.providers(5)).toEqual([]);
    expect(graph.customers(12345)).toEqual([]);
    expect(graph.has(12345)).toBe(false);
  });
});

describe('computeCustomerCones', () => {
  it('is the AS plus everything reachable downwards, not across peers or upwards', () => {
    const cones = computeCustomerCones(
      AsGraph.fromLinks([p2c(1, 2), p2c(2, 3), p2c(1, 4), peer(3, 5), p2c(6, 1)]),
    );
    expect(Array.from(cones.get(1) ?? [])).toEqual([1, 2, 3, 4]);
    expect(Array.from(cones.get(6) ?? [])).toEqual([1, 2, 3, 4, 6]);
    expect(Array.from(cones.get(3) ?? [])).toEqual([3]);
    expect(Array.from(cones.get(5) ?? [])).toEqual([5]);
  });

  it('survives provider cycles', () => {
    const cones = computeCustomerCones(AsGraph.fromLinks([p2c(1, 2), p2c(2, 3), p2c(3, 1), p2c(3, 4)]));
    for (const asn of [1, 2, 3]) expect(Array.from(cones.get(asn) ?? [])).toEqual([1, 2, 3, 4]);
    expect(Array.from(cones.get(4) ?? [])).toEqual([4]);
  });

  it('matches a reference closure on random graphs', () => {
    const linkArbitrary = fc.record({
      asn0: fc.integer({ min: 1, max: 30 }),
      asn1: fc.integer({ min: 1, max: 30 }),
      code: fc.constantFrom<RelationshipCode>(-1, -1, 0, 1),
    });
    fc.assert(
      fc.property(fc.array(linkArbitrary, { maxLength: 80 }), (links) => {
        const graph = AsGraph.fromLinks(links);
        const cones = computeCustomerCones(graph);
        expect([...cones.keys()].sort((a, b) => a - b)).toEqual(graph.asns());
        for (const asn of graph.asns()) {
          const expected = referenceCone(links, asn);
          expect(Array.from(cones.get(asn) ?? [])).toEqual(expected);
        }
      }),
    );
  });
});

describe('computeDegrees', () => {
  const orgs = new Map([
    [1, 'A'],
    [2, 'A'],
    [3, 'B'],
    [4, 'C'],
  ]);
  const orgOf = (asn: number): string | undefined => orgs.get(asn);
  // 1 provides 2 and 3; 3 provides 4; 1 peers 5; 2 peers 3; 6 is linked as 4's sibling.
  const graph = AsGraph.fromLinks([
    p2c(1, 2),
    p2c(1, 3),
    p2c(3, 4),
    peer(1, 5),
    peer(2, 3),
    { asn0: 4, asn1: 6, code: 1 },
  ]);
  const degrees = computeDegrees(graph, orgOf);

  it('counts relationships, siblings by organization or sibling link, and distinct neighbours', () => {
    expect(degrees.get(1)).toEqual({ provider: 0, peer: 1, customer: 2, sibling: 1, transit: 3, total: 3 });
    expect(degrees.get(2)).toEqual({ provider: 1, peer: 1, customer: 0, sibling: 1, transit: 0, total: 2 });
    expect(degrees.get(3)).toEqual({ provider: 1, peer: 1, customer: 1, sibling: 0, transit: 3, total: 3 });
    expect(degrees.get(4)).toEqual({ provider: 1, peer: 0, customer: 0, sibling: 1, transit: 0, total: 2 });
    expect(degrees.get(5)).toEqual({ provider: 0, peer: 1, customer: 0, sibling: 0, transit: 0, total: 1 });
  });

  it('counts a neighbour linked twice once in total', () => {
    const twice = computeDegrees(AsGraph.fromLinks([p2c(1, 2), peer(1, 2)]), () => undefined);
    expect(twice.get(1)).toMatchObject({ customer: 1, peer: 1, total: 1 });
  });
});

describe('computeOrgDegrees', () => {
  const orgs = new Map([
    [1, 'A'],
    [2, 'A'],
    [3, 'B'],
    [4, 'C'],
    [5, 'C'],
  ]);
  const orgOf = (asn: number): string | undefined => orgs.get(asn);
  // Org A = {1, 2}: 1 provides 2 (internal) and 3; 2 provides 4; 2 peers 5; 9 (no org) provides 1.
  // Org C = {4, 5}: AS2 is both a provider (of 4) and a peer (of 5), so it counts once in total.
  const graph = AsGraph.fromLinks([p2c(1, 2), p2c(1, 3), p2c(2, 4), peer(2, 5), p2c(9, 1), p2c(3, 4)]);
  const degrees = computeOrgDegrees(graph, orgOf);

  it('counts neighbour ASNs outside the org and distinct neighbouring orgs', () => {
    expect(degrees.get('A')).toEqual({
      asnDegree: { provider: 1, peer: 1, customer: 2, sibling: 0, transit: 4, total: 4 },
      orgDegree: { total: 3, transit: 3 },
    });
    expect(degrees.get('C')).toEqual({
      asnDegree: { provider: 2, peer: 1, customer: 0, sibling: 0, transit: 0, total: 2 },
      orgDegree: { total: 2, transit: 0 },
    });
    expect(degrees.has('nobody')).toBe(false);
  });

  it('counts the same neighbours from the links listed once per direction, as countOrgLinks, and their links', () => {
    const bothDirections = [p2c(1, 2), p2c(1, 3), p2c(2, 4), peer(2, 5), p2c(9, 1), p2c(3, 4)].flatMap(
      (link) => [
        { asn0: link.asn0, asn1: link.asn1 },
        { asn0: link.asn1, asn1: link.asn0 },
      ],
    );
    const counted = countOrgLinks(bothDirections, orgOf);
    // A: 1-3, 2-4, 2-5 and 1-9 (9 has no organization); B: 3-1 and 3-4; C: 4-2, 4-3 and 5-2 (AS2 twice).
    // AS9 has no organization, so no count of its own.
    expect(counted).toEqual(
      new Map([
        ['A', { links: 4, neighbours: 4 }],
        ['B', { links: 2, neighbours: 2 }],
        ['C', { links: 3, neighbours: 2 }],
      ]),
    );
    for (const [org, { neighbours }] of counted) expect(degrees.get(org)?.asnDegree.total).toBe(neighbours);
  });
});

describe('computeOrgCones', () => {
  it('unites the members cones and always includes the members', () => {
    const cones = new Map<number, Uint32Array>([
      [1, Uint32Array.from([1, 5, 7])],
      [2, Uint32Array.from([2, 5, 9])],
    ]);
    const orgCones = computeOrgCones(
      cones,
      new Map([
        ['A', [1, 2]],
        ['B', [3]],
      ]),
    );
    expect(Array.from(orgCones.get('A') ?? [])).toEqual([1, 2, 5, 7, 9]);
    expect(Array.from(orgCones.get('B') ?? [])).toEqual([3]);
  });
});
