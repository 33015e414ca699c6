// An organization's links and neighbours are read from each member's first links only (organizationMemberLinks), and
// its neighbours in other orders partly from walks of the month's records (neighborWalk) or of the members' own links
// (neighborClassWalk): every organization's pages,
// in every order and with offsets, are checked against the same pages worked out here from all of the month's links,
// on SQLite and PostgreSQL.
import { sql } from 'kysely';
import { createStoreFacts, linkPageTuning, organizationNeighborTuning } from '../src';
import { neighborClassWalk, neighborWalk, neighborWalkSteps, walkerLinks } from '../src/types/organization';
import {
  withLoadedStore,
  queryData,
  STORE_KINDS,
  type LoadedStore,
  keepListedLinkParts,
} from './support/store';
import { LOAD_TIMEOUT_MS } from './support/store';
import { StatementCounter, throughPlugin } from './support/statementCounter';

jest.setTimeout(LOAD_TIMEOUT_MS);

interface Member {
  asn: number;
  org_id: string | null;
  rank: number | null;
  cone_asns: number;
  degree_total: number;
  asn_name: string;
}
interface Link {
  asn0: number;
  asn1: number;
  relationship: string;
  number_paths: number | null;
  corrected_by: number | null;
  rank: number;
}
type Compare<T> = (a: T, b: T) => number;

const byNumber = (a: number, b: number) => a - b;
/** SQL's `asc nulls last` / `desc nulls last`. */
const nullsLast =
  (direction: 1 | -1): Compare<number | null> =>
  (a, b) =>
    a === b ? 0 : a === null ? 1 : b === null ? -1 : direction * (a - b);
const byText = (a: string, b: string) => (a === b ? 0 : a < b ? -1 : 1);
const inTurn =
  <T>(...compares: Compare<T>[]): Compare<T> =>
  (a, b) => {
    for (const compare of compares) {
      const result = compare(a, b);
      if (result !== 0) return result;
    }
    return 0;
  };

const pair: Compare<Link> = inTurn<Link>(
  (a, b) => byNumber(a.asn0, b.asn0),
  (a, b) => byNumber(a.asn1, b.asn1),
);
/** Each link order asked below, as the service defines it (the pair breaks ties). */
const LINK_ORDERS: [string | null, Compare<Link>][] = [
  [null, inTurn<Link>((a, b) => byNumber(a.rank, b.rank), pair)],
  ['asn1', inTurn<Link>((a, b) => byNumber(a.asn1, b.asn1), pair)],
  ['-asn1', inTurn<Link>((a, b) => byNumber(b.asn1, a.asn1), pair)],
  ['-asn0', inTurn<Link>((a, b) => byNumber(b.asn0, a.asn0), pair)],
  ['-numberPaths', inTurn<Link>((a, b) => nullsLast(-1)(a.number_paths, b.number_paths), pair)],
  ['numberPaths', inTurn<Link>((a, b) => nullsLast(1)(a.number_paths, b.number_paths), pair)],
  [
    'relationship,-asn0',
    inTurn<Link>(
      (a, b) => byText(a.relationship, b.relationship),
      (a, b) => b.asn0 - a.asn0,
      pair,
    ),
  ],
  ['correctedBy', inTurn<Link>((a, b) => nullsLast(1)(a.corrected_by, b.corrected_by), pair)],
  ['relationship', inTurn<Link>((a, b) => byText(a.relationship, b.relationship), pair)],
  ['-relationship', inTurn<Link>((a, b) => byText(b.relationship, a.relationship), pair)],
];
const byAsn: Compare<Member> = (a, b) => byNumber(a.asn, b.asn);
const byRank = inTurn<Member>((a, b) => nullsLast(1)(a.rank, b.rank), byAsn);
/** Each neighbour order asked below, and its first key where a walk of the month starts from its value (monthWalk). */
const NEIGHBOUR_ORDERS: [string | null, Compare<Member>, ((record: Member) => number)?][] = [
  [null, byRank],
  ['rank', byRank],
  ['rank,asn', byRank],
  [
    'rank,-asn',
    inTurn<Member>(
      (a, b) => nullsLast(1)(a.rank, b.rank),
      (a, b) => b.asn - a.asn,
    ),
  ],
  ['asn', byAsn],
  ['-asn', (a, b) => byAsn(b, a)],
  [
    '-cone.numberAsns',
    inTurn<Member>((a, b) => b.cone_asns - a.cone_asns, byAsn),
    (record) => record.cone_asns,
  ],
  [
    'cone.numberAsns',
    inTurn<Member>((a, b) => a.cone_asns - b.cone_asns, byAsn),
    (record) => record.cone_asns,
  ],
  [
    'cone.numberAsns,asn',
    inTurn<Member>((a, b) => a.cone_asns - b.cone_asns, byAsn),
    (record) => record.cone_asns,
  ],
  // Its ties by ASN descending: not the order of a member's links, which a class walk reads.
  [
    'cone.numberAsns,-asn',
    inTurn<Member>(
      (a, b) => a.cone_asns - b.cone_asns,
      (a, b) => b.asn - a.asn,
    ),
    (record) => record.cone_asns,
  ],
  [
    '-asnDegree.total',
    inTurn<Member>((a, b) => b.degree_total - a.degree_total, byAsn),
    (record) => record.degree_total,
  ],
  [
    'asnName,-asn',
    inTurn<Member>(
      (a, b) => byText(a.asn_name, b.asn_name),
      (a, b) => b.asn - a.asn,
    ),
  ],
  // A text key a class walk may take (its ties by ASN ascending).
  ['asnName', inTurn<Member>((a, b) => byText(a.asn_name, b.asn_name), byAsn)],
];
/**
 * The settings (organizationNeighborTuning) each neighbour page is asked with, each over the ones before: the defaults
 * (walks of the month in arms, class walks by `cone.numberAsns`, and on PostgreSQL the far ends of the links placed
 * joined from the whole month); no walks and each far end looked up, and in the orders of a member's links the page
 * ranked whole rather than numbered first; walks of the month in one arm at 2 steps a link and each far end looked up;
 * no walks and the whole month joined, numbered first again (by rank each far end's rank looked up after
 * the members' cuts, not read in them); class walks of one step for each they expect, in every
 * order of one key however few records its class holds; walks of the month in every arm down to `end` steps; class
 * walks again, in every order of one key, for the share of the month's link ends their class holds alone.
 */
const NEIGHBOUR_SETTINGS = [
  { ...organizationNeighborTuning },
  { stepsPerLink: 0, monthJoinShare: Infinity, memberCuts: false, numberedLinkOrder: false },
  {
    stepsPerLink: 2,
    monthJoinShare: Infinity,
    classWalkShare: Infinity,
    shorterWalkEnds: Infinity,
    memberCuts: true,
    memberCutLinks: 0,
  },
  { stepsPerLink: 0, monthJoinShare: 0, numberedLinkOrder: true, memberRanksFarEnds: false },
  {
    stepsPerLink: 0.5,
    monthJoinShare: Infinity,
    classWalkShare: 0,
    classWalkSteps: 1,
    memberRanksFarEnds: true,
  },
  { classWalkShare: Infinity, shorterWalkEnds: 0, monthJoinShare: 0, memberCuts: false },
  { classWalkLinkShare: 0 },
];
const PAGES = [
  { first: 3, offset: 0 },
  { first: 2, offset: 2 },
  { first: 40, offset: 1 },
];

/**
 * The links (`l`) of month `date` from an AS of an organization (`member`) to a stub, an AS of one link (`stub`),
 * both ends' records joined.
 */
function linksToStubs(store: LoadedStore, date: string) {
  return store.handle.db
    .selectFrom('asn_links as l')
    .innerJoin('asns as member', (join) =>
      join.onRef('member.date', '=', 'l.date').onRef('member.asn', '=', 'l.asn0'),
    )
    .innerJoin('asns as stub', (join) =>
      join.onRef('stub.date', '=', 'l.date').onRef('stub.asn', '=', 'l.asn1'),
    )
    .where('l.date', '=', date)
    .where('stub.degree_total', '=', 1)
    .where('member.org_id', 'is not', null);
}

/**
 * Makes a stub customer of a busy AS a member of the busy AS's organization, their link the first of the month by
 * rank: the organization's first links and neighbours are then all the busy AS's, after a link inside the
 * organization (the sample's organizations of several members are small).
 */
async function placeStubFirstInside(store: LoadedStore, date: string): Promise<void> {
  const { db } = store.handle;
  const pairs = await linksToStubs(store, date)
    .select(['member.asn as busy', 'member.org_id as org_id', 'stub.asn as stub'])
    .where('member.degree_total', '>=', 8)
    .orderBy('member.degree_total', 'desc')
    .orderBy('member.asn')
    .orderBy('stub.asn')
    .limit(1)
    .execute();
  const [{ busy, org_id: org, stub }] = pairs as [(typeof pairs)[number]];
  await db
    .updateTable('asns')
    .set({ org_id: org })
    .where('date', '=', date)
    .where('asn', '=', stub)
    .execute();
  await db
    .updateTable('asn_links')
    .set({ rank: 0 })
    .where('date', '=', date)
    .where((eb) =>
      eb.or([
        eb.and([eb('asn0', '=', busy), eb('asn1', '=', stub)]),
        eb.and([eb('asn0', '=', stub), eb('asn1', '=', busy)]),
      ]),
    )
    .execute();
}

describe.each(STORE_KINDS)("organizations' link and neighbour pages on %s", (kind) => {
  let store: LoadedStore;
  let latest: string;
  let records: Map<number, Member>;
  /** Each organization's links to ASNs outside it, and what each member links to inside it. */
  let outside: Map<string, Link[]>;
  let links: Link[];

  withLoadedStore(
    kind,
    async (opened) => {
      store = opened;
      latest = store.dates.at(-1)!;
      await placeStubFirstInside(store, latest);
      // The sample's links carry no path count: one in eight gets one, with ties, the same on both of a link's rows; so
      // an organization's page of 40 reaches its busiest member's links without one, more than its cut of them keeps.
      await store.handle.db
        .updateTable('asn_links')
        .set({
          number_paths: sql<number | null>`case when (asn0 + asn1) % 8 = 0 then (asn0 + asn1) % 5 + 1 end`,
        })
        .where('date', '=', latest)
        .execute();
      await keepListedLinkParts(store.handle);
      const asns = await store.handle.db
        .selectFrom('asns')
        .select(['asn', 'org_id', 'rank', 'cone_asns', 'degree_total', 'asn_name'])
        .where('date', '=', latest)
        .execute();
      records = new Map(
        asns.map((row) => [
          Number(row.asn),
          {
            asn: Number(row.asn),
            org_id: row.org_id,
            rank: row.rank === null ? null : Number(row.rank),
            cone_asns: Number(row.cone_asns),
            degree_total: Number(row.degree_total),
            asn_name: row.asn_name,
          },
        ]),
      );
      links = (
        await store.handle.db
          .selectFrom('asn_links')
          .select(['asn0', 'asn1', 'relationship', 'number_paths', 'corrected_by', 'rank'])
          .where('date', '=', latest)
          .execute()
      ).map((row) => ({
        asn0: Number(row.asn0),
        asn1: Number(row.asn1),
        relationship: row.relationship,
        number_paths: row.number_paths === null ? null : Number(row.number_paths),
        corrected_by: row.corrected_by === null ? null : Number(row.corrected_by),
        rank: Number(row.rank),
      }));
      outside = new Map();
      for (const link of links) {
        const org = records.get(link.asn0)?.org_id;
        if (!org || records.get(link.asn1)?.org_id === org) continue;
        outside.set(org, [...(outside.get(org) ?? []), link]);
      }
    },
    organizationNeighborTuning,
  );

  it('has an organization whose first links a cut of each member that counts its links inside would miss', () => {
    // Without it the checks below could not tell a member's cut that counts the links inside its organization.
    const page = PAGES[0]!;
    const missed = [...outside.keys()].filter((org) => {
      for (const [, order] of LINK_ORDERS.slice(0, 1)) {
        const ofOrg = links.filter((link) => records.get(link.asn0)?.org_id === org).sort(order);
        const cutEach = [...new Set(ofOrg.map((link) => link.asn0))].flatMap((member) =>
          ofOrg.filter((link) => link.asn0 === member).slice(0, page.offset + page.first),
        );
        const pageOf = (list: Link[]) =>
          list
            .filter((link) => records.get(link.asn1)?.org_id !== org)
            .sort(order)
            .slice(page.offset, page.offset + page.first);
        if (JSON.stringify(pageOf(cutEach)) !== JSON.stringify(pageOf(ofOrg))) return true;
      }
      return false;
    });
    expect(missed.length).toBeGreaterThan(0);
  });

  /** An organization's page of neighbours in `order`, from all of its links to ASNs outside it. */
  function expectedNeighbours(org: string, order: Compare<Member>, page: { first: number; offset: number }) {
    const neighbours = new Set((outside.get(org) ?? []).map((link) => link.asn1));
    return [...neighbours]
      .map((asn) => records.get(asn))
      .filter((record): record is Member => record !== undefined)
      .sort(order)
      .slice(page.offset, page.offset + page.first)
      .map((record) => String(record.asn));
  }

  /**
   * Each organization's page of neighbours in `order` as a service would show it whose walkers took every walk for all
   * of their neighbours: `reachedBy` gives the first `end` outside the organization that a member's walk reached (its
   * links `far`, by ASN), or null for a member that places all of its links. `walkedThrough`: the walks that reached
   * `end`.
   */
  function pagesOfWalks(
    order: Compare<Member>,
    page: { first: number; offset: number },
    reachedBy: (member: Member, far: number[]) => number[] | null,
  ) {
    const end = page.offset + page.first;
    const linked = new Map<number, number[]>();
    for (const link of links) linked.set(link.asn0, [...(linked.get(link.asn0) ?? []), link.asn1]);
    const pages = new Map<string, string[]>();
    let walkedThrough = 0;
    for (const org of outside.keys()) {
      const shown = new Set<number>();
      for (const member of records.values()) {
        if (member.org_id !== org) continue;
        const far = [...(linked.get(member.asn) ?? [])].sort(byNumber);
        const reached = reachedBy(member, far);
        if (reached && reached.length >= end) walkedThrough += 1;
        for (const asn of reached ?? far) if (records.get(asn)?.org_id !== org) shown.add(asn);
      }
      pages.set(
        org,
        [...shown]
          .map((asn) => records.get(asn)!)
          .filter((record) => record !== undefined)
          .sort(order)
          .slice(page.offset, end)
          .map((record) => String(record.asn)),
      );
    }
    return { pages, walkedThrough };
  }

  /**
   * The walk a page ending at `end` in `order` takes (neighborWalk, at `stepsPerLink`), with the month's records in the
   * order.
   */
  function monthWalkOf(
    order: Compare<Member>,
    stepsPerLink: number,
    end: number,
    firstKeyOf?: (record: Member) => number,
  ) {
    const linkCounts = new Map<number, number>();
    for (const link of links) linkCounts.set(link.asn0, (linkCounts.get(link.asn0) ?? 0) + 1);
    let ordered = [...records.values()].sort(order);
    // From the first key's value of the first record with links on.
    const firstLinked = ordered.find((record) => linkCounts.has(record.asn));
    if (firstKeyOf && firstLinked)
      ordered = ordered.slice(ordered.findIndex((record) => firstKeyOf(record) === firstKeyOf(firstLinked)));
    const walkedLinks = ordered
      .slice(0, neighborWalkSteps(end, records.size, stepsPerLink))
      .map((record) => linkCounts.get(record.asn) ?? 0);
    return { ordered, walk: neighborWalk(end, records.size, walkedLinks, links.length, stepsPerLink) };
  }

  /** pagesOfWalks for the walks of the month's records in `order` (neighborWalk) at `stepsPerLink`. */
  function walksAlone(
    [, order, firstKeyOf]: (typeof NEIGHBOUR_ORDERS)[number],
    stepsPerLink: number,
    page: { first: number; offset: number },
  ) {
    const end = page.offset + page.first;
    const { ordered, walk } = monthWalkOf(order, stepsPerLink, end, firstKeyOf);
    let shorterWalkedThrough = 0;
    const walked = pagesOfWalks(order, page, (member, far) => {
      const arm = [...walk.arms].reverse().find((each) => far.length >= each.minLinks);
      if (arm === undefined) return null;
      const linkedTo = new Set(far);
      const reached = ordered
        .slice(0, arm.steps)
        .filter((record) => record.org_id !== member.org_id && linkedTo.has(record.asn))
        .slice(0, end)
        .map((record) => record.asn);
      if (arm !== walk.arms.at(-1) && reached.length >= end) shorterWalkedThrough += 1;
      return reached;
    });
    return { ...walked, shorterWalkedThrough };
  }

  it("has walks that reach a member's first neighbours, shorter ones too, and walks cut short of them that a page would miss", () => {
    // Without walks cut short the pages below could not tell a walker's links left unplaced; without walks that
    // reach their end, a walk's own neighbours; without shorter walks that do, one arm's walkers read as another's.
    // The orders whose pages walk the month (the others read each member's links in order, or walk them by class).
    const page = PAGES[0]!;
    const monthWalked = NEIGHBOUR_ORDERS.filter(([sort]) =>
      ['-cone.numberAsns', '-asnDegree.total', 'asnName,-asn', 'cone.numberAsns,-asn'].includes(sort ?? ''),
    );
    // Each setting as the pages below take it: over the ones before.
    const walks = NEIGHBOUR_SETTINGS.map((_, at) => Object.assign({}, ...NEIGHBOUR_SETTINGS.slice(0, at + 1)))
      // Where one-key orders walk the month, not their class.
      .filter((setting) => setting.stepsPerLink > 0 && setting.classWalkShare !== 0)
      .map((setting) => {
        const { stepsPerLink } = setting;
        Object.assign(organizationNeighborTuning, setting);
        let walkedThrough = 0;
        let shorterWalkedThrough = 0;
        let missed = 0;
        for (const walkedOrder of monthWalked) {
          const [, order] = walkedOrder;
          const walked = walksAlone(walkedOrder, stepsPerLink, page);
          walkedThrough += walked.walkedThrough;
          shorterWalkedThrough += walked.shorterWalkedThrough;
          missed += [...outside.keys()].filter(
            (org) =>
              JSON.stringify(walked.pages.get(org)) !== JSON.stringify(expectedNeighbours(org, order, page)),
          ).length;
        }
        Object.assign(organizationNeighborTuning, NEIGHBOUR_SETTINGS[0]);
        return { stepsPerLink, walkedThrough: walkedThrough > 0, shorterWalkedThrough, missed: missed > 0 };
      });
    expect(walks.filter((walk) => !walk.walkedThrough)).toEqual([]);
    expect(walks[0]!.shorterWalkedThrough).toBeGreaterThan(0);
    expect(walks.filter((walk) => walk.missed)).not.toEqual([]);
  });

  /**
   * pagesOfWalks for the class walks by `cone.numberAsns` (neighborClassWalk) at the tuning's `classWalkSteps`: each
   * walker's first links by ASN within its steps, its first `end` outside its organization of the least cone that a
   * linked record has.
   */
  function classWalksAlone(page: { first: number; offset: number }) {
    const end = page.offset + page.first;
    const linkedCones = [...new Set(links.map((link) => link.asn0))].map(
      (asn) => records.get(asn)!.cone_asns,
    );
    const least = Math.min(...linkedCones);
    const classSize = [...records.values()].filter((record) => record.cone_asns === least).length;
    const walk = neighborClassWalk(end, records.size, classSize, { column: 'cone_asns', value: least });
    const walkSteps = walk.arms[0]!.steps;
    const order = NEIGHBOUR_ORDERS.find(([sort]) => sort === 'cone.numberAsns')![1];
    const walked = pagesOfWalks(order, page, (member, far) =>
      far.length < walkerLinks(walk)
        ? null
        : far
            .slice(0, walkSteps)
            .filter(
              (asn) => records.get(asn)?.org_id !== member.org_id && records.get(asn)?.cone_asns === least,
            )
            .slice(0, end),
    );
    return { ...walked, classShare: classSize / records.size, least };
  }

  it("has class walks that reach a member's first neighbours, and class walks cut short of them that a page would miss", () => {
    // Without a class the size of the defaults' share no page here would take a class walk by default; without walks
    // cut short the pages below could not tell a walker's links left unplaced, nor, without walks that reach their
    // end, a walk's own neighbours. The least cone of a linked record is above the month's least (records without
    // links), so a walk from the month's least would find nothing.
    const page = PAGES[0]!;
    for (const classWalkSteps of [NEIGHBOUR_SETTINGS[0]!.classWalkSteps, 1]) {
      Object.assign(organizationNeighborTuning, { classWalkSteps });
      const walked = classWalksAlone(page);
      Object.assign(organizationNeighborTuning, NEIGHBOUR_SETTINGS[0]);
      const missed = [...outside.keys()].filter(
        (org) =>
          JSON.stringify(walked.pages.get(org)) !==
          JSON.stringify(
            expectedNeighbours(org, NEIGHBOUR_ORDERS.find(([sort]) => sort === 'cone.numberAsns')![1], page),
          ),
      ).length;
      expect({
        classWalkSteps,
        defaultShare: walked.classShare >= organizationNeighborTuning.classWalkShare,
        walkedThrough: walked.walkedThrough > 0,
        missed: missed > 0,
        aboveMonthsLeast: walked.least > Math.min(...[...records.values()].map((record) => record.cone_asns)),
      }).toEqual({
        classWalkSteps,
        defaultShare: true,
        walkedThrough: true,
        missed: true,
        aboveMonthsLeast: true,
      });
    }
  });

  it("walks an order's class by the share of the month's link ends it holds, not below it", async () => {
    // The least cone of a linked record: its records' link ends (their link rows) against every link's two.
    const linkedCones = [...new Set(links.map((link) => link.asn0))].map(
      (asn) => records.get(asn)!.cone_asns,
    );
    const least = Math.min(...linkedCones);
    const classEnds = links.filter((link) => records.get(link.asn0)!.cone_asns === least).length;
    const linkShare = classEnds / links.length;
    expect(linkShare).toBeGreaterThan(0);
    expect(linkShare).toBeLessThan(1);
    const page = PAGES[0]!;
    const order = NEIGHBOUR_ORDERS.find(([sort]) => sort === 'cone.numberAsns')![1];
    const walks: Record<string, boolean> = {};
    try {
      for (const [name, classWalkLinkShare] of [
        ['just under its share', linkShare * 0.99],
        ['just above it', linkShare * 1.01],
      ] as const) {
        const classWalks = new StatementCounter((tree) => tree.includes('order by l.asn1 limit'));
        Object.assign(organizationNeighborTuning, NEIGHBOUR_SETTINGS[0], {
          classWalkShare: Infinity,
          classWalkLinkShare,
        });
        const data = await queryData<{
          organizations: {
            edges: { node: { orgId: string; neighbors: { edges: { node: { asn: string } }[] } } }[];
          };
        }>(
          throughPlugin(store.handle, classWalks),
          `query($first: Int) { organizations(first: 10000) { edges { node { orgId neighbors(first: $first,
          sort: "cone.numberAsns") { edges { node { asn } } } } } } }`,
          { first: page.first },
        );
        for (const { node } of data.organizations.edges)
          expect({
            name,
            org: node.orgId,
            neighbours: node.neighbors.edges.map(({ node: neighbour }) => neighbour.asn),
          }).toEqual({ name, org: node.orgId, neighbours: expectedNeighbours(node.orgId, order, page) });
        walks[name] = classWalks.executed > 0;
      }
    } finally {
      Object.assign(organizationNeighborTuning, NEIGHBOUR_SETTINGS[0]);
    }
    expect(walks).toEqual({ 'just under its share': true, 'just above it': false });
  });

  it("reads an order's first class once, in the order's direction, for the class walks of its pages", async () => {
    // A class walk reads the order's first value among the records with links: one ascending order's class kept for
    // the same column descending would send every walk after the wrong value, and each would end short.
    const firstClassReads = new StatementCounter(
      (tree) => tree.includes('"name":"value"}') && tree.includes('"number_asn_links"'),
    );
    const counted = throughPlugin(store.handle, firstClassReads);
    const linkedCones = [...new Set(links.map((link) => link.asn0))].map(
      (asn) => records.get(asn)!.cone_asns,
    );
    try {
      Object.assign(organizationNeighborTuning, NEIGHBOUR_SETTINGS[0], { classWalkShare: 0 });
      for (const sort of ['cone.numberAsns', '-cone.numberAsns', 'cone.numberAsns,asn', '-cone.numberAsns'])
        await queryData(
          counted,
          `query($sort: String) { organizations(first: 10000) { edges { node { neighbors(first: 3, sort: $sort) {
          edges { node { asn } } } } } } }`,
          { sort },
        );
    } finally {
      Object.assign(organizationNeighborTuning, NEIGHBOUR_SETTINGS[0]);
    }
    expect(firstClassReads.returned.map((row) => Number(row['value']))).toEqual([
      Math.min(...linkedCones),
      Math.max(...linkedCones),
    ]);
  });

  it("keeps no order's first class read at another data version than the request's", async () => {
    // A request that read its version before a load committed must not file the loaded data's first value under the
    // version before it. Here every request's version is one the store never had; its pages are still right.
    const firstClassReads = new StatementCounter(
      (tree) => tree.includes('"name":"value"}') && tree.includes('"number_asn_links"'),
    );
    const counted = throughPlugin(store.handle, firstClassReads);
    const beforeALoad = createStoreFacts(counted, () => Promise.resolve('a version before a load'));
    const page = PAGES[0]!;
    const order = NEIGHBOUR_ORDERS.find(([sort]) => sort === 'cone.numberAsns')![1];
    for (let ask = 0; ask < 2; ask += 1) {
      const data = await queryData<{
        organizations: {
          edges: { node: { orgId: string; neighbors: { edges: { node: { asn: string } }[] } } }[];
        };
      }>(
        counted,
        `query($first: Int) { organizations(first: 10000) { edges { node { orgId neighbors(first: $first,
        sort: "cone.numberAsns") { edges { node { asn } } } } } } }`,
        { first: page.first },
        beforeALoad,
      );
      for (const { node } of data.organizations.edges)
        expect({
          org: node.orgId,
          neighbours: node.neighbors.edges.map(({ node: neighbour }) => neighbour.asn),
        }).toEqual({
          org: node.orgId,
          neighbours: expectedNeighbours(node.orgId, order, page),
        });
    }
    expect(firstClassReads.executed).toBe(2);
  });

  it("reads the link counts of the month's first records that walks pass once for pages that end near each other", async () => {
    // Kept per data version: one read for each page's end would keep a list of counts for every offset a client
    // asks. The sample's pages ending at rows 4 and 5 walk 26 and 29 records, both within 32.
    const countReads = new StatementCounter((tree) => tree.includes('"number_asn_links"'));
    const counted = throughPlugin(store.handle, countReads);
    for (const first of [4, 5, 4])
      await queryData(
        counted,
        `query($first: Int) { organizations(first: 10000) { edges { node { neighbors(first: $first,
        sort: "-cone.numberAsns") { edges { node { asn } } } } } } }`,
        { first },
      );
    const linkCounts = countReads.returned.filter(
      (row) => Object.keys(row).sort().join() === 'data_version,number_asn_links',
    );
    expect(linkCounts.length).toBe(Math.min(32, records.size));
  });

  it.each(LINK_ORDERS)(
    "pages every organization's links by %s as all of them sorted, members' cuts sorted or from their ranges",
    async (sort, order) => {
      // By relationship on PostgreSQL, members of that many links (and of as many times their cut's end) cut theirs
      // from their relationship ranges: the defaults' few of the sample's members, then every member, then those of
      // as many links as their cut's end, then none.
      const { relationshipRangesFrom, relationshipRangesPerEnd } = linkPageTuning;
      const settings = [
        [relationshipRangesFrom, relationshipRangesPerEnd],
        [0, 0],
        [0, 1],
        [2 ** 31 - 1, relationshipRangesPerEnd],
      ] as const;
      for (const [rangesFrom, rangesPerEnd] of settings)
        for (const page of PAGES) {
          linkPageTuning.relationshipRangesFrom = rangesFrom;
          linkPageTuning.relationshipRangesPerEnd = rangesPerEnd;
          const data = await queryData<{
            organizations: {
              edges: {
                node: {
                  orgId: string;
                  asnLinks: { edges: { node: { asn0: { asn: string }; asn1: { asn: string } } }[] };
                };
              }[];
            };
          }>(
            store.handle,
            `query($sort: String, $first: Int, $offset: Int) { organizations(first: 10000) { edges { node { orgId
          asnLinks(first: $first, offset: $offset, sort: $sort) { edges { node { asn0 { asn } asn1 { asn } } } } } } } }`,
            { sort, ...page },
          );
          let shown = 0;
          for (const { node } of data.organizations.edges) {
            const expected = [...(outside.get(node.orgId) ?? [])]
              .sort(order)
              .slice(page.offset, page.offset + page.first)
              .map((link) => `${link.asn0}-${link.asn1}`);
            const got = node.asnLinks.edges.map(({ node: link }) => `${link.asn0.asn}-${link.asn1.asn}`);
            expect({ org: node.orgId, page, rangesFrom, rangesPerEnd, links: got }).toEqual({
              org: node.orgId,
              page,
              rangesFrom,
              rangesPerEnd,
              links: expected,
            });
            shown += got.length;
          }
          expect(shown).toBeGreaterThan(0);
          Object.assign(linkPageTuning, { relationshipRangesFrom, relationshipRangesPerEnd });
        }
    },
  );

  it.each(NEIGHBOUR_ORDERS)(
    "pages every organization's neighbours by %s as all of them sorted, whichever members walk and however far ends are read",
    async (sort, order) => {
      for (const setting of NEIGHBOUR_SETTINGS)
        for (const page of PAGES) {
          Object.assign(organizationNeighborTuning, setting);
          const data = await queryData<{
            organizations: {
              edges: { node: { orgId: string; neighbors: { edges: { node: { asn: string } }[] } } }[];
            };
          }>(
            store.handle,
            `query($sort: String, $first: Int, $offset: Int) { organizations(first: 10000) { edges { node { orgId
          neighbors(first: $first, offset: $offset, sort: $sort) { edges { node { asn } } } } } } }`,
            { sort, ...page },
          );
          let shown = 0;
          for (const { node } of data.organizations.edges) {
            const got = node.neighbors.edges.map(({ node: neighbour }) => neighbour.asn);
            expect({ org: node.orgId, setting, page, neighbours: got }).toEqual({
              org: node.orgId,
              setting,
              page,
              neighbours: expectedNeighbours(node.orgId, order, page),
            });
            shown += got.length;
          }
          expect(shown).toBeGreaterThan(0);
        }
    },
  );

  it("pages an organization's links to a far end without a record of the month as leaving it", async () => {
    // As a JSON-lines import may leave one: a stub's record removed, whose one link is to a member of an organization
    // not its own. On PostgreSQL the test is the far end against the members' ASNs (linkPageTuning.memberAsnsApart),
    // without the far end's record. The record is put back after, for the other checks.
    const { db } = store.handle;
    const [stubLink] = await linksToStubs(store, latest)
      .select(['member.org_id as org_id', 'l.asn0', 'l.asn1'])
      .where((eb) => eb.or([eb('stub.org_id', 'is', null), eb('stub.org_id', '!=', eb.ref('member.org_id'))]))
      .orderBy('member.degree_total', 'desc')
      .orderBy('l.asn0')
      .orderBy('l.asn1', 'desc')
      .limit(1)
      .execute();
    const { org_id: org, asn0, asn1: stub } = stubLink!;
    const stubRecord = await db
      .selectFrom('asns')
      .selectAll()
      .where('date', '=', latest)
      .where('asn', '=', stub)
      .executeTakeFirstOrThrow();
    await db.deleteFrom('asns').where('date', '=', latest).where('asn', '=', stub).execute();
    try {
      const ofOrg = outside.get(org!)!;
      expect(ofOrg.some((link) => link.asn0 === Number(asn0) && link.asn1 === Number(stub))).toBe(true);
      // Either test of the far end on PostgreSQL: against the members' ASNs, or its record looked up.
      for (const memberAsnsApart of [true, false])
        for (const [sort, order] of LINK_ORDERS.slice(0, 5)) {
          linkPageTuning.memberAsnsApart = memberAsnsApart;
          const expected = [...ofOrg].sort(order).map((link) => `${link.asn0}-${link.asn1}`);
          const data = await queryData<{
            organization: {
              asnLinks: { edges: { node: { asn0: { asn: string }; asn1: { asn: string } } }[] };
            };
          }>(
            store.handle,
            `query($org: String!, $sort: String, $first: Int) { organization(orgId: $org) {
            asnLinks(first: $first, sort: $sort) { edges { node { asn0 { asn } asn1 { asn } } } } } }`,
            { org, sort, first: expected.length + 1 },
          );
          const got = data.organization.asnLinks.edges.map(
            ({ node: link }) => `${link.asn0.asn}-${link.asn1.asn}`,
          );
          expect({ memberAsnsApart, sort, links: got }).toEqual({ memberAsnsApart, sort, links: expected });
        }
    } finally {
      linkPageTuning.memberAsnsApart = true;
      await db.insertInto('asns').values(stubRecord).execute();
    }
  });
});
