// The two ways asnConesStream reads a cone (SQL keyset pages for small cones; lists computed once and kept in memory
// for large ones) return the same sequences as a straightforward reading of the tables; the kept lists follow a
// reloaded month; and answering `asns { asn }` from member numbers alone equals the full-row answer.
import type { DatabaseHandle } from '@asrank/db';
import { coneStreamTuning } from '../src';
import {
  LOAD_TIMEOUT_MS,
  reloadThinned,
  openLoadedStore,
  queryData,
  STORE_KINDS,
  type LoadedStore,
} from './support/store';
import { StatementCounter, throughPlugin } from './support/statementCounter';

jest.setTimeout(LOAD_TIMEOUT_MS);

interface StreamPage {
  asnConesStream: {
    pageInfo: { nextPageCursor: string; hasNextPage: boolean };
    pages: {
      coneIndex: number;
      asn: Record<string, unknown>;
      asns: Record<string, unknown>[];
      prefixes: Record<string, unknown>[];
    }[];
  };
}

interface WalkedCone {
  asn: Record<string, unknown>;
  members: Record<string, unknown>[];
  prefixes: Record<string, unknown>[];
}

/**
 * Walks the stream from the empty cursor to the end with `selection` as each page item's selection. The kept lists
 * belong to a Kysely instance: with `counter`, the walk runs on a fresh instance that counts statements (and starts
 * with nothing kept); without, on the store's own (whose lists persist from walk to walk, as in the service).
 */
async function walk(
  handle: DatabaseHandle,
  selection: string,
  variables: { first: number; asns?: string[] },
  { fragments = '', counter }: { fragments?: string; counter?: StatementCounter } = {},
): Promise<{ cones: WalkedCone[]; pages: number; cursors: string[] }> {
  const counted = counter ? throughPlugin(handle, counter) : handle;
  const query = `query($cursor: String, $first: Int, $asns: [String!]) {
    asnConesStream(pageCursor: $cursor, first: $first, asns: $asns) {
      pageInfo { nextPageCursor hasNextPage } pages { coneIndex ${selection} } } } ${fragments}`;
  const cones: WalkedCone[] = [];
  const cursors: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  for (;;) {
    const data: StreamPage = await queryData<StreamPage>(counted, query, { ...variables, cursor });
    pages += 1;
    for (const item of data.asnConesStream.pages) {
      const cone = (cones[item.coneIndex] ??= { asn: item.asn, members: [], prefixes: [] });
      cone.members.push(...(item.asns ?? []));
      cone.prefixes.push(...(item.prefixes ?? []));
    }
    cursors.push(data.asnConesStream.pageInfo.nextPageCursor);
    if (!data.asnConesStream.pageInfo.hasNextPage) break;
    cursor = data.asnConesStream.pageInfo.nextPageCursor;
    if (pages > 20000) throw new Error('stream does not end');
  }
  return { cones, pages, cursors };
}

/** A month read straight from the tables: each cone's members and distinct prefixes (network/length, by prefix_id). */
async function storedCones(handle: DatabaseHandle, date: string) {
  const membersOf = new Map<number, number[]>();
  for (const row of await handle.db
    .selectFrom('cone_members')
    .select(['asn', 'member_asn'])
    .where('date', '=', date)
    .execute()) {
    const list = membersOf.get(Number(row.asn)) ?? [];
    list.push(Number(row.member_asn));
    membersOf.set(Number(row.asn), list);
  }
  for (const list of membersOf.values()) list.sort((a, b) => a - b);
  const originsOf = new Map<number, number[]>();
  for (const row of await handle.db
    .selectFrom('prefix_origins')
    .select(['asn', 'prefix_id'])
    .where('date', '=', date)
    .execute()) {
    const list = originsOf.get(Number(row.asn)) ?? [];
    list.push(Number(row.prefix_id));
    originsOf.set(Number(row.asn), list);
  }
  const textOf = new Map<number, string>();
  for (const row of await handle.db
    .selectFrom('prefixes')
    .select(['prefix_id', 'network', 'length'])
    .where('date', '=', date)
    .execute()) {
    textOf.set(Number(row.prefix_id), `${row.network}/${row.length}`);
  }
  /** Origin rows of the cone's members: more than its distinct prefixes when a MOAS prefix has 2 origins inside. */
  const originRowsOf = (asn: number): number =>
    (membersOf.get(asn) ?? []).reduce((sum, member) => sum + (originsOf.get(member)?.length ?? 0), 0);
  const prefixesOf = (asn: number): string[] => {
    const ids = new Set<number>();
    for (const member of membersOf.get(asn) ?? []) for (const id of originsOf.get(member) ?? []) ids.add(id);
    return [...ids].sort((a, b) => a - b).map((id) => textOf.get(id)!);
  };
  return { membersOf, prefixesOf, originRowsOf };
}

function expectStored(cones: WalkedCone[], stored: Awaited<ReturnType<typeof storedCones>>): void {
  for (const cone of cones) {
    const asn = Number(cone.asn.asn);
    expect(cone.members.map((member) => Number(member.asn))).toEqual(stored.membersOf.get(asn) ?? []);
    expect(cone.prefixes.map((prefix) => `${prefix.network}/${prefix.length}`)).toEqual(
      stored.prefixesOf(asn),
    );
  }
}

/** The ASNs of the month's `count` largest cones. */
async function largestCones(handle: DatabaseHandle, date: string, count: number): Promise<string[]> {
  const rows = await handle.db
    .selectFrom('asns')
    .select('asn')
    .where('date', '=', date)
    .where('seen', '=', 1)
    .orderBy('cone_asns', 'desc')
    .orderBy('asn')
    .limit(count)
    .execute();
  return rows.map((row) => String(row.asn));
}

const KEYS = 'asn { asn } asns { asn date } prefixes { network length }';
const defaultTuning = { ...coneStreamTuning };

describe.each(STORE_KINDS)('cone stream strategies on %s', (kind) => {
  let store: LoadedStore;
  let latest: string;
  beforeAll(async () => {
    store = await openLoadedStore(kind);
    latest = store.dates.at(-1)!;
  }, LOAD_TIMEOUT_MS);
  afterAll(() => store?.close());
  afterEach(() => {
    Object.assign(coneStreamTuning, defaultTuning);
  });

  it('every strategy walks every cone of the month, in small pages, exactly as the tables say', async () => {
    const stored = await storedCones(store.handle, latest);
    const walks = [];
    for (const [largeConeAsns, largeConePrefixes] of [
      [0, 0],
      [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
      [Number.MAX_SAFE_INTEGER, 0],
    ] as const) {
      // 0, 0: every cone through the in-memory lists; MAX, MAX: every cone through SQL keyset pages (small chunks);
      // MAX, 0: members through SQL, prefixes from memory (a cone of few ASNs holding many prefixes).
      coneStreamTuning.largeConeAsns = largeConeAsns;
      coneStreamTuning.largeConePrefixes = largeConePrefixes;
      coneStreamTuning.chunk = 40;
      const walked = await walk(store.handle, KEYS, { first: 97 });
      expect(walked.pages).toBeGreaterThan(20);
      expect(walked.cones.length).toBeGreaterThan(100);
      expectStored(walked.cones, stored);
      walks.push(walked.cones);
    }
    expect(walks[0]).toEqual(walks[1]);
    expect(walks[2]).toEqual(walks[1]);
    // Some cone holds a MOAS prefix with several origins inside it, so "listed once" is exercised.
    expect(walks[0]!.some((cone) => stored.originRowsOf(Number(cone.asn.asn)) > cone.prefixes.length)).toBe(
      true,
    );
  });

  it('answers asns { asn } from member numbers (fewer statements) exactly as from full rows, fragments included', async () => {
    coneStreamTuning.largeConeAsns = 0;
    const variables = { first: 500 };
    const counters = {
      keysOnly: new StatementCounter(),
      viaFragment: new StatementCounter(),
      fullRows: new StatementCounter(),
    };
    const keysOnly = await walk(store.handle, 'asn { asn } asns { asn date __typename }', variables, {
      counter: counters.keysOnly,
    });
    const viaFragment = await walk(store.handle, 'asn { ...Key } asns { ...Key }', variables, {
      fragments: 'fragment Key on Asn { asn date }',
      counter: counters.viaFragment,
    });
    const fullRows = await walk(
      store.handle,
      'asn { asn asnName } asns { asn date __typename asnName }',
      variables,
      {
        counter: counters.fullRows,
      },
    );
    const strip = (cones: WalkedCone[]) =>
      cones.map((cone) => ({
        asn: cone.asn.asn,
        members: cone.members.map((member) => ({ asn: member.asn, date: member.date })),
      }));
    expect(strip(keysOnly.cones)).toEqual(strip(fullRows.cones));
    expect(strip(viaFragment.cones)).toEqual(strip(fullRows.cones));
    expect(
      keysOnly.cones.flatMap((cone) => cone.members).every((member) => member.__typename === 'Asn'),
    ).toBe(true);
    // Full rows cost one batch of asns rows per page (and one for the cones' own rows); key-only pages none.
    expect(counters.keysOnly.executed).toBeLessThan(counters.fullRows.executed);
    expect(counters.viaFragment.executed).toBe(counters.keysOnly.executed);

    // Any other field, even inside a fragment, needs the rows: its values must be the stored ones.
    const withRank = await walk(store.handle, 'asn { asn } asns { asn ...Rank }', variables, {
      fragments: 'fragment Rank on Asn { rank asnName }',
    });
    const ranks = await store.handle.db
      .selectFrom('asns')
      .select(['asn', 'rank', 'asn_name'])
      .where('date', '=', latest)
      .execute();
    const rowOf = new Map(ranks.map((row) => [String(row.asn), row]));
    const members = withRank.cones.flatMap((cone) => cone.members);
    expect(members.length).toBeGreaterThan(100);
    for (const member of members) {
      const row = rowOf.get(String(member.asn));
      expect(member.rank).toBe(row?.rank == null ? null : Number(row.rank));
      expect(member.asnName).toBe(row?.asn_name ?? '');
    }
    expect(members.some((member) => member.rank !== null)).toBe(true);
  });

  it('pages a walk whose items show no prefixes as one that shows them, without reading the rows of prefixes', async () => {
    // Every cone small: their prefixes come from groups of cones, each read by SQL.
    coneStreamTuning.largeConeAsns = Number.MAX_SAFE_INTEGER;
    coneStreamTuning.largeConePrefixes = Number.MAX_SAFE_INTEGER;
    const variables = { first: 97 };
    const readsPrefixRows = () => new StatementCounter((tree) => tree.includes('"name":"prefixes"'));
    const counters = { shown: readsPrefixRows(), unshown: readsPrefixRows(), recordsRead: readsPrefixRows() };
    const shown = await walk(
      store.handle,
      'asn { asn } asns { asn } prefixes { network length }',
      variables,
      {
        counter: counters.shown,
      },
    );
    const unshown = await walk(store.handle, 'asn { asn } asns { asn }', variables, {
      counter: counters.unshown,
    });
    coneStreamTuning.keysWhereUnshown = false;
    const recordsRead = await walk(store.handle, 'asn { asn } asns { asn }', variables, {
      counter: counters.recordsRead,
    });
    coneStreamTuning.keysWhereUnshown = true;
    // Shown through a fragment: the records are read.
    const viaFragment = await walk(store.handle, 'asn { asn } asns { asn } ...Shown', variables, {
      fragments: 'fragment Shown on AsnConeStreamItem { prefixes { network length } }',
    });
    expect(shown.pages).toBeGreaterThan(20);
    // Prefixes end some pages (a cursor's third number: the next prefix of its cone), so their counts place the pages.
    expect(shown.cursors.some((cursor) => Number(cursor.split(',')[2] || 0) > 0)).toBe(true);
    expect(unshown.cursors).toEqual(shown.cursors);
    expect(recordsRead.cursors).toEqual(shown.cursors);
    expect(viaFragment.cursors).toEqual(shown.cursors);
    const members = (cones: WalkedCone[]) => cones.map((cone) => [cone.asn.asn, cone.members]);
    expect(members(unshown.cones)).toEqual(members(shown.cones));
    expect(viaFragment.cones).toEqual(shown.cones);
    expect(shown.cones.some((cone) => cone.prefixes.length > 0)).toBe(true);
    expect(counters.shown.executed).toBeGreaterThan(0);
    expect(counters.recordsRead.executed).toBeGreaterThan(0);
    expect(counters.unshown.executed).toBe(0);
  });

  it('reads the list of cones once per chunk of cones, not again for every page', async () => {
    coneStreamTuning.largeConeAsns = 0;
    const asns = await largestCones(store.handle, latest, 5);
    const counter = new StatementCounter();
    const walked = await walk(store.handle, KEYS, { first: 20, asns }, { counter });
    expect(walked.cones.map((cone) => String(cone.asn.asn)).sort()).toEqual([...asns].sort());
    expect(walked.pages).toBeGreaterThan(60);
    // Per page: its data version. Once per walk: the five cones (one chunk), each cone's kept member and prefix
    // lists, the month's prefix index. Reading the cones again for every page would be a second statement a page.
    expect(counter.executed).toBeLessThan(walked.pages + 20);
  });

  it('lists the cones of a month loaded again, not the kept chunk of its earlier load', async () => {
    // Up to forty cones, most links first: thinning the month's links lowers degrees, and the order changes.
    const asns = (
      await store.handle.db
        .selectFrom('asns')
        .select('asn')
        .where('date', '=', latest)
        .where('seen', '=', 1)
        .where('degree_total', '>=', 2)
        .orderBy('asn')
        .limit(40)
        .execute()
    ).map((row) => String(row.asn));
    expect(asns.length).toBeGreaterThan(20);
    const walkedOrder = async () => {
      const data = await queryData<StreamPage>(
        store.handle,
        `query($asns: [String!]) { asnConesStream(asns: $asns, first: 10000, sort: "-asnDegree.total") {
          pageInfo { nextPageCursor hasNextPage } pages { coneIndex asn { asn } } } }`,
        { asns },
      );
      expect(data.asnConesStream.pageInfo.hasNextPage).toBe(false);
      return data.asnConesStream.pages.map((item) => String(item.asn.asn));
    };
    const storedOrder = async () =>
      (
        await store.handle.db
          .selectFrom('asns')
          .select('asn')
          .where('date', '=', latest)
          .where('asn', 'in', asns.map(Number))
          .orderBy('degree_total', 'desc')
          .orderBy('asn')
          .execute()
      ).map((row) => String(row.asn));
    const before = await walkedOrder();
    expect(before).toEqual(await storedOrder());

    await reloadThinned(store.handle, latest, ['asRel']);

    const after = await walkedOrder();
    expect(after).toEqual(await storedOrder());
    expect(after).not.toEqual(before);
  });

  it('never serves kept lists of a month that was loaded again (new data_version)', async () => {
    coneStreamTuning.largeConeAsns = 0;
    const asns = await largestCones(store.handle, latest, 5);
    const before = await walk(store.handle, KEYS, { first: 200, asns });
    expectStored(before.cones, await storedCones(store.handle, latest));

    // Reload the latest month with a third of its links and prefix lines gone: cones and their prefixes shrink.
    await reloadThinned(store.handle, latest, ['asRel', 'pfx2as']);

    const stored = await storedCones(store.handle, latest);
    const after = await walk(store.handle, KEYS, { first: 200, asns });
    expectStored(after.cones, stored);
    // The reload really changed what the same cones hold, so a stale list would have been caught above.
    expect(after.cones.map((cone) => [cone.members.length, cone.prefixes.length])).not.toEqual(
      before.cones.map((cone) => [cone.members.length, cone.prefixes.length]),
    );
  });
});
