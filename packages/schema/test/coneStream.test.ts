// asnCone and asnConesStream against the stored cones: walking every page from an empty cursor yields each cone,
// member and prefix exactly once, in order, and equal to cone_members / prefix_origins.
import type { DatabaseHandle } from '@asrank/db';
import { coneStreamTuning, monthByMonthTuning } from '../src';
import {
  LOAD_TIMEOUT_MS,
  openLoadedStore,
  queryData,
  queryError,
  STORE_KINDS,
  type LoadedStore,
} from './support/store';
import { StatementCounter, throughPlugin } from './support/statementCounter';

// Data tests run real SQL on a loaded store; a busy CI machine can be slow, and no assertion here is about time.
jest.setTimeout(LOAD_TIMEOUT_MS);

interface StreamPage {
  asnConesStream: {
    totalCount: number;
    pageInfo: { pageCursor: string; nextPageCursor: string; hasNextPage: boolean };
    pages: {
      rank: number | null;
      date: string;
      coneIndex: number;
      asn: { asn: string; date: string; asnName: string };
      asns: { asn: string; date: string }[];
      prefixes: { network: string; length: number; date: string }[];
    }[];
  };
}

const STREAM = `query Stream($cursor: String, $first: Int, $asns: [String!], $some: [String!], $all: [String!], $prefixes: [String!], $dates: [String!], $sort: String) {
  asnConesStream(pageCursor: $cursor, first: $first, asns: $asns, asnMembersSome: $some, asnMembersAll: $all, prefixMembers: $prefixes, dates: $dates, sort: $sort) {
    totalCount
    pageInfo { pageCursor nextPageCursor hasNextPage }
    pages { rank date coneIndex asn { asn date asnName } asns { asn date } prefixes { network length date } }
  }
}`;

/** The cones of a walk alone (no member or prefix shown), for walks whose order is what a test checks. */
const CONES = `query Cones($cursor: String, $first: Int, $some: [String!], $dates: [String!], $sort: String) {
  asnConesStream(pageCursor: $cursor, first: $first, asnMembersSome: $some, dates: $dates, sort: $sort) {
    pageInfo { nextPageCursor hasNextPage }
    pages { date coneIndex asn { asn } }
  }
}`;

interface WalkedCone {
  asn: string;
  date: string;
  rank: number | null;
  members: string[];
  prefixes: string[];
}

/** Follows nextPageCursor from the empty cursor to the end (or `maxPages` pages), joining the slices of each cone. */
async function walk(
  store: LoadedStore,
  variables: Record<string, unknown>,
  maxPages = Infinity,
): Promise<{ cones: WalkedCone[]; pages: number; totalCount: number }> {
  const cones: WalkedCone[] = [];
  let cursor: string | null = null;
  let pages = 0;
  let totalCount = -1;
  for (;;) {
    const data: StreamPage = await queryData<StreamPage>(store.handle, STREAM, { ...variables, cursor });
    const stream = data.asnConesStream;
    totalCount = stream.totalCount;
    pages += 1;
    expect(stream.pageInfo.pageCursor).toBe(cursor ?? '0,0,');
    for (const item of stream.pages) {
      let cone = cones[item.coneIndex];
      if (!cone) {
        expect(item.coneIndex).toBe(cones.length);
        cone = { asn: item.asn.asn, date: item.date, rank: item.rank, members: [], prefixes: [] };
        cones.push(cone);
      }
      expect(item.asn.asn).toBe(cone.asn);
      for (const member of item.asns) {
        expect(member.date).toBe(cone.date);
        cone.members.push(member.asn);
      }
      for (const prefix of item.prefixes) cone.prefixes.push(`${prefix.network}/${prefix.length}`);
    }
    if (!stream.pageInfo.hasNextPage || pages >= maxPages) break;
    cursor = stream.pageInfo.nextPageCursor;
    if (pages > 5000) throw new Error('stream does not end');
  }
  return { cones, pages, totalCount };
}

describe.each(STORE_KINDS)('cone stream on %s', (kind) => {
  let store: LoadedStore;
  let latest: string;
  /** The stored truth of the latest month: cone members per ASN and prefixes (network/length) per origin ASN. */
  let membersOf: Map<number, number[]>;
  let prefixIdsOf: Map<number, number[]>;
  let prefixText: Map<number, string>;

  const conePrefixesOf = (asn: number): string[] => {
    const ids = new Set<number>();
    for (const member of membersOf.get(asn) ?? [])
      for (const id of prefixIdsOf.get(member) ?? []) ids.add(id);
    return [...ids].sort((a, b) => a - b).map((id) => prefixText.get(id)!);
  };

  beforeAll(async () => {
    store = await openLoadedStore(kind);
    latest = store.dates.at(-1)!;
    const db = store.handle.db;
    membersOf = new Map();
    for (const row of await db
      .selectFrom('cone_members')
      .select(['asn', 'member_asn'])
      .where('date', '=', latest)
      .orderBy('asn')
      .orderBy('member_asn')
      .execute()) {
      const list = membersOf.get(Number(row.asn)) ?? [];
      list.push(Number(row.member_asn));
      membersOf.set(Number(row.asn), list);
    }
    prefixIdsOf = new Map();
    for (const row of await db
      .selectFrom('prefix_origins')
      .select(['asn', 'prefix_id'])
      .where('date', '=', latest)
      .execute()) {
      const list = prefixIdsOf.get(Number(row.asn)) ?? [];
      list.push(Number(row.prefix_id));
      prefixIdsOf.set(Number(row.asn), list);
    }
    prefixText = new Map();
    for (const row of await db
      .selectFrom('prefixes')
      .select(['prefix_id', 'network', 'length'])
      .where('date', '=', latest)
      .execute()) {
      prefixText.set(Number(row.prefix_id), `${row.network}/${row.length}`);
    }
  }, LOAD_TIMEOUT_MS);
  afterAll(() => store?.close());
  const defaultTuning = { ...coneStreamTuning };
  afterEach(() => {
    Object.assign(coneStreamTuning, defaultTuning);
  });
  /** Every ASN with a cone in some month: a member filter listing them all keeps every cone (each holds its own). */
  const everyConeOwner = async () =>
    (await store.handle.db.selectFrom('cone_members').select('asn').distinct().orderBy('asn').execute()).map(
      (row) => String(row.asn),
    );

  it.each([
    ['small cones read in groups', 256, 10000],
    ['small cones read in groups of 3, pages ending inside groups', 3, 997],
    ['each small cone read alone', 0, 10000],
  ])(
    'walks every cone of the latest month exactly once, by rank, with the stored members and prefixes (%s)',
    async (_label, group, first) => {
      coneStreamTuning.smallConeGroup = group;
      const seenRows = await store.handle.db
        .selectFrom('asns')
        .select(['asn', 'rank'])
        .where('date', '=', latest)
        .where('seen', '=', 1)
        .where('cone_asns', '>', 0)
        .execute();
      const expectedOrder = seenRows
        .map((row) => ({ asn: Number(row.asn), rank: row.rank == null ? Infinity : Number(row.rank) }))
        .sort((a, b) => a.rank - b.rank || a.asn - b.asn)
        .map((row) => String(row.asn));
      const { cones, pages, totalCount } = await walk(store, { first });
      expect(totalCount).toBe(expectedOrder.length);
      expect(cones.map((cone) => cone.asn)).toEqual(expectedOrder);
      expect(pages).toBeGreaterThan(1);
      for (const cone of cones) {
        expect(cone.date).toBe(latest);
        expect(cone.members).toEqual((membersOf.get(Number(cone.asn)) ?? []).map(String));
        expect(cone.prefixes).toEqual(conePrefixesOf(Number(cone.asn)));
      }
    },
  );

  it("reads a group of small cones only as far as the page reaches, by the cones' counts", async () => {
    // Cones of one ASN with prefixes, walked by ASN: a page of one item holds the first cone's member and peeks at its
    // first prefix, so only that cone's prefixes are read (a group of every small cone after it was, before).
    const picked = [...membersOf.entries()]
      .filter(
        ([asn, members]) =>
          members.length === 1 && members[0] === asn && (prefixIdsOf.get(asn)?.length ?? 0) > 0,
      )
      .map(([asn]) => asn)
      .sort((a, b) => a - b)
      .slice(0, 5);
    expect(picked).toHaveLength(5);
    const origins = new StatementCounter((tree) => tree.includes('"prefix_origins"'));
    const counted = throughPlugin(store.handle, origins);
    const data = await queryData<StreamPage>(counted, STREAM, {
      first: 1,
      asns: picked.map(String),
      sort: 'asn',
    });
    const stream = data.asnConesStream;
    expect(stream.pages.map((item) => [item.asn.asn, item.asns.map((member) => member.asn)])).toEqual([
      [String(picked[0]), [String(picked[0])]],
    ]);
    expect(stream.pageInfo.nextPageCursor).toBe('0,,0');
    expect({ statements: origins.executed, rows: origins.rows }).toEqual({
      statements: 1,
      rows: prefixIdsOf.get(picked[0]!)!.length,
    });
  });

  it('reads no member row for a cone of one member, its own ASN, by the count its row keeps', async () => {
    // The smallest cones first: a page of stubs (cones of their own ASN alone) and a few cones of more.
    const memberRows = new StatementCounter((tree) => tree.includes('"cone_members"'));
    const data = await queryData<StreamPage>(throughPlugin(store.handle, memberRows), STREAM, {
      first: 400,
      sort: '-rank',
    });
    const walked = data.asnConesStream.pages;
    const stubs = walked.filter((item) => membersOf.get(Number(item.asn.asn))?.length === 1);
    expect(stubs.length).toBeGreaterThan(10);
    for (const item of walked)
      expect([item.asn.asn, item.asns.map((member) => member.asn)]).toEqual([
        item.asn.asn,
        // A page's last cone may be cut within its members.
        (membersOf.get(Number(item.asn.asn)) ?? []).map(String).slice(0, item.asns.length),
      ]);
    const readCones = new Set(memberRows.returned.map((row) => Number(row.asn)));
    expect(stubs.filter((item) => readCones.has(Number(item.asn.asn)))).toEqual([]);
  });

  it('resumes exactly across small pages and chunk edges, with both prefix strategies', async () => {
    const largest = [...membersOf.entries()]
      .sort((a, b) => b[1].length - a[1].length)
      .slice(0, 3)
      .map(([asn]) => String(asn));
    // Small chunks make every page resume mid-chunk; a low threshold sends the biggest cones through the prefix scan.
    coneStreamTuning.chunk = 50;
    coneStreamTuning.largeConeAsns = membersOf.get(Number(largest[1]))!.length - 1;
    coneStreamTuning.largeConePrefixes = Number.MAX_SAFE_INTEGER;
    const { cones, pages } = await walk(store, { first: 97, asns: largest });
    expect(pages).toBeGreaterThan(10);
    expect(new Set(cones.map((cone) => cone.asn))).toEqual(new Set(largest));
    for (const cone of cones) {
      expect(cone.members).toEqual(membersOf.get(Number(cone.asn))!.map(String));
      expect(cone.prefixes).toEqual(conePrefixesOf(Number(cone.asn)));
    }
    // Walking again (resume keys now remembered) gives the same result.
    expect((await walk(store, { first: 97, asns: largest })).cones).toEqual(cones);
  });

  it('walks several months in a client sort, small chunks, as the statement of a filtered walk orders them', async () => {
    // Unfiltered walks read their chunks through one statement compiled per shape; a member filter that every cone
    // passes (each cone holds its own ASN) reads them through the statement built per chunk.
    coneStreamTuning.chunk = 7;
    const everyOwner = await everyConeOwner();
    // The first pages of every cone of two months (the smallest cones of both lead), and a whole walk of 25 ASNs.
    for (const [variables, pages] of [
      [{ first: 1000, dates: store.dates.slice(-2), sort: 'cone.numberAsns' }, 3],
      [{ first: 2000, dates: store.dates, asns: everyOwner.slice(0, 25), sort: 'asn' }, Infinity],
    ] as const) {
      const unfiltered = await walk(store, variables, pages);
      const filtered = await walk(store, { ...variables, some: everyOwner }, pages);
      expect(unfiltered.cones.length).toBeGreaterThan(coneStreamTuning.chunk);
      expect(new Set(unfiltered.cones.map((cone) => cone.date)).size).toBeGreaterThan(1);
      expect(unfiltered.cones.map(({ asn, date, rank }) => ({ asn, date, rank }))).toEqual(
        filtered.cones.map(({ asn, date, rank }) => ({ asn, date, rank })),
      );
      expect(unfiltered.totalCount).toBe(filtered.totalCount);
    }
  });

  it('walks several months in one sort column, each chunk after the cone before, as a filtered walk orders them', async () => {
    // Small chunks: every page spans several, each read after the last cone of the one before (coneSource keeps it).
    coneStreamTuning.chunk = 7;
    const everyOwner = await everyConeOwner();
    // Statements through a fresh Kysely instance (so none is a compiled one kept from another test) that merge arms
    // of the months' seen ASNs (a UNION of their stretches).
    const arms = new StatementCounter(
      (statement) => statement.includes('"SetOperationNode"') && statement.includes('"seen"'),
    );
    const handle = throughPlugin(store.handle, arms);
    const walkCones = async (variables: Record<string, unknown>) => {
      const cones: string[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 1000; pages += 1) {
        const data: StreamPage = await queryData<StreamPage>(handle, CONES, { ...variables, cursor });
        for (const item of data.asnConesStream.pages) cones[item.coneIndex] = `${item.date}|${item.asn.asn}`;
        if (!data.asnConesStream.pageInfo.hasNextPage) return cones;
        cursor = data.asnConesStream.pageInfo.nextPageCursor;
      }
      throw new Error('stream does not end');
    };
    for (const sort of ['asnName', '-asnName', 'asn', '-asn', 'cone.numberAsns', '-asnDegree.peer', 'rank']) {
      const variables = { first: 10000, dates: store.dates, sort };
      const armsBefore = arms.executed;
      const unfiltered = await walkCones(variables);
      const chunks = Math.floor(unfiltered.length / coneStreamTuning.chunk) + 1;
      // One statement a chunk, each from the months' arms (none when every chunk sorted the months' cones).
      expect([sort, arms.executed - armsBefore]).toEqual([sort, chunks]);
      const filtered = await walkCones({ ...variables, some: everyOwner });
      expect(unfiltered.length).toBeGreaterThan(10 * coneStreamTuning.chunk);
      expect(new Set(unfiltered.map((cone) => cone.split('|')[0])).size).toBe(store.dates.length);
      expect([sort, unfiltered]).toEqual([sort, filtered]);
    }
  });

  it('walks several months month by month, in orders that start with the month, as one statement orders them', async () => {
    // Small chunks, so that chunks start and end inside months and across their boundaries; of another size for each
    // way, since chunks are kept by position and size (coneSource.ts) and the second way would read the first's.
    const seenIn = async (month: string) =>
      Number(
        (
          await store.handle.db
            .selectFrom('asns')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('date', '=', month)
            .where('seen', '=', 1)
            .executeTakeFirstOrThrow()
        ).n,
      );
    try {
      for (const sort of [null, '-date', 'date,-cone.numberAsns', 'date']) {
        // Pages from the start, and from just before and just after the first month's last cone.
        const firstMonth = sort?.startsWith('-') ? store.dates.at(-1)! : store.dates[0]!;
        const boundary = await seenIn(firstMonth);
        for (const start of [0, boundary - 3, boundary + 2]) {
          const pagesFrom = async (monthByMonth: boolean) => {
            monthByMonthTuning.enabled = monthByMonth;
            coneStreamTuning.chunk = monthByMonth ? 7 : 8;
            const pages: StreamPage[] = [];
            let cursor = `${start},0,`;
            for (let page = 0; page < 3; page += 1) {
              const data = await queryData<StreamPage>(store.handle, STREAM, {
                first: 200,
                dates: store.dates,
                sort,
                cursor,
              });
              pages.push(data);
              cursor = data.asnConesStream.pageInfo.nextPageCursor;
            }
            return pages;
          };
          const oneStatement = await pagesFrom(false);
          const byMonth = await pagesFrom(true);
          const dates = new Set(
            byMonth.flatMap((page) => page.asnConesStream.pages.map((item) => item.date)),
          );
          if (start === boundary - 3) expect([sort, dates.size]).toEqual([sort, 2]);
          expect([sort, start, byMonth]).toEqual([sort, start, oneStatement]);
        }
      }
    } finally {
      monthByMonthTuning.enabled = true;
    }
  });

  it('filters cones by member ASNs (any / all) and by prefixes', async () => {
    const [bigAsn, bigMembers] = [...membersOf.entries()].sort((a, b) => b[1].length - a[1].length)[0]!;
    const memberA = bigMembers.find((member) => member !== bigAsn)!;
    const memberB = bigMembers.at(-1)!;
    const seen = new Set(
      (
        await store.handle.db
          .selectFrom('asns')
          .select('asn')
          .where('date', '=', latest)
          .where('seen', '=', 1)
          .where('cone_asns', '>', 0)
          .execute()
      ).map((row) => Number(row.asn)),
    );
    const conesWith = (test: (members: number[]) => boolean) =>
      [...membersOf.entries()]
        .filter(([asn, members]) => seen.has(asn) && test(members))
        .map(([asn]) => String(asn))
        .sort();
    const namesOf = async (variables: Record<string, unknown>) =>
      (await walk(store, { first: 10000, ...variables })).cones.map((cone) => cone.asn).sort();

    expect(await namesOf({ all: [String(memberA), String(memberB)] })).toEqual(
      conesWith((m) => m.includes(memberA) && m.includes(memberB)),
    );
    expect(await namesOf({ some: [String(memberA), String(memberB)] })).toEqual(
      conesWith((m) => m.includes(memberA) || m.includes(memberB)),
    );
    const prefix = conePrefixesOf(memberB)[0];
    if (prefix) {
      const expected = [...membersOf.keys()]
        .filter((asn) => seen.has(asn) && conePrefixesOf(asn).includes(prefix))
        .map(String)
        .sort();
      expect(await namesOf({ prefixes: [prefix] })).toEqual(expected);
    }
  });

  it('filters by lists of thousands of members or prefixes, and over several months by each month its own cones', async () => {
    const [bigAsn, bigMembers] = [...membersOf.entries()].sort((a, b) => b[1].length - a[1].length)[0]!;
    const held = (test: (members: number[]) => boolean) =>
      [...membersOf.entries()]
        .filter(([, members]) => test(members))
        .map(([asn]) => String(asn))
        .sort();
    const namesOf = async (variables: Record<string, unknown>) =>
      (await walk(store, { first: 10000, ...variables })).cones.map((cone) => cone.asn).sort();
    // Numbers no sample ASN has, and prefixes of a range the sample does not announce.
    const absentAsns = Array.from({ length: 1500 }, (_, index) => String(4_000_000_000 + index));
    const absentPrefixes = Array.from(
      { length: 1200 },
      (_, index) => `198.18.${index % 256}.${index >> 8}/32`,
    );
    const listed = bigMembers.map(String);

    expect(await namesOf({ all: [...listed, ...listed] })).toEqual(
      held((members) => bigMembers.every((member) => members.includes(member))),
    );
    expect(await namesOf({ all: [...listed, ...absentAsns] })).toEqual([]);
    expect(await namesOf({ some: [...absentAsns, String(bigAsn)] })).toEqual(
      held((members) => members.includes(bigAsn)),
    );
    const prefixes = conePrefixesOf(bigAsn).slice(0, 3);
    expect(prefixes.length).toBeGreaterThan(0);
    expect(await namesOf({ prefixes: [...prefixes, ...prefixes] })).toEqual(
      [...membersOf.keys()]
        .filter((asn) => prefixes.every((prefix) => conePrefixesOf(asn).includes(prefix)))
        .map(String)
        .sort(),
    );
    expect(await namesOf({ prefixes: [...prefixes, ...absentPrefixes] })).toEqual([]);

    // Over two months each month's cones holding the member, from the stored members of that month.
    const months = store.dates.slice(-2);
    const stored = await store.handle.db
      .selectFrom('cone_members as cm')
      .innerJoin('asns as a', (join) => join.onRef('a.date', '=', 'cm.date').onRef('a.asn', '=', 'cm.asn'))
      .select(['cm.date', 'cm.asn'])
      .where('cm.date', 'in', months)
      .where('cm.member_asn', '=', bigMembers.at(-1)!)
      .where('a.seen', '=', 1)
      .execute();
    const walked = await walk(store, { first: 10000, dates: months, all: [String(bigMembers.at(-1))] });
    expect(walked.cones.map((cone) => `${cone.date} ${cone.asn}`).sort()).toEqual(
      stored.map((row) => `${row.date} ${Number(row.asn)}`).sort(),
    );
    expect(walked.totalCount).toBe(stored.length);
  });

  it.each([
    ['SQL keyset pages', Number.MAX_SAFE_INTEGER, false],
    ['SQL, the whole list of a cone of few members', Number.MAX_SAFE_INTEGER, true],
    ['memory', 0, false],
  ])(
    'asnCone pages through the stored members and prefixes of one cone (its prefixes from %s)',
    async (_strategy, largeConePrefixes, fewMembers) => {
      // The cone counts as small by its ASNs; its number of prefixes alone decides where they are read from, and its
      // number of members whether a page is cut from its whole list.
      coneStreamTuning.largeConePrefixes = largeConePrefixes;
      const [asn, members] = [...membersOf.entries()].sort((a, b) => b[1].length - a[1].length)[0]!;
      coneStreamTuning.fewMembers = fewMembers ? members.length : members.length - 1;
      const expectedPrefixes = conePrefixesOf(asn);
      const collected = { members: [] as string[], prefixes: [] as string[] };
      let totals = { asns: -1, prefixes: -1 };
      for (let offset = 0; offset < Math.max(members.length, expectedPrefixes.length); offset += 200) {
        const data = await queryData<{
          asnCone: {
            date: string;
            asn: { asn: string; rank: number };
            cone: { numberAsns: number };
            asns: {
              totalCount: number;
              pageInfo: { offset: number; first: number };
              edges: { node: { asn: string; date: string } }[];
            };
            prefixes: { totalCount: number; edges: { node: { network: string; length: number } }[] };
          };
        }>(
          store.handle,
          `query($asn: String!, $offset: Int) { asnCone(asn: $asn) {
          date asn { asn rank } cone { numberAsns }
          asns(first: 200, offset: $offset) { totalCount pageInfo { offset first } edges { node { asn date } } }
          prefixes(first: 200, offset: $offset) { totalCount edges { node { network length } } } } }`,
          { asn: String(asn), offset },
        );
        const cone = data.asnCone;
        expect(cone.date).toBe(latest);
        expect(cone.asn.asn).toBe(String(asn));
        expect(cone.cone.numberAsns).toBe(members.length);
        expect(cone.asns.pageInfo).toEqual({ offset, first: 200 });
        totals = { asns: cone.asns.totalCount, prefixes: cone.prefixes.totalCount };
        collected.members.push(...cone.asns.edges.map((edge) => edge.node.asn));
        collected.prefixes.push(
          ...cone.prefixes.edges.map((edge) => `${edge.node.network}/${edge.node.length}`),
        );
      }
      expect(collected.members).toEqual(members.map(String));
      expect(collected.prefixes).toEqual(expectedPrefixes);
      expect(totals).toEqual({ asns: members.length, prefixes: expectedPrefixes.length });
    },
  );

  /** asnCone of `asn` through `handle`: every member and prefix, and their totals, as stored. */
  async function expectWholeCone(handle: DatabaseHandle, asn: number): Promise<void> {
    const members = membersOf.get(asn)!.map(String);
    const prefixes = conePrefixesOf(asn);
    const data = await queryData<{
      asnCone: {
        asns: { totalCount: number; edges: { node: { asn: string } }[] };
        prefixes: { totalCount: number; edges: { node: { network: string; length: number } }[] };
      };
    }>(
      handle,
      `query($asn: String!) { asnCone(asn: $asn) {
        asns(first: 10000) { totalCount edges { node { asn } } }
        prefixes(first: 10000) { totalCount edges { node { network length } } } } }`,
      { asn: String(asn) },
    );
    expect(data.asnCone.asns.edges.map((edge) => edge.node.asn)).toEqual(members);
    expect(data.asnCone.prefixes.edges.map((edge) => `${edge.node.network}/${edge.node.length}`)).toEqual(
      prefixes,
    );
    expect([data.asnCone.asns.totalCount, data.asnCone.prefixes.totalCount]).toEqual([
      members.length,
      prefixes.length,
    ]);
  }

  /**
   * Runs `check` on the largest cone of the latest month, large from one member past the bound but counted as one ASN
   * with one prefix, as CAIDA's counts may say of a cone of thousands; its stored counts are put back after.
   */
  async function withUnderstatedCone(
    check: (asn: number, members: number[]) => Promise<void>,
    { keptCount }: { keptCount: boolean } = { keptCount: true },
  ): Promise<void> {
    const [asn, members] = [...membersOf.entries()].sort((a, b) => b[1].length - a[1].length)[0]!;
    coneStreamTuning.largeConeAsns = members.length - 1;
    const cone = () => store.handle.db.updateTable('asns').where('date', '=', latest).where('asn', '=', asn);
    const stored = await store.handle.db
      .selectFrom('asns')
      .select(['cone_asns', 'cone_prefixes', 'number_cone_members'])
      .where('date', '=', latest)
      .where('asn', '=', asn)
      .executeTakeFirstOrThrow();
    expect(Number(stored.number_cone_members)).toBe(members.length);
    // Without the kept count (0), as a row written without it reads: only the walk's reads tell the cone's size.
    await cone()
      .set({ cone_asns: 1, cone_prefixes: 1, ...(keptCount ? {} : { number_cone_members: 0 }) })
      .execute();
    try {
      await check(asn, members);
    } finally {
      await cone()
        .set({
          cone_asns: stored.cone_asns,
          cone_prefixes: stored.cone_prefixes,
          number_cone_members: stored.number_cone_members,
        })
        .execute();
    }
  }

  it.each([
    ['with', true],
    ['without', false],
  ])(
    'asnCone reads a cone whose counts understate its members as the large cone it is, %s its kept count',
    async (_label, keptCount) => {
      await withUnderstatedCone(
        async (asn, members) => {
          // The SQL count of a small cone's prefixes is a count of distinct ids.
          const ask = async () => {
            const distinctCounts = new StatementCounter(
              (tree) => tree.includes('"AggregateFunctionNode"') && tree.includes('"distinct":true'),
            );
            await expectWholeCone(throughPlugin(store.handle, distinctCounts), asn);
            return distinctCounts.executed;
          };
          expect(await ask()).toBe(0);
          // Small indeed (the bound above its members): its prefixes counted in SQL.
          coneStreamTuning.largeConeAsns = members.length;
          expect(await ask()).toBeGreaterThan(0);
        },
        { keptCount },
      );
    },
  );

  it('walks a cone whose counts understate its members as large from the first walk, by the count its row keeps', async () => {
    await withUnderstatedCone(async (asn, members) => {
      const memberRows = new StatementCounter((tree) => tree.includes('"cone_members"'));
      const data = await queryData<StreamPage>(throughPlugin(store.handle, memberRows), STREAM, {
        asns: [String(asn)],
        first: 10000,
        // Its own walk key: a walk's cone list is kept per key and data version, which these edits do not change.
        sort: '-asn',
      });
      // Its lists computed once and kept (or kept already), never read whole as a small cone's.
      expect(memberRows.rows).toBeLessThan(members.length);
      const walked = data.asnConesStream.pages.flatMap((page) => page.asns.map((member) => member.asn));
      expect(walked).toEqual(members.map(String));
      const prefixes = data.asnConesStream.pages.flatMap((page) =>
        page.prefixes.map((prefix) => `${prefix.network}/${prefix.length}`),
      );
      expect(prefixes).toEqual(conePrefixesOf(asn));
    });
  });

  it('walks a cone whose counts understate its members and whose row keeps no count as large, once a walk found it', async () => {
    await withUnderstatedCone(
      async (asn, members) => {
        // One handle for every walk: what a walk learns is kept per handle, as in the service.
        const memberRows = new StatementCounter((tree) => tree.includes('"cone_members"'));
        const traced = throughPlugin(store.handle, memberRows);
        const walkOnce = async () => {
          const before = memberRows.rows;
          const data = await queryData<StreamPage>(traced, STREAM, { asns: [String(asn)], first: 10000 });
          return { data, rows: memberRows.rows - before };
        };
        // Read as small, whole, in a group of its own; then as large, its lists computed once; then from those lists.
        const [first, second, third] = [await walkOnce(), await walkOnce(), await walkOnce()];
        expect(first.rows).toBeGreaterThanOrEqual(members.length);
        expect(third.rows).toBeLessThan(members.length);
        expect(second.data).toEqual(first.data);
        expect(third.data).toEqual(first.data);
        const walked = first.data.asnConesStream.pages.flatMap((page) =>
          page.asns.map((member) => member.asn),
        );
        expect(walked).toEqual(members.map(String));
        const prefixes = first.data.asnConesStream.pages.flatMap((page) =>
          page.prefixes.map((prefix) => `${prefix.network}/${prefix.length}`),
        );
        expect(prefixes).toEqual(conePrefixesOf(asn));
      },
      { keptCount: false },
    );
  });

  it("asnCone reads a small cone's members once for its pages and counts", async () => {
    const [asn] = [...membersOf.entries()].find(
      ([owner, list]) => list.length > 1 && list.length <= 256 && (prefixIdsOf.get(owner)?.length ?? 0) > 0,
    )!;
    const memberReads = new StatementCounter((tree) => tree.includes('"cone_members"'));
    await expectWholeCone(throughPlugin(store.handle, memberReads), asn);
    // Its members (read once for its size, its member page and count, and its prefixes) and its prefixes' count:
    // whether the ASN has a cone is its row's kept member count (021). Six statements before the members were read
    // once, three before the count was kept.
    expect(memberReads.executed).toBe(2);
  });

  it('asnCone takes date or dates, and gives null for an ASN without a cone', async () => {
    const first = store.dates[0]!;
    const [asn] = [...membersOf.keys()];
    const byDate = await queryData<{ a: { date: string } | null; b: { date: string } | null; c: unknown }>(
      store.handle,
      `query($asn: String!, $date: String, $dates: [String!]) { a: asnCone(asn: $asn, date: $date) { date } b: asnCone(asn: $asn, dates: $dates) { date } c: asnCone(asn: "4294967294") { date } }`,
      { asn: String(asn), date: first.replaceAll('-', ''), dates: [first, '1990-01-01'] },
    );
    const storedFirst = await store.handle.db
      .selectFrom('cone_members')
      .select('asn')
      .where('date', '=', first)
      .where('asn', '=', asn!)
      .executeTakeFirst();
    expect(byDate.a?.date ?? null).toBe(storedFirst ? first : null);
    expect(byDate.b?.date ?? null).toBe(storedFirst ? first : null);
    expect(byDate.c).toBeNull();
  });

  it('rejects malformed cursors and page sizes with messages naming the argument', async () => {
    expect(await queryError(store.handle, '{ asnConesStream(pageCursor: "abc") { totalCount } }')).toMatch(
      /pageCursor .*"abc".*must be/,
    );
    expect(await queryError(store.handle, '{ asnConesStream(pageCursor: "1,2,3") { totalCount } }')).toMatch(
      /pageCursor/,
    );
    expect(
      await queryError(store.handle, '{ asnConesStream(pageCursor: "999999,0,") { pages { rank } } }'),
    ).toMatch(/pageCursor .*beyond the end/);
    expect(await queryError(store.handle, '{ asnConesStream(first: 0) { totalCount } }')).toMatch(
      /first .*from 1 to 10000/,
    );
    expect(
      await queryError(store.handle, '{ asnConesStream(prefixMembers: ["10.0.0.0/99"]) { totalCount } }'),
    ).toMatch(/prefixMembers/);
    expect(
      await queryError(store.handle, '{ asnConesStream(asnMembersAll: ["AS12"]) { totalCount } }'),
    ).toMatch(/asnMembersAll must be an ASN/);
  });
});
