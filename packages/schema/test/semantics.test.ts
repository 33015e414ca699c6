// Query semantics: latest month by default, inclusive intervals, sort keys, the name filter, relationships seen
// from asn0, null for unknown records, and argument errors that name the argument.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { graphql } from 'graphql';
import { openDatabase } from '@asrank/db';
import { readManifest } from '@asrank/cli';
import { createContext, createSchema } from '../src';
import {
  LOAD_TIMEOUT_MS,
  loadedSampleDir,
  openLoadedStore,
  queryData,
  queryError,
  runQuery,
  STORE_KINDS,
  type LoadedStore,
} from './support/store';

// Data tests run real SQL on a loaded store; a busy CI machine can be slow, and no assertion here is about time.
jest.setTimeout(LOAD_TIMEOUT_MS);

type Row = Record<string, unknown>;
/** Byte-wise string order with nulls last: the order the service promises on both dialects. */
const compareText = (a: unknown, b: unknown) =>
  a == null ? (b == null ? 0 : 1) : b == null ? -1 : a < b ? -1 : a > b ? 1 : 0;
const compareNumber = (a: unknown, b: unknown) =>
  a == null ? (b == null ? 0 : 1) : b == null ? -1 : Number(a) - Number(b);

describe.each(STORE_KINDS)('semantics on %s', (kind) => {
  let store: LoadedStore;
  let latest: string;
  let asnRows: Row[];

  beforeAll(async () => {
    store = await openLoadedStore(kind);
    latest = store.dates.at(-1)!;
    asnRows = await store.handle.db.selectFrom('asns').selectAll().where('date', '=', latest).execute();
  }, LOAD_TIMEOUT_MS);
  afterAll(() => store?.close());

  const asnList = async (args: string) =>
    (
      await queryData<{ asns: { totalCount: number; edges: { node: { asn: string; date: string } }[] } }>(
        store.handle,
        `{ asns(first: 10000${args}) { totalCount edges { node { asn date } } } }`,
      )
    ).asns;

  it('reads only the latest month when no interval is given', async () => {
    expect(store.dates.length).toBeGreaterThan(1);
    const data = await queryData<Record<string, { edges: { node: { date: string } }[] }>>(
      store.handle,
      '{ asns(first: 10000) { edges { node { date } } } organizations(first: 10000) { edges { node { date } } } asnLinks(first: 10000) { edges { node { date } } } locations(first: 10000) { edges { node { date } } } }',
    );
    for (const connection of Object.values(data)) {
      expect(connection.edges.length).toBeGreaterThan(0);
      expect(new Set(connection.edges.map((edge) => edge.node.date))).toEqual(new Set([latest]));
    }
  });

  it('returns one node per ASN and month inside an inclusive interval, date ascending, in either date form', async () => {
    const [, second, third] = store.dates;
    const stored = await store.handle.db
      .selectFrom('asns')
      .select(['date'])
      .where('date', '>=', second!)
      .where('date', '<=', third!)
      .execute();
    const list = await asnList(`, dateStart: "${second!.replaceAll('-', '')}", dateEnd: "${third}"`);
    expect(list.totalCount).toBe(stored.length);
    const dates = list.edges.map((edge) => edge.node.date);
    expect(new Set(dates)).toEqual(new Set([second, third]));
    expect([...dates].sort()).toEqual(dates);
    const fromOnly = await asnList(`, dateStart: "${third}"`);
    expect(new Set(fromOnly.edges.map((edge) => edge.node.date))).toEqual(
      new Set(store.dates.filter((date) => date >= third!)),
    );
    const untilOnly = await asnList(`, dateEnd: "${store.dates[0]}"`);
    expect(new Set(untilOnly.edges.map((edge) => edge.node.date))).toEqual(new Set([store.dates[0]]));
  });

  it('sorts by the spec keys, "-" meaning descending, with later keys breaking ties', async () => {
    const expected = [...asnRows].sort(
      (a, b) =>
        compareNumber(b.cone_asns, a.cone_asns) ||
        compareText(a.source, b.source) ||
        Number(a.asn) - Number(b.asn),
    );
    const list = await asnList(', sort: "-cone.numberAsns,source,asn"');
    expect(list.edges.map((edge) => edge.node.asn)).toEqual(expected.map((row) => String(row.asn)));

    const byName = [...asnRows].sort(
      (a, b) => compareText(a.asn_name, b.asn_name) || Number(a.asn) - Number(b.asn),
    );
    expect((await asnList(', sort: "asnName"')).edges.map((edge) => edge.node.asn)).toEqual(
      byName.map((row) => String(row.asn)),
    );

    const locations = await store.handle.db
      .selectFrom('locations')
      .selectAll()
      .where('date', '=', latest)
      .execute();
    const expectedLocations = [...locations].sort(
      (a, b) =>
        compareText(b.country_iso, a.country_iso) ||
        compareText(a.region, b.region) ||
        compareText(a.loc_id, b.loc_id),
    );
    // Descending keeps nulls last as well.
    const nullsLast = (rows: typeof locations) => [
      ...rows.filter((row) => row.country_iso != null),
      ...rows.filter((row) => row.country_iso == null),
    ];
    const data = await queryData<{ locations: { edges: { node: { locId: string } }[] } }>(
      store.handle,
      '{ locations(first: 10000, sort: "-country,region") { edges { node { locId } } } }',
    );
    expect(data.locations.edges.map((edge) => edge.node.locId)).toEqual(
      nullsLast(expectedLocations).map((row) => row.loc_id),
    );

    const asn = asnRows.find((row) => Number(row.degree_total) > 3)!;
    const links = await store.handle.db
      .selectFrom('asn_links')
      .selectAll()
      .where('date', '=', latest)
      .where('asn0', '=', Number(asn.asn))
      .execute();
    const expectedLinks = [...links].sort(
      (a, b) => compareText(a.relationship, b.relationship) || Number(b.asn1) - Number(a.asn1),
    );
    const linkData = await queryData<{ asnLinks: { edges: { node: { asn1: { asn: string } } }[] } }>(
      store.handle,
      `{ asnLinks(asn: "${asn.asn}", first: 10000, sort: "relationship,-asn1") { edges { node { asn1 { asn } } } } }`,
    );
    expect(linkData.asnLinks.edges.map((edge) => edge.node.asn1.asn)).toEqual(
      expectedLinks.map((link) => String(link.asn1)),
    );
  });

  it('sorts nested connections too (organization neighbours, link locations)', async () => {
    const org = (
      await store.handle.db
        .selectFrom('organizations')
        .select('org_id')
        .where('date', '=', latest)
        .orderBy('degree_total', 'desc')
        .orderBy('org_id')
        .executeTakeFirstOrThrow()
    ).org_id;
    const data = await queryData<{
      organization: { neighbors: { edges: { node: { asn: string; asnName: string } }[] } };
    }>(
      store.handle,
      `query($org: String!) { organization(orgId: $org) { neighbors(first: 10000, sort: "-asnName,asn") { edges { node { asn asnName } } } } }`,
      { org },
    );
    const names = data.organization.neighbors.edges.map((edge) => edge.node);
    expect(names.length).toBeGreaterThan(1);
    expect(names).toEqual(
      [...names].sort((a, b) => compareText(b.asnName, a.asnName) || Number(a.asn) - Number(b.asn)),
    );

    const placed = await store.handle.db
      .selectFrom('link_locations')
      .select(['asn0', 'asn1', (eb) => eb.fn.countAll().as('n')])
      .where('date', '=', latest)
      .groupBy(['asn0', 'asn1'])
      .orderBy('n', 'desc')
      .orderBy('asn0')
      .orderBy('asn1')
      .executeTakeFirstOrThrow();
    const stored = await store.handle.db
      .selectFrom('link_locations as ll')
      .innerJoin('locations as l', (join) =>
        join.onRef('l.date', '=', 'll.date').onRef('l.loc_id', '=', 'll.loc_id'),
      )
      .select(['l.loc_id', 'l.city'])
      .where('ll.date', '=', latest)
      .where('ll.asn0', '=', placed.asn0)
      .where('ll.asn1', '=', placed.asn1)
      .execute();
    expect(stored.length).toBeGreaterThan(1);
    const linkData = await queryData<{ asnLink: { locations: { edges: { node: { locId: string } }[] } } }>(
      store.handle,
      `{ asnLink(asn0: "${placed.asn1}", asn1: "${placed.asn0}") { locations(sort: "-city") { edges { node { locId } } } } }`,
    );
    expect(linkData.asnLink.locations.edges.map((edge) => edge.node.locId)).toEqual(
      [...stored]
        .sort((a, b) => compareText(b.city, a.city) || compareText(a.loc_id, b.loc_id))
        .map((row) => row.loc_id),
    );
  });

  it('places links of a month in one batch, each at its own locations, seen from either end', async () => {
    const stored = await store.handle.db
      .selectFrom('link_locations')
      .select(['asn0', 'asn1', 'loc_id'])
      .where('date', '=', latest)
      .execute();
    const placesOf = new Map<string, string[]>();
    for (const row of stored) {
      const pair = `${Number(row.asn0)},${Number(row.asn1)}`;
      placesOf.set(pair, [...(placesOf.get(pair) ?? []), row.loc_id]);
    }
    // Both rows of 20 placed links (asn0 below and above asn1) and their ends' other links, in one batch of locations.
    const data = await queryData<{
      asnLinks: {
        edges: {
          node: {
            asn0: { asn: string };
            asn1: { asn: string };
            locations: { totalCount: number; edges: { node: { locId: string } }[] };
          };
        }[];
      };
    }>(
      store.handle,
      `{ asnLinks(asns: [${[...placesOf.keys()]
        .slice(0, 20)
        .flatMap((pair) => pair.split(',').map((asn) => `"${asn}"`))
        .join(', ')}], first: 10000) {
        edges { node { asn0 { asn } asn1 { asn } locations(first: 1000) { totalCount edges { node { locId } } } } } } }`,
    );
    let placed = 0;
    for (const { node } of data.asnLinks.edges) {
      const [low, high] = [Number(node.asn0.asn), Number(node.asn1.asn)].sort((a, b) => a - b);
      const expected = [...(placesOf.get(`${low},${high}`) ?? [])].sort(compareText);
      expect({
        link: [node.asn0.asn, node.asn1.asn],
        places: node.locations.edges.map((edge) => edge.node.locId),
      }).toEqual({
        link: [node.asn0.asn, node.asn1.asn],
        places: expected,
      });
      expect(node.locations.totalCount).toBe(expected.length);
      placed += expected.length;
    }
    // Links in either direction, most of them placed somewhere.
    expect(data.asnLinks.edges.some(({ node }) => Number(node.asn0.asn) > Number(node.asn1.asn))).toBe(true);
    expect(data.asnLinks.edges.some(({ node }) => Number(node.asn0.asn) < Number(node.asn1.asn))).toBe(true);
    expect(placed).toBeGreaterThan(40);
  });

  it('sorts historic queries by date when asked', async () => {
    const asn = String(asnRows.find((row) => row.rank != null)!.asn);
    const list = await asnList(
      `, asns: ["${asn}"], dateStart: "${store.dates[0]}", dateEnd: "${latest}", sort: "-date"`,
    );
    expect(list.edges.map((edge) => edge.node.date)).toEqual([...store.dates].reverse());
  });

  it('breaks the ties of a date order on the ASN over one month as over several', async () => {
    const byAsn = (rows: { node: { asn: string; date: string } }[]) =>
      rows.map((edge) => edge.node).filter((node) => node.date === latest);
    const oneMonth = await asnList(`, dateStart: "${latest}", dateEnd: "${latest}", sort: "date"`);
    const twoMonths = await asnList(
      `, dateStart: "${store.dates.at(-2)}", dateEnd: "${latest}", sort: "date"`,
    );
    const ascending = [...asnRows].map((row) => String(row.asn)).sort((a, b) => Number(a) - Number(b));
    expect(byAsn(oneMonth.edges).map((node) => node.asn)).toEqual(ascending);
    expect(byAsn(twoMonths.edges).map((node) => node.asn)).toEqual(ascending);
  });

  it('filters by a case-insensitive substring of the AS name or its organization name, with LIKE characters taken literally', async () => {
    const orgs = await store.handle.db
      .selectFrom('organizations')
      .select(['org_id', 'org_name'])
      .where('date', '=', latest)
      .execute();
    const orgName = new Map(orgs.map((org) => [org.org_id, org.org_name]));
    // Each name on its own: a needle matches one of them, never a stretch across both.
    const names = (row: Row) =>
      [String(row.asn_name), row.org_id ? (orgName.get(String(row.org_id)) ?? '') : ''].map((name) =>
        name.toLowerCase(),
      );
    const holds = (row: Row, needle: string) =>
      names(row).some((name) => name.includes(needle.toLowerCase()));
    // A word found in an organization name but not in that ASN's own name proves the organization is searched.
    const row = asnRows.find((candidate) => {
      const word = candidate.org_id
        ? orgName
            .get(String(candidate.org_id))
            ?.split(/\s+/)
            .find((w) => w.length > 3)
        : undefined;
      return word !== undefined && !String(candidate.asn_name).toLowerCase().includes(word.toLowerCase());
    })!;
    const word = orgName
      .get(String(row.org_id))!
      .split(/\s+/)
      .find((w) => w.length > 3)!;
    const needle = word.toUpperCase().slice(1);
    const expected = asnRows
      .filter((candidate) => holds(candidate, needle))
      .map((candidate) => String(candidate.asn))
      .sort();
    const found = await asnList(`, name: ${JSON.stringify(needle)}`);
    expect(found.edges.map((edge) => edge.node.asn).sort()).toEqual(expected);
    expect(expected).toContain(String(row.asn));
    for (const metacharacter of ['_', '%', '\\']) {
      const literal = asnRows.filter((candidate) => holds(candidate, metacharacter)).length;
      // Fewer names hold the character than exist, so an unescaped wildcard (matching all) would fail here.
      expect(literal).toBeLessThan(asnRows.length);
      expect((await asnList(`, name: ${JSON.stringify(metacharacter)}`)).totalCount).toBe(literal);
    }
    // The end of the AS name, a space and the start of its organization's name: in neither name.
    const spanning = `${String(row.asn_name).slice(-3)} ${orgName.get(String(row.org_id))!.slice(0, 3)}`;
    expect(holds(row, spanning)).toBe(false);
    const acrossNames = await asnList(`, name: ${JSON.stringify(spanning)}`);
    expect(acrossNames.edges.map((edge) => edge.node.asn).sort()).toEqual(
      asnRows
        .filter((candidate) => holds(candidate, spanning))
        .map((candidate) => String(candidate.asn))
        .sort(),
    );
    const organizationSpan = `${orgName.get(String(row.org_id))!.slice(-3)} ${String(row.org_id).slice(0, 3)}`;
    const organizations = await queryData<{ organizations: { edges: { node: { orgId: string } }[] } }>(
      store.handle,
      `{ organizations(first: 10000, name: ${JSON.stringify(organizationSpan)}) { edges { node { orgId } } } }`,
    );
    expect(organizations.organizations.edges.map((edge) => edge.node.orgId).sort()).toEqual(
      orgs
        .filter((org) =>
          [org.org_name, org.org_id].some((name) =>
            name.toLowerCase().includes(organizationSpan.toLowerCase()),
          ),
        )
        .map((org) => org.org_id)
        .sort(),
    );
  });

  it('describes relationships from asn0 as in the as-rel input (a|b|-1: b is a customer of a) and follows the argument order', async () => {
    const dir = await loadedSampleDir();
    const month = readManifest(dir).find((entry) => entry.date === latest)!;
    const line = fs
      .readFileSync(month.options.asRel!, 'utf8')
      .split('\n')
      .find((text) => /^\d+\|\d+\|-1(\||$)/.test(text))!;
    const [provider, customer] = line.split('|');
    const data = await queryData<{
      down: Row & { asn0: { asn: string }; asn1: { asn: string } };
      up: Row & { asn0: { asn: string }; asn1: { asn: string } };
      links: { edges: { node: { asn0: { asn: string }; asn1: { asn: string }; relationship: string } }[] };
    }>(
      store.handle,
      `{ down: asnLink(asn0: "${provider}", asn1: "${customer}") { relationship asn0 { asn } asn1 { asn } }
         up: asnLink(asn0: "${customer}", asn1: "${provider}") { relationship asn0 { asn } asn1 { asn } }
         links: asnLinks(asn: "${customer}", first: 10000) { edges { node { relationship asn0 { asn } asn1 { asn } } } } }`,
    );
    expect(data.down).toEqual({ relationship: 'customer', asn0: { asn: provider }, asn1: { asn: customer } });
    expect(data.up).toEqual({ relationship: 'provider', asn0: { asn: customer }, asn1: { asn: provider } });
    expect(new Set(data.links.edges.map((edge) => edge.node.asn0.asn))).toEqual(new Set([customer]));
    expect(data.links.edges.find((edge) => edge.node.asn1.asn === provider)?.node.relationship).toBe(
      'provider',
    );
  });

  it('asnLinks with asns lists the links of those ASNs, and with asn only those towards asns', async () => {
    const [a, b] = asnRows.filter((row) => Number(row.degree_total) > 2).map((row) => Number(row.asn));
    const links = await store.handle.db
      .selectFrom('asn_links')
      .select(['asn0', 'asn1'])
      .where('date', '=', latest)
      .execute();
    const data = await queryData<{
      several: { totalCount: number; edges: { node: { asn0: { asn: string } } }[] };
      towards: { totalCount: number };
    }>(
      store.handle,
      `{ several: asnLinks(asns: ["${a}", "${b}"], first: 10000) { totalCount edges { node { asn0 { asn } } } }
         towards: asnLinks(asn: "${a}", asns: ["${b}"]) { totalCount } }`,
    );
    expect(data.several.totalCount).toBe(
      links.filter((link) => Number(link.asn0) === a || Number(link.asn0) === b).length,
    );
    expect(new Set(data.several.edges.map((edge) => edge.node.asn0.asn))).toEqual(
      new Set([String(a), String(b)]),
    );
    expect(data.towards.totalCount).toBe(
      links.filter((link) => Number(link.asn0) === a && Number(link.asn1) === b).length,
    );
  });

  it('gives null, not an error, for an unknown ASN, organization, link, cone or month', async () => {
    const linked = new Set(
      (
        await store.handle.db
          .selectFrom('asn_links')
          .select(['asn0', 'asn1'])
          .where('date', '=', latest)
          .execute()
      ).map((link) => `${link.asn0}-${link.asn1}`),
    );
    const [a, b] = asnRows
      .map((row) => Number(row.asn))
      .filter((x, _i, all) => all.some((y) => y !== x && !linked.has(`${x}-${y}`)));
    const other = asnRows.map((row) => Number(row.asn)).find((y) => y !== a && !linked.has(`${a}-${y}`)) ?? b;
    const result = await runQuery(
      store.handle,
      `{ asn(asn: "4294967295") { asn } organization(orgId: "NO-SUCH-ORG") { orgId } asnLink(asn0: "${a}", asn1: "${other}") { relationship }
         asnCone(asn: "4294967295") { date } dataset(date: "19990101") { date } old: asn(asn: "${a}", date: "1999-01-01") { asn } }`,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      asn: null,
      organization: null,
      asnLink: null,
      asnCone: null,
      dataset: null,
      old: null,
    });
  });

  it('rejects bad arguments with a message naming the argument and what is allowed', async () => {
    const cases: [string, RegExp][] = [
      [
        '{ asns(dateStart: "2024-13-01") { totalCount } }',
        /^dateStart must be a real calendar date written YYYY-MM-DD or YYYYMMDD/,
      ],
      [
        '{ asns(dateEnd: "yesterday") { totalCount } }',
        /^dateEnd must be a date written YYYY-MM-DD or YYYYMMDD/,
      ],
      [
        '{ asns(dateStart: "2024-03-01", dateEnd: "2024-01-01") { totalCount } }',
        /^dateStart \(2024-03-01\) must not be after dateEnd/,
      ],
      [
        '{ asns(sort: "bogus") { totalCount } }',
        /^sort key "bogus" is not sortable for asns; allowed keys: asn, asnName, rank/,
      ],
      ['{ asns(sort: "date") { totalCount } }', /^sort key "date" needs a query over several months/],
      [
        '{ organizations(sort: "asnName") { totalCount } }',
        /^sort key "asnName" is not sortable for organizations; allowed keys: orgId/,
      ],
      [
        '{ asnLinks(sort: "rank") { totalCount } }',
        /^sort key "rank" is not sortable for asnLinks; allowed keys: asn0, asn1, numberPaths, relationship, correctedBy/,
      ],
      ['{ locations(sort: "-city,") { totalCount } }', /^sort has an empty key/],
      ['{ asns(first: 10001) { totalCount } }', /^first must be a whole number from 0 to 10000; got "10001"/],
      ['{ asns(offset: -1) { totalCount } }', /^offset must be a whole number >= 0; got "-1"/],
      [
        '{ asn(asn: "12a") { asn } }',
        /^asn must be an ASN written as decimal digits \(0 to 4294967295\); got "12a"/,
      ],
      ['{ asn(asn: "4294967296") { asn } }', /^asn must be an ASN written as decimal digits/],
      // A long input is cut short in the message.
      [`{ asn(asn: "${'1'.repeat(5000)}") { asn } }`, /; got "1{61}\.\.\."$/],
      ['{ asnLink(asn0: "AS1", asn1: "2") { date } }', /^asn0 must be an ASN/],
      ['{ asns(asns: ["1", "x"]) { totalCount } }', /^asns must be an ASN/],
      ['{ asn(asn: "1", date: "2024-02-30") { asn } }', /^date must be a real calendar date/],
      ['{ asnCone(asn: "1", dates: ["2024"]) { date } }', /^dates must be a date written/],
    ];
    const known = String(asnRows[0]!.asn);
    cases.push([
      `{ asn(asn: "${known}") { asnLinks(first: 20000) { totalCount } } }`,
      /^first must be a whole number from 0 to 10000/,
    ]);
    cases.push([
      `{ asn(asn: "${known}") { asnLinks(sort: "numberPaths,asnName") { totalCount } } }`,
      /^sort key "asnName" is not sortable for asnLinks/,
    ]);
    for (const [query, message] of cases) {
      const result = await runQuery(store.handle, query);
      expect({ query, message: result.errors?.[0]?.message }).toEqual({
        query,
        message: expect.stringMatching(message),
      });
      expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    expect(await queryError(store.handle, '{ asn { asn } }')).toMatch(
      /argument "asn" of type "String!" is required/,
    );
  });
});

describe('errors that are not the client’s fault', () => {
  it('are reported without SQL text or stack, naming only the field', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asrank-schema-empty-'));
    // A database without tables: every query fails inside the driver.
    const handle = openDatabase(path.join(dir, 'empty.db'));
    try {
      const result = await graphql({
        schema: createSchema(),
        source: '{ asns { totalCount } }',
        contextValue: createContext(handle),
      });
      expect(result.errors?.map((error) => error.message)).toEqual([
        'internal error while resolving Query.asns',
      ]);
      expect(result.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
      expect(JSON.stringify(result.errors)).not.toMatch(/select|no such table|at /i);
    } finally {
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
