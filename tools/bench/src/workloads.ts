// The measured workloads: which requests each one sends (chosen from the loaded data, many different keys so
// nothing is answered from one cached entry), the target it must meet, and the same rows read straight from
// SQLite with better-sqlite3 prepared statements ("raw database"), so each layer's overhead is visible.
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { nameSearchIndex } from '@asrank/db';

// W1-W6 are issue 7's workloads; S2 and S3 are the GraphQL issue's own list and neighbour benchmarks
// (`asns(first:100, sort:"rank")`, `asnLinks(asn, first:100)` with asn1 details), and S4 the name search behind
// `asns(name:)` and REST's /asns/name/:name, and S6 a REST list page of 1,000 ASNs (the REST service's large answers,
// passed on as the GraphQL service's bytes since the seventy-seventh round); none of the S workloads has a target of
// its own.
export type WorkloadId = 'W1' | 'W2' | 'W3' | 'W4' | 'W5' | 'W6' | 'S2' | 'S3' | 'S4' | 'S6';

export interface HttpRequestSpec {
  method: 'GET' | 'POST';
  path: string;
  /** JSON body for POST. */
  body?: string;
}

export interface Target {
  /** Minimum share of the ceiling's req/s. */
  minCeilingRatio?: number;
  /** Maximum p99 latency in ms. */
  maxP99Ms?: number;
  /** Minimum response throughput in MB/s (W5). */
  minMbPerSecond?: number;
}

export interface ThroughputWorkload {
  id: Exclude<WorkloadId, 'W5'>;
  title: string;
  service: 'graphql' | 'rest';
  requests: HttpRequestSpec[];
  target: Target;
  /** The same rows from SQLite, one call per request of `requests` (by index); returns the row count. */
  raw: ((db: BetterSqlite3.Database, index: number) => number) | null;
}

export interface StreamWorkload {
  id: 'W5';
  title: string;
  /** ASNs whose cones are walked (the ten largest). */
  asns: string[];
  target: Target;
}

/** Facts about the loaded data that the workloads are built from. */
export interface DataFacts {
  latestDate: string;
  dates: string[];
  /** A sample of ASNs of the latest month (shuffled, seen and unseen). */
  sampleAsns: number[];
  numberAsns: number;
  /** ASNs with the most links in the latest month, largest first. */
  largeAsns: number[];
  /** ASNs with the largest cones, largest first. */
  largestCones: number[];
  /** ASNs present in every loaded month (for the historic workload). */
  steadyAsns: number[];
  /** Words of ASN names of the latest month, lower case, as a user would search for them (name search). */
  nameWords: string[];
}

/** Deterministic pseudo-random numbers (mulberry32) so every run sends the same requests. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let index = items.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [items[index], items[other]] = [items[other] as T, items[index] as T];
  }
  return items;
}

/** Runs one read query on either store (`?` placeholders; numbered for PostgreSQL). */
type ReadQuery = <Row>(text: string, params: readonly unknown[]) => Promise<Row[]>;

async function withReader<T>(databaseUrl: string, work: (read: ReadQuery) => Promise<T>): Promise<T> {
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return await work(async <Row>(text: string, params: readonly unknown[]) => {
        let position = 0;
        const numbered = text.replace(/\?/g, () => `$${++position}`);
        return (await client.query(numbered, [...params])).rows as Row[];
      });
    } finally {
      await client.end();
    }
  }
  const db = new BetterSqlite3(databaseUrl, { readonly: true, fileMustExist: true });
  try {
    return await work(
      async <Row>(text: string, params: readonly unknown[]) => db.prepare(text).all(...params) as Row[],
    );
  } finally {
    db.close();
  }
}

export async function readFacts(databaseUrl: string): Promise<DataFacts> {
  return withReader(databaseUrl, async (read) => {
    const dates = (await read<{ date: string }>('select date from datasets order by date', [])).map(
      (row) => row.date,
    );
    const latestDate = dates[dates.length - 1];
    if (!latestDate) throw new Error(`${databaseUrl} holds no dataset`);
    const asnsOf = (rows: { asn: number | string }[]) => rows.map((row) => Number(row.asn));
    const random = seededRandom(7);
    // Sorted before shuffling so both stores yield the same sample.
    const allAsns = asnsOf(await read('select asn from asns where date = ? order by asn', [latestDate]));
    const sampleAsns = shuffle(allAsns, random).slice(0, 5000);
    const largeAsns = asnsOf(
      await read('select asn from asns where date = ? order by degree_total desc, asn limit 50', [
        latestDate,
      ]),
    );
    const largestCones = asnsOf(
      await read('select asn from asns where date = ? order by cone_asns desc, asn limit 10', [latestDate]),
    );
    const steadyAsns = shuffle(
      asnsOf(
        await read(
          'select asn from asns where date >= ? group by asn having count(*) = ? order by asn limit 20000',
          [dates[0], dates.length],
        ),
      ),
      random,
    );
    // The longest word (4+ letters or digits) of each of 300 sampled ASN names: a company name, a network name
    // ("level3", "as39696"), now and then a common word ("communications").
    const names = await read<{ asn_name: string }>(
      "select asn_name from asns where date = ? and asn_name <> '' order by asn",
      [latestDate],
    );
    const nameWords = shuffle(names, random)
      .slice(0, 300)
      .map(
        (row) =>
          row.asn_name
            .toLowerCase()
            .split(/[^a-z0-9]+/)
            .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))[0] ?? '',
      )
      .filter((word) => word.length >= 4);
    return {
      latestDate,
      dates,
      sampleAsns,
      numberAsns: allAsns.length,
      largeAsns,
      largestCones,
      steadyAsns,
      nameWords,
    };
  });
}

function graphqlRequest(query: string, variables: Record<string, unknown>): HttpRequestSpec {
  return { method: 'POST', path: '/graphql', body: JSON.stringify({ query, variables }) };
}

const W1_QUERY =
  'query PointLookup($asn: String!) { asn(asn: $asn) { asn asnName rank organization { orgId orgName rank } cone { numberAsns } asnDegree { total } } }';
const W2_QUERY =
  'query AsnList($offset: Int!) { asns(first: 100, offset: $offset, sort: "-cone.numberAsns") { edges { node { asn asnName rank cone { numberAsns } organization { orgId orgName } } } } }';
const W3_QUERY =
  'query Neighbours($asn: String!) { asnLinks(asn: $asn, first: 500) { edges { node { relationship numberPaths asn1 { asn asnName rank cone { numberAsns } } } } } }';
const S2_QUERY =
  'query AsnRankPage($offset: Int!) { asns(first: 100, offset: $offset, sort: "rank") { edges { node { asn asnName rank cone { numberAsns } organization { orgId orgName } } } } }';
const S3_QUERY =
  'query Neighbours100($asn: String!) { asnLinks(asn: $asn, first: 100) { edges { node { relationship numberPaths asn1 { asn asnName rank cone { numberAsns } } } } } }';
const S4_QUERY =
  'query NameSearch($name: String!) { asns(name: $name, first: 10) { totalCount edges { node { asn asnName rank } } } }';
const W4_QUERY =
  'query Historic($asns: [String!], $dateStart: String!, $dateEnd: String!) { asns(asns: $asns, dateStart: $dateStart, dateEnd: $dateEnd, first: 200) { edges { node { asn date asnName rank cone { numberAsns } asnDegree { total } } } } }';
export const W5_QUERY =
  'query ConeWalk($asns: [String!], $cursor: String) { asnConesStream(asns: $asns, first: 10000, pageCursor: $cursor) { pageInfo { hasNextPage nextPageCursor } pages { coneIndex asn { asn } asns { asn } prefixes { network length } } } }';

// The raw statements read exactly the columns the GraphQL answers carry, from where the service reads them: an
// organization's id, name and rank from the copies in its ASN's row (migration 012).
const RAW_W1 = `select a.asn, a.asn_name, a.rank, a.cone_asns, a.degree_total, a.org_id, a.org_name, a.org_rank
  from asns a where a.date = ? and a.asn = ?`;
// W2 and S2 read their page the way the service does: the page's keys from the sort index, then only those rows.
const RAW_W2 = `select a.asn, a.asn_name, a.rank, a.cone_asns, a.org_id, a.org_name
  from (select date, asn from asns where date = ? order by cone_asns desc, asn limit 100 offset ?) page
  join asns a on a.date = page.date and a.asn = page.asn
  order by a.cone_asns desc, a.asn`;
const RAW_W3 = `select l.relationship, l.number_paths, b.asn, b.asn_name, b.rank, b.cone_asns
  from asn_links l join asns b on b.date = l.date and b.asn = l.asn1
  where l.date = ? and l.asn0 = ? order by l.asn1 limit 500`;
const RAW_S2 = `select a.asn, a.asn_name, a.rank, a.cone_asns, a.org_id, a.org_name
  from (select date, asn from asns where date = ? and rank is not null order by rank, asn limit 100 offset ?) page
  join asns a on a.date = page.date and a.asn = page.asn
  order by a.rank, a.asn`;
const RAW_S3 = `select l.relationship, l.number_paths, b.asn, b.asn_name, b.rank, b.cone_asns
  from asn_links l join asns b on b.date = l.date and b.asn = l.asn1
  where l.date = ? and l.asn0 = ? order by l.asn1 limit 100`;
// S4 as the service reads it on SQLite: the month's candidates from its trigram index, tested with the LIKE, the
// first ten in rank order (unranked last) and the count.
const rawS4Candidates = (date: string) => `select a.asn, a.asn_name, a.rank from asns a
  where a.date = ? and a.search_text like ? escape '\\'
    and a.asn in (select key from ${nameSearchIndex('asns', date)} where ${nameSearchIndex('asns', date)} match ?)`;
const rawS4Page = (date: string) =>
  `${rawS4Candidates(date)} order by a.rank is null, a.rank, a.asn limit 10`;
const rawS4Count = (date: string) => `select count(*) as n from (${rawS4Candidates(date)})`;
// S6's page as the service reads it: the page's keys from the rank index, then those rows with every column the REST
// record carries, and each row's country.
const RAW_S6 = `select a.asn, a.asn_name, a.rank, a.source, a.date, a.clique_member, a.seen, a.ixp, a.longitude, a.latitude,
    c.iso, c.name, a.org_id, a.org_name, a.org_rank, a.cone_asns, a.cone_prefixes, a.cone_addresses,
    a.announcing_prefixes, a.announcing_addresses, a.degree_provider, a.degree_peer, a.degree_customer,
    a.degree_transit, a.degree_sibling, a.degree_total
  from (select date, asn from asns where date = ? and rank is not null order by rank, asn limit 1000 offset ?) page
  join asns a on a.date = page.date and a.asn = page.asn
  left join countries c on c.iso = a.country_iso
  order by a.rank, a.asn`;
const RAW_W4 = `select asn, date, asn_name, rank, cone_asns, degree_total from asns
  where asn in (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) and date between ? and ? order by date, asn limit 200`;

/** Prepared statements are cached per database handle, as a service would keep them. */
const statementCache = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();
function prepared(db: BetterSqlite3.Database, text: string): BetterSqlite3.Statement {
  let cache = statementCache.get(db);
  if (!cache) statementCache.set(db, (cache = new Map()));
  let statement = cache.get(text);
  if (!statement) cache.set(text, (statement = db.prepare(text)));
  return statement;
}

export function buildWorkloads(facts: DataFacts): {
  throughput: ThroughputWorkload[];
  stream: StreamWorkload;
} {
  const random = seededRandom(11);
  // S4's raw statements name the latest month's index table: written once, not on every timed call.
  const rawS4 = { count: rawS4Count(facts.latestDate), page: rawS4Page(facts.latestDate) };
  const pointAsns = facts.sampleAsns.slice(0, 2000);
  const maxOffset = Math.max(0, facts.numberAsns - 100);
  const offsets = Array.from({ length: 500 }, () => Math.floor(random() * (maxOffset + 1)));
  // A generator of its own, so the other workloads' requests stay those of earlier runs.
  const largeRandom = seededRandom(13);
  const maxLargeOffset = Math.max(0, facts.numberAsns - 1000);
  const largeOffsets = Array.from({ length: 100 }, () => Math.floor(largeRandom() * (maxLargeOffset + 1)));
  const neighbourAsns = facts.largeAsns;
  const firstDate = facts.dates[0] as string;
  const historicSets = Array.from({ length: 300 }, () =>
    Array.from(
      { length: 10 },
      () => facts.steadyAsns[Math.floor(random() * facts.steadyAsns.length)] as number,
    ),
  );

  const throughput: ThroughputWorkload[] = [
    {
      id: 'W1',
      title: 'point lookup: asn(asn) with organization, cone, degree',
      service: 'graphql',
      requests: pointAsns.map((asn) => graphqlRequest(W1_QUERY, { asn: String(asn) })),
      target: { minCeilingRatio: 0.5, maxP99Ms: 10 },
      raw: (db, index) =>
        prepared(db, RAW_W1).get(facts.latestDate, pointAsns[index % pointAsns.length]) ? 1 : 0,
    },
    {
      id: 'W2',
      title: 'list: asns(first:100, offset:random, sort:"-cone.numberAsns") with organization',
      service: 'graphql',
      requests: offsets.map((offset) => graphqlRequest(W2_QUERY, { offset })),
      target: { minCeilingRatio: 0.3 },
      raw: (db, index) => prepared(db, RAW_W2).all(facts.latestDate, offsets[index % offsets.length]).length,
    },
    {
      id: 'W3',
      title: 'neighbours: asnLinks(asn:<one of the 50 largest ASes>, first:500) with asn1 name, rank, cone',
      service: 'graphql',
      requests: neighbourAsns.map((asn) => graphqlRequest(W3_QUERY, { asn: String(asn) })),
      target: { minCeilingRatio: 0.3 },
      raw: (db, index) =>
        prepared(db, RAW_W3).all(facts.latestDate, neighbourAsns[index % neighbourAsns.length]).length,
    },
    {
      id: 'S2',
      title: 'list (GraphQL issue): asns(first:100, offset:random, sort:"rank") with organization',
      service: 'graphql',
      requests: offsets.map((offset) => graphqlRequest(S2_QUERY, { offset })),
      target: {},
      raw: (db, index) => prepared(db, RAW_S2).all(facts.latestDate, offsets[index % offsets.length]).length,
    },
    {
      id: 'S3',
      title:
        'neighbours (GraphQL issue): asnLinks(asn:<one of the 50 largest ASes>, first:100) with asn1 details',
      service: 'graphql',
      requests: neighbourAsns.map((asn) => graphqlRequest(S3_QUERY, { asn: String(asn) })),
      target: {},
      raw: (db, index) =>
        prepared(db, RAW_S3).all(facts.latestDate, neighbourAsns[index % neighbourAsns.length]).length,
    },
    {
      id: 'S4',
      title: 'name search: asns(name:<a word of an ASN name>, first:10) with totalCount',
      service: 'graphql',
      requests: facts.nameWords.map((name) => graphqlRequest(S4_QUERY, { name })),
      target: {},
      raw: (db, index) => {
        const name = facts.nameWords[index % facts.nameWords.length] as string;
        const values = [facts.latestDate, `%${name}%`, `"${name}"`];
        prepared(db, rawS4.count).get(...values);
        return prepared(db, rawS4.page).all(...values).length;
      },
    },
  ];
  if (facts.dates.length > 1) {
    throughput.push({
      id: 'W4',
      title: `historic: asns(asns:[10 ASNs], dateStart, dateEnd) over ${facts.dates.length} months`,
      service: 'graphql',
      requests: historicSets.map((asns) =>
        graphqlRequest(W4_QUERY, { asns: asns.map(String), dateStart: firstDate, dateEnd: facts.latestDate }),
      ),
      target: { maxP99Ms: 25 },
      raw: (db, index) =>
        prepared(db, RAW_W4).all(
          ...(historicSets[index % historicSets.length] as number[]),
          firstDate,
          facts.latestDate,
        ).length,
    });
  }
  throughput.push({
    id: 'W6',
    title: 'REST: /restful/asns/:asn (REST -> GraphQL hop included)',
    service: 'rest',
    requests: pointAsns.map((asn) => ({ method: 'GET', path: `/restful/asns/${asn}` })),
    target: { minCeilingRatio: 0.35 },
    raw: (db, index) =>
      prepared(db, RAW_W1).get(facts.latestDate, pointAsns[index % pointAsns.length]) ? 1 : 0,
  });
  throughput.push({
    id: 'S6',
    title: 'REST list: /restful/asns?first=1000&offset=random (REST -> GraphQL hop included)',
    service: 'rest',
    requests: largeOffsets.map((offset) => ({
      method: 'GET',
      path: `/restful/asns?first=1000&offset=${offset}`,
    })),
    target: {},
    raw: (db, index) =>
      prepared(db, RAW_S6).all(facts.latestDate, largeOffsets[index % largeOffsets.length]).length,
  });
  return {
    throughput,
    stream: {
      id: 'W5',
      title: 'cone stream: asnConesStream walk of the ten largest cones, first:10000 per page',
      asns: facts.largestCones.map(String),
      target: { minMbPerSecond: 50 },
    },
  };
}

/**
 * What the W5 walk reads from storage, read straight from SQLite: each cone's members, and once the month's prefixes
 * with their origins (the service keeps a month's prefix index in memory and slices cones' prefixes out of it, see
 * packages/schema/src/conePrefixIndex.ts). Returns the rows read, for the raw figure.
 */
export function rawConeWalk(db: BetterSqlite3.Database, date: string, asns: readonly number[]): number {
  const members = prepared(
    db,
    'select member_asn from cone_members where date = ? and asn = ? order by member_asn',
  ).raw(true);
  const prefixes = prepared(
    db,
    'select prefix_id, network, length from prefixes where date = ? order by prefix_id',
  ).raw(true);
  const origins = prepared(db, 'select asn, prefix_id from prefix_origins where date = ? order by asn').raw(
    true,
  );
  let rows = 0;
  for (const row of prefixes.iterate(date)) if (row) rows++;
  for (const row of origins.iterate(date)) if (row) rows++;
  for (const asn of asns) for (const row of members.iterate(date, asn)) if (row) rows++;
  return rows;
}
