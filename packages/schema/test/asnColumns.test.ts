// Neighbour records read only the columns their selection needs (asnColumns.ts). Every field of the Asn type, asked
// alone and all together (through fragments too), must answer exactly what it answers from whole rows, and the
// neighbour query must really read fewer columns.
import {
  execute,
  graphql,
  isObjectType,
  getNamedType,
  isLeafType,
  parse,
  print,
  type ExecutionResult,
} from 'graphql';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely';
import { createContext, createSchema } from '../src';
import { asnColumnTuning } from '../src/asnColumns';
import { busiestAsns, STORE_KINDS, openLoadedStore, type LoadedStore } from './support/store';

/** A table in FROM or JOIN, bare or aliased (`asns as a`). */
interface TableOrAlias {
  kind?: string;
  table?: { identifier?: { name?: string } };
  node?: TableOrAlias;
  parameters?: TableOrAlias[];
  from?: { froms: TableOrAlias[] };
}

/** The table's name; a table read by its primary key (sql.ts `byPrimaryKey`) is raw SQL naming it, under an alias. */
const tableName = (entry: TableOrAlias | undefined): string | undefined => {
  if (!entry) return undefined;
  if (entry.kind === 'RawNode') {
    for (const parameter of entry.parameters ?? []) {
      const name = tableName(parameter);
      if (name) return name;
    }
    return undefined;
  }
  return entry.table?.identifier?.name ?? tableName(entry.node);
};

/** The table a join reads: a table, or the one table of a subquery (a lateral lookup of asn1, on PostgreSQL). */
const joinedTableName = (entry: TableOrAlias | undefined): string | undefined =>
  tableName(entry) ??
  (entry?.node?.kind === 'SelectQueryNode' ? tableName(entry.node.from?.froms[0]) : undefined);

interface SelectNode {
  kind: string;
  from?: { froms: TableOrAlias[] };
  joins?: { table: TableOrAlias }[];
  selections?: {
    selection: {
      kind: string;
      column?: { kind: string; column?: { name?: string } };
      alias?: { name?: string };
    };
  }[];
}

/**
 * Records the selections of every query on `table` (asns unless given): '*' for whole rows, else the column names. A
 * query that joins `asns` to a page of links (asn1's record read with the link) is recorded as 'joined:' plus the
 * joined columns.
 */
class AsnSelections implements KyselyPlugin {
  constructor(private readonly table = 'asns') {}
  readonly seen: string[][] = [];
  /** The joined tables of each recorded query on `asns`. */
  readonly joinedTables: string[][] = [];
  /** The organization columns each recorded query on `asns` reads with its rows (joinedOrganization.ts). */
  readonly joinedOrganizationColumns: string[][] = [];
  transformQuery({ node }: PluginTransformQueryArgs) {
    const select = node as unknown as SelectNode;
    if (select.kind !== 'SelectQueryNode') return node;
    const selections = select.selections ?? [];
    if (tableName(select.from?.froms[0]) === this.table) {
      this.joinedTables.push((select.joins ?? []).map((join) => tableName(join.table) ?? '?'));
      this.joinedOrganizationColumns.push(
        selections
          .map((entry) => entry.selection.alias?.name)
          .filter((alias): alias is string => alias?.startsWith('org__') === true)
          .map((alias) => alias.slice('org__'.length))
          .sort(),
      );
      this.seen.push(
        // Aliased selections are a joined table's columns (an organization read with the ASN).
        selections
          .filter((entry) => entry.selection.kind !== 'AliasNode')
          .map((entry) =>
            entry.selection.kind === 'SelectAllNode' || entry.selection.column?.kind === 'SelectAllNode'
              ? '*'
              : (entry.selection.column?.column?.name ?? '?'),
          ),
      );
    } else if (select.joins?.some((join) => joinedTableName(join.table) === 'asns')) {
      const joined = selections
        .map((entry) => entry.selection.alias?.name)
        .filter((alias): alias is string => alias?.startsWith('asn1__') === true);
      this.seen.push(['joined:', ...joined.map((alias) => alias.slice('asn1__'.length))]);
    }
    return node;
  }
  async transformResult({ result }: PluginTransformResultArgs) {
    return result;
  }
}

const schema = createSchema();

/**
 * A selection of one field of `typeName` (Asn unless given): leaves as is, objects with their leaf fields, an ASN's
 * asnLinks with a small page.
 */
function selectionOf(fieldName: string, typeName = 'Asn'): string {
  if (typeName === 'Asn' && fieldName === 'asnLinks')
    return 'asnLinks(first: 3) { totalCount edges { node { asn1 { asn } } } }';
  const recordType = schema.getType(typeName);
  if (!isObjectType(recordType)) throw new Error(`${typeName} is not an object type`);
  const fieldType = getNamedType(recordType.getFields()[fieldName]!.type);
  if (isLeafType(fieldType)) return fieldName;
  if (!isObjectType(fieldType)) throw new Error(`unexpected type of ${typeName}.${fieldName}`);
  const leaves = Object.values(fieldType.getFields())
    .filter((field) => isLeafType(getNamedType(field.type)) && field.args.length === 0)
    .map((field) => field.name);
  return `${fieldName} { ${leaves.join(' ')} }`;
}

describe.each(STORE_KINDS)('pruned ASN columns on %s', (kind) => {
  let store: LoadedStore;
  let neighbourOf: string;

  beforeAll(async () => {
    store = await openLoadedStore(kind);
    const latest = store.dates.at(-1)!;
    const [row] = await busiestAsns(store.handle, latest, 1);
    neighbourOf = String(row!.asn);
  }, 120_000);

  afterAll(async () => {
    asnColumnTuning.prune = true;
    await store?.close();
  });

  async function run(source: string, prune: boolean, plugin?: AsnSelections): Promise<ExecutionResult> {
    asnColumnTuning.prune = prune;
    const handle = plugin ? { ...store.handle, db: store.handle.db.withPlugin(plugin) } : store.handle;
    try {
      return await graphql({ schema, source, contextValue: createContext(handle) });
    } finally {
      asnColumnTuning.prune = true;
    }
  }

  const neighbours = (selection: string, extra = '') =>
    `{ asnLinks(asn: "${neighbourOf}", first: 40) { edges { node { asn0 { asn } asn1 { ${selection} } } } } } ${extra}`;

  const asnType = schema.getType('Asn');
  const fieldNames = isObjectType(asnType) ? Object.keys(asnType.getFields()) : [];

  it.each(fieldNames)('answers Asn.%s from pruned rows exactly as from whole rows', async (fieldName) => {
    const source = neighbours(`asn ${selectionOf(fieldName)}`);
    const pruned = await run(source, true);
    expect(pruned.errors).toBeUndefined();
    expect(pruned).toEqual(await run(source, false));
    const edges = (pruned.data as { asnLinks: { edges: unknown[] } }).asnLinks.edges;
    expect(edges.length).toBeGreaterThan(0);
  });

  const subFieldsOf = (typeName: string, fieldName: string) => {
    const recordType = schema.getType(typeName);
    const fieldType = isObjectType(recordType) ? getNamedType(recordType.getFields()[fieldName]!.type) : null;
    return isObjectType(fieldType) ? Object.keys(fieldType.getFields()) : [];
  };
  const statsFields = ['cone', 'asnDegree', 'announcing'].flatMap((field) =>
    subFieldsOf('Asn', field).map((subField) => [field, subField] as const),
  );

  it.each(statsFields)(
    'answers Asn.%s.%s alone from the one column it reads, exactly as from whole rows',
    async (field, subField) => {
      const source = neighbours(`asn ${field} { ${subField} }`);
      const recorder = new AsnSelections();
      const pruned = await run(source, true, recorder);
      expect(pruned.errors).toBeUndefined();
      expect(pruned).toEqual(await run(source, false));
      // The neighbours' page joins asn1's columns: key columns and the one column of the sub-field.
      const joined = recorder.seen.filter((columns) => columns[0] === 'joined:');
      expect(joined).toHaveLength(1);
      expect(joined[0]!.slice(1).filter((column) => !['asn', 'date'].includes(column))).toHaveLength(1);
    },
  );

  it('answers every field at once, through a named and an inline fragment', async () => {
    const all = fieldNames.map((name) => selectionOf(name));
    const half = Math.ceil(all.length / 2);
    const source = neighbours(
      `...Front ... on Asn { ${all.slice(half).join(' ')} }`,
      `fragment Front on Asn { ${all.slice(0, half).join(' ')} }`,
    );
    const pruned = await run(source, true);
    expect(pruned.errors).toBeUndefined();
    expect(pruned).toEqual(await run(source, false));
  });

  it.each([
    ['the default rank order', 'first: 30'],
    ['a sorted deep page', 'first: 30, offset: 5, sort: "-cone.numberAsns"'],
    ['a name filter', 'first: 30, name: "a", sort: "asnName"'],
    [
      'an ASN list over every month',
      'first: 60, asns: ["1", "2", "3", "174", "3356"], dateStart: "2000-01-01"',
    ],
    [
      'an ASN list over the last two months, in rank order',
      'first: 60, asns: ["1", "2", "3", "174", "3356"], dateStart: "2024-02-01", dateEnd: "2024-03-31", sort: "rank"',
    ],
    [
      'a page of an ASN list over every month, from an offset, in a client sort',
      'first: 7, offset: 4, asns: ["1", "2", "3", "174", "3356"], dateStart: "2000-01-01", sort: "-cone.numberAsns"',
    ],
    [
      'a page of an ASN list in the latest month, from an offset, by name',
      'first: 3, offset: 1, asns: ["3356", "174", "3", "2", "1"], sort: "asnName"',
    ],
  ])('answers root asns (%s) with every field from pruned rows as from whole rows', async (_label, args) => {
    const all = fieldNames.map((name) => selectionOf(name));
    const source = `{ asns(${args}) { totalCount edges { cursor node { ...Front ... on Asn { ${all
      .slice(8)
      .join(' ')} } } } } } fragment Front on Asn { ${all.slice(0, 8).join(' ')} }`;
    const pruned = await run(source, true);
    expect(pruned.errors).toBeUndefined();
    expect(pruned).toEqual(await run(source, false));
    const narrow = `{ asns(${args}) { edges { node { asn rank cone { numberAsns } } } } }`;
    const recorder = new AsnSelections();
    const narrowPruned = await run(narrow, true, recorder);
    expect(narrowPruned).toEqual(await run(narrow, false));
    expect(recorder.seen.length).toBeGreaterThan(0);
    expect(recorder.seen.some((columns) => columns.includes('*'))).toBe(false);
  });

  it.each([
    ['the default rank order', (asn: string) => `asn: "${asn}", first: 25`],
    [
      'a sorted deep page',
      (asn: string) => `asn: "${asn}", first: 25, offset: 3, sort: "-numberPaths,relationship"`,
    ],
    ['every month', (asn: string) => `asn: "${asn}", first: 60, dateStart: "2000-01-01", sort: "asn1"`],
    ['the links of an ASN list', (asn: string) => `asns: ["${asn}", "174", "3356"], first: 40`],
  ])(
    'answers root asnLinks (%s) with asn1 read with the links exactly as through the loader',
    async (_label, args) => {
      const all = fieldNames.map((name) => selectionOf(name));
      const source = `{ asnLinks(${args(neighbourOf)}) { edges { node { date asn0 { asn } rank
        asn1 { ...Front } other: asn1 { asn ... on Asn { ${all.slice(8).join(' ')} } } } } } }
        fragment Front on Asn { ${all.slice(0, 8).join(' ')} }`;
      const recorder = new AsnSelections();
      const joined = await run(source, true, recorder);
      expect(joined.errors).toBeUndefined();
      expect(joined).toEqual(await run(source, false));
      expect((joined.data as { asnLinks: { edges: unknown[] } }).asnLinks.edges.length).toBeGreaterThan(0);
      expect(recorder.seen.some((columns) => columns[0] === 'joined:')).toBe(true);
    },
  );

  it('answers cone members (asnCone, asnConesStream) with every field from pruned rows as from whole rows', async () => {
    const all = fieldNames
      .filter((name) => name !== 'asnLinks')
      .map((name) => selectionOf(name))
      .join(' ');
    for (const source of [
      `{ asnCone(asn: "${neighbourOf}") { asns(first: 30) { edges { node { ${all} } } } } }`,
      `{ asnConesStream(asns: ["${neighbourOf}"], first: 30) { pages { asn { ${all} } asns { ${all} } } } }`,
      `{ asnConesStream(asns: ["${neighbourOf}"], first: 30) { pages { asns { asn rank } } } }`,
    ]) {
      const pruned = await run(source, true);
      expect(pruned.errors).toBeUndefined();
      expect(pruned).toEqual(await run(source, false));
    }
  });

  it("answers organizations' member pages with every field from pruned rows as from whole rows", async () => {
    const all = fieldNames
      .filter((name) => name !== 'asnLinks')
      .map((name) => selectionOf(name))
      .join(' ');
    const members = (nodes: string, args: string) =>
      `{ organizations(first: 60) { edges { node { orgId members { asns(${args}) {
        totalCount edges { node { ${nodes} } } } } } } } }`;
    for (const args of [
      'first: 3',
      'first: 2, offset: 1, sort: "-cone.numberAsns"',
      'first: 4, sort: "asnName"',
    ])
      for (const nodes of [all, 'asn', 'asnName rank']) {
        const source = members(nodes, args);
        const selections = new AsnSelections();
        const pruned = await run(source, true, selections);
        expect(pruned.errors).toBeUndefined();
        expect([source, pruned]).toEqual([source, await run(source, false)]);
        // The members' statement reads named columns, not whole rows.
        expect([source, selections.seen.filter((columns) => columns.includes('*'))]).toEqual([source, []]);
      }
  });

  it('answers root asn with every field from pruned rows as from whole rows', async () => {
    const source = `{ asn(asn: "${neighbourOf}") { ${fieldNames.map((name) => selectionOf(name)).join(' ')} } }`;
    const pruned = await run(source, true);
    expect(pruned.errors).toBeUndefined();
    expect((pruned.data as { asn: unknown }).asn).not.toBeNull();
    expect(pruned).toEqual(await run(source, false));
  });

  const organizationType = schema.getType('Organization');
  const organizationFields = isObjectType(organizationType) ? Object.keys(organizationType.getFields()) : [];

  it.each(organizationFields)(
    'answers Organization.%s of listed and looked-up ASNs from pruned rows exactly as from whole rows',
    async (fieldName) => {
      const selection = `orgId ${selectionOf(fieldName, 'Organization')}`;
      for (const source of [
        `{ asns(first: 30) { edges { node { asn organization { ${selection} } } } } }`,
        `{ asn(asn: "${neighbourOf}") { asn organization { ${selection} } } }`,
      ]) {
        const pruned = await run(source, true);
        expect(pruned.errors).toBeUndefined();
        expect(pruned).toEqual(await run(source, false));
      }
    },
  );

  it.each(
    ['cone', 'asnDegree', 'orgDegree'].flatMap((field) =>
      subFieldsOf('Organization', field).map((subField) => [field, subField] as const),
    ),
  )(
    'answers Organization.%s.%s alone of listed and looked-up ASNs exactly as from whole rows',
    async (field, subField) => {
      for (const source of [
        `{ asns(first: 30) { edges { node { asn organization { orgId ${field} { ${subField} } } } } } }`,
        `{ asn(asn: "${neighbourOf}") { asn organization { ${field} { ${subField} } } } }`,
      ]) {
        const pruned = await run(source, true);
        expect(pruned.errors).toBeUndefined();
        expect(pruned).toEqual(await run(source, false));
      }
    },
  );

  it.each([
    ['the default rank order', 'first: 30'],
    ['a sorted deep page', 'first: 30, offset: 5, sort: "-cone.numberAsns"'],
  ])(
    "answers the organizations' ids and names of a page of ASNs (%s) from its rows' copies, whole rows when pruning is off",
    async (_label, args) => {
      const source = `{ asns(${args}) { edges { node { asn organization { orgId orgName } } } } }`;
      const page = new AsnSelections();
      const organizations = new AsnSelections('organizations');
      const joined = await run(source, true, page);
      await run(source, true, organizations);
      expect(joined.errors).toBeUndefined();
      expect(joined).toEqual(await run(source, false));
      const nodes = (joined.data as { asns: { edges: { node: { organization: unknown } }[] } }).asns.edges;
      expect(nodes.filter((edge) => edge.node.organization !== null).length).toBeGreaterThan(0);
      // The page's rows carry their organizations' ids and names (the copies of migration 012): no join, and no
      // organization is read on its own.
      expect(page.joinedTables.filter((tables) => tables.includes('organizations'))).toEqual([]);
      expect(page.joinedOrganizationColumns.filter((columns) => columns.length > 0)).toEqual([]);
      // On PostgreSQL a descending order's page also reads its index's own column, which no narrower index holds
      // (orderIndexCarries), so that index alone can serve the page.
      const ownColumn = kind === 'postgres' && args.includes('sort: "-cone.numberAsns"') ? ['rank'] : [];
      expect(page.seen.at(-1)).toEqual(['asn', 'date', 'org_id', 'org_name', ...ownColumn]);
      expect(organizations.seen).toEqual([]);
      const whole = new AsnSelections('organizations');
      await run(source, false, whole);
      expect(whole.seen).toEqual([['*']]);
    },
  );

  // Pages read from their order's index alone (migration 013) against whole rows read by key: shallow pages, pages
  // after a bookmark, and the default order's end, where its unranked ASNs follow the ranked ones.
  it.each([
    ['by customer cone', 'sort: "-cone.numberAsns"'],
    ['in the default order', 'sort: "rank"'],
  ])(
    'answers pages %s from the index that carries their columns exactly as from whole rows',
    async (_label, sort) => {
      const counted = await run('{ asns(first: 1) { totalCount } }', true);
      const total = (counted.data as { asns: { totalCount: number } }).asns.totalCount;
      expect(total).toBeGreaterThan(300);
      const unranked = await run('{ asns(first: 1, seen: false) { totalCount } }', true);
      expect((unranked.data as { asns: { totalCount: number } }).asns.totalCount).toBeGreaterThan(0);
      for (const offset of [0, 7, 130, 300, total - 15]) {
        const source = `{ asns(first: 25, offset: ${offset}, ${sort}) { edges { node { asn date asnName rank cone { numberAsns } organization { orgId orgName rank } country { iso } } } } }`;
        const pruned = await run(source, true);
        expect(pruned.errors).toBeUndefined();
        const edges = (pruned.data as { asns: { edges: unknown[] } }).asns.edges;
        expect(edges).toHaveLength(Math.min(25, total - offset));
        expect(pruned).toEqual(await run(source, false));
      }
    },
  );

  it('reads the organizations of a filtered page from its copies, or through the loader only the selected columns', async () => {
    const source = (organization: string) =>
      `{ asns(first: 30, name: "a", sort: "asnName") { edges { node { asn organization { ${organization} } } } } }`;
    for (const [organization, read] of [
      ['orgId orgName', []],
      ['orgId orgName country { iso }', [['country_iso', 'date', 'org_id', 'org_name']]],
    ] as const) {
      const organizations = new AsnSelections('organizations');
      const pruned = await run(source(organization), true, organizations);
      expect(pruned.errors).toBeUndefined();
      expect(pruned).toEqual(await run(source(organization), false));
      const nodes = (pruned.data as { asns: { edges: { node: { organization: unknown } }[] } }).asns.edges;
      expect(nodes.filter((edge) => edge.node.organization !== null).length).toBeGreaterThan(0);
      expect(organizations.seen.map((columns) => [...columns].sort())).toEqual(read);
    }
  });

  it('reads the organization of a point lookup and of a page in the same statement, also when it has none', async () => {
    const latest = store.dates.at(-1)!;
    const source = (asn: string) =>
      `{ asn(asn: "${asn}") { asn rank organization { orgId orgName rank country { iso } members { numberAsns } } } }`;
    const recorder = new AsnSelections();
    const joined = await run(source(neighbourOf), true, recorder);
    expect(joined.errors).toBeUndefined();
    expect((joined.data as { asn: { organization: unknown } }).asn.organization).not.toBeNull();
    expect(joined).toEqual(await run(source(neighbourOf), false));
    // The name's and rank's copies are read too (their sub-fields are selected), though the join answers them.
    expect(recorder.seen).toEqual([['asn', 'date', 'org_id', 'org_name', 'org_rank', 'rank']]);
    expect(recorder.joinedTables).toEqual([['organizations']]);
    // Only the organization's id, name and rank: read from the ASN's row (its copies), without the join.
    const copiedSource = (asn: string) =>
      `{ asn(asn: "${asn}") { asn rank organization { orgId orgName rank } } }`;
    const copiedRecorder = new AsnSelections();
    const copied = await run(copiedSource(neighbourOf), true, copiedRecorder);
    expect(copied.errors).toBeUndefined();
    expect((copied.data as { asn: { organization: { orgName: string } } }).asn.organization.orgName).not.toBe(
      '',
    );
    expect(copied).toEqual(await run(copiedSource(neighbourOf), false));
    expect(copiedRecorder.joinedTables).toEqual([[]]);
    expect(copiedRecorder.joinedOrganizationColumns).toEqual([[]]);
    expect(copiedRecorder.seen).toEqual([['asn', 'date', 'org_id', 'org_name', 'org_rank', 'rank']]);
    // An ASN whose organization is missing from the month, and one without any, answer null as the loader does. A
    // load leaves the organization's copies null then, and so does this change.
    const original = await store.handle.db
      .selectFrom('asns')
      .select(['org_id', 'org_name', 'org_rank'])
      .where('date', '=', latest)
      .where('asn', '=', Number(neighbourOf))
      .executeTakeFirstOrThrow();
    try {
      for (const orgId of ['no-such-organization', null]) {
        await store.handle.db
          .updateTable('asns')
          .set({ org_id: orgId, org_name: null, org_rank: null })
          .where('date', '=', latest)
          .where('asn', '=', Number(neighbourOf))
          .execute();
        for (const orphanSource of [source, copiedSource]) {
          const orphan = await run(orphanSource(neighbourOf), true);
          expect(orphan.errors).toBeUndefined();
          expect((orphan.data as { asn: { organization: unknown } }).asn.organization).toBeNull();
          expect(orphan).toEqual(await run(orphanSource(neighbourOf), false));
        }
        // The same in a page whose statement joins the organizations (the ASN has the largest degree).
        const page = `{ asns(first: 5, sort: "-asnDegree.total") { edges { node { asn organization { orgId orgName } } } } }`;
        const listed = await run(page, true);
        const edges = (listed.data as { asns: { edges: { node: { asn: string; organization: unknown } }[] } })
          .asns.edges;
        expect(edges.find((edge) => edge.node.asn === neighbourOf)?.node.organization).toBeNull();
        expect(listed).toEqual(await run(page, false));
      }
    } finally {
      await store.handle.db
        .updateTable('asns')
        .set(original)
        .where('date', '=', latest)
        .where('asn', '=', Number(neighbourOf))
        .execute();
    }
  });

  it('follows @include on one parsed document whose executions differ only by variables', async () => {
    // Column sets are remembered per field position of a document; @include may change them between executions.
    const document = parse(`query Vary($withRank: Boolean!) {
      asnLinks(asn: "${neighbourOf}", first: 40) { edges { node {
        asn1 { asn } asn1 @include(if: $withRank) { rank cone { numberAsns } }
      } } }
    }`);
    const runParsed = async (withRank: boolean, prune: boolean) => {
      asnColumnTuning.prune = prune;
      try {
        return await execute({
          schema,
          document,
          variableValues: { withRank },
          contextValue: createContext(store.handle),
        });
      } finally {
        asnColumnTuning.prune = true;
      }
    };
    for (const withRank of [false, true, false, true]) {
      const pruned = await runParsed(withRank, true);
      expect(pruned.errors).toBeUndefined();
      expect(pruned).toEqual(await runParsed(withRank, false));
    }
    const ranked = (await runParsed(true, true)).data as {
      asnLinks: { edges: { node: { asn1: { rank: number | null } } }[] };
    };
    expect(ranked.asnLinks.edges.some((edge) => typeof edge.node.asn1.rank === 'number')).toBe(true);
  });

  it('remembers the ASN and the organization columns of one root field apart, across executions of a document', async () => {
    // One root field position is asked for its nodes' Asn columns and for their organizations' columns; the answers
    // are remembered per position, so a second execution of the parsed document must get each set again, unmixed.
    const document = parse(
      '{ asns(first: 5, sort: "-asnDegree.total") { edges { node { asn rank organization { orgId orgName country { iso } } } } } }',
    );
    const recorders = [new AsnSelections(), new AsnSelections()];
    const results = [];
    for (const recorder of recorders) {
      const handle = { ...store.handle, db: store.handle.db.withPlugin(recorder) };
      results.push(await execute({ schema, document, contextValue: createContext(handle) }));
    }
    expect(results[0]!.errors).toBeUndefined();
    expect(results[1]).toEqual(results[0]);
    expect(results[0]).toEqual(await run(print(document), false));
    for (const recorder of recorders) {
      expect(recorder.seen.at(-1)).toEqual(['asn', 'date', 'org_id', 'org_name', 'rank']);
      expect(recorder.joinedOrganizationColumns.at(-1)).toEqual(['country_iso', 'org_id', 'org_name']);
    }
  });

  const linkType = schema.getType('AsnLink');
  const linkFields = isObjectType(linkType) ? Object.keys(linkType.getFields()) : [];

  it.each(linkFields)(
    'answers AsnLink.%s of a neighbour page from pruned link rows exactly as from whole rows',
    async (fieldName) => {
      const selection = selectionOf(fieldName, 'AsnLink');
      for (const source of [
        `{ asnLinks(asn: "${neighbourOf}", first: 25) { edges { node { ${selection} } } } }`,
        `{ asnLinks(asn: "${neighbourOf}", first: 25, sort: "-numberPaths") { edges { node { asn1 { asn } ${selection} } } } }`,
        `{ asnLinks(first: 25, dateStart: "2000-01-01", sort: "relationship") { edges { node { ${selection} } } } }`,
      ]) {
        const pruned = await run(source, true);
        expect(pruned.errors).toBeUndefined();
        expect((pruned.data as { asnLinks: { edges: unknown[] } }).asnLinks.edges.length).toBeGreaterThan(0);
        expect(pruned).toEqual(await run(source, false));
      }
    },
  );

  it('reads only the link columns a neighbour page shows and orders by, whole rows when pruning is off', async () => {
    const source = `{ asnLinks(asn: "${neighbourOf}", first: 25) { edges { node { relationship numberPaths } } } }`;
    const pruning = new AsnSelections('asn_links');
    expect(await run(source, true, pruning)).toEqual(await run(source, false));
    // The default order is rank, then the pair.
    expect(pruning.seen.map((columns) => [...columns].sort())).toEqual([
      ['asn0', 'asn1', 'date', 'number_paths', 'rank', 'relationship'],
    ]);
    const whole = new AsnSelections('asn_links');
    await run(source, false, whole);
    expect(whole.seen).toEqual([['*']]);
  });

  it('reads only the selected columns for the neighbours, whole rows when pruning is off', async () => {
    const pruning = new AsnSelections();
    await run(neighbours('asn asnName rank cone { numberAsns }'), true, pruning);
    // asn0 { asn } reads no record (the link holds its key); asn1 its name, rank and cone size in ASNs (not the
    // cone's other two columns), read with the link page.
    expect(pruning.seen.map((columns) => [...columns].sort())).toEqual([
      ['asn', 'asn_name', 'cone_asns', 'joined:', 'rank'],
    ]);
    expect(pruning.seen.some((columns) => columns.includes('*'))).toBe(false);
    const whole = new AsnSelections();
    await run(neighbours('asn asnName rank cone { numberAsns }'), false, whole);
    expect(whole.seen.every((columns) => columns.includes('*'))).toBe(true);
  });
});
