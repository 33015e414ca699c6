// patches/graphql-jit@0.8.9.patch changes the code graphql-jit generates for leaves (a hoisted handler per leaf, the
// error's locations and path built only on error), for list items (no callbacks for an item that is no promise) and
// for fields whose resolver only reads its parent (`jitReadsProperty`, `jitReadsParent`: read inline, not called).
// Through the graphql-jit Mercurius runs, answers must stay exactly graphql-js's: data, and each error's message,
// locations and path, for null and Error leaves, serializers that refuse, nested lists and lists of promises.
// (The patch's other addition, a compiled query's operationName and variablesAreValid, is Mercurius' patch's: see
// mercurius-patch.test.ts.)
import { buildSchema, execute, parse, type ExecutionResult, type GraphQLObjectType } from 'graphql';
import { leafSerializers } from '../src/leaf-serializers';

// The same graphql-jit Mercurius runs: one version, patched, in the workspace (a dev dependency here for this test).
import { compileQuery, isCompiledQuery } from 'graphql-jit';

const schema = buildSchema(`
  type Leafy { s: String! n: Int! ns: String nn: Int children: [Leafy!] loose: [Leafy] }
  type Query { items: [Leafy] strict: [Leafy!] promised: [Leafy] one: Leafy! }
`);

const good = (index: number) => ({ s: `s${index}`, n: index, ns: `ns${index}`, nn: -index });
// One error in a list of non-null items: graphql-js stops at the first one that nulls the list, graphql-jit goes on and
// reports the next as well (its own behaviour, patched or not). Items of a nullable list fail one by one in both.
const children = [good(10), { ...good(11), s: null }, good(13)];
const loose = [good(14), { ...good(15), s: null }, { ...good(16), n: 2 ** 40 }, null, good(17)];
const items = [
  { ...good(0), children: [good(1), good(2)], loose: [good(3), null] },
  { ...good(4), s: null },
  { ...good(5), n: 'five' },
  { ...good(6), ns: new Error('ns failed') },
  { ...good(7), nn: 1.5 },
  { ...good(8), n: new Error('n failed') },
  { ...good(9), children, loose },
  null,
];
const root = {
  items,
  strict: [good(20), { ...good(21), nn: 'x' }],
  // Promises as the list's items (graphql-jit, unlike graphql-js, calls no function found on a root object).
  promised: items.map((item) => Promise.resolve(item)),
  one: good(30),
};

/** Errors in a stable order, as plain JSON (graphql-jit and graphql-js may push them in different orders). */
function normalized(result: ExecutionResult) {
  const plain = JSON.parse(JSON.stringify(result)) as { data?: unknown; errors?: { path?: unknown[] }[] };
  plain.errors?.sort((a, b) => JSON.stringify(a.path).localeCompare(JSON.stringify(b.path)));
  return plain;
}

describe('graphql-jit as patched', () => {
  it.each([
    ['leaves of every kind in a nullable list', '{ items { s n ns nn } }'],
    ['nested lists, errors two indexes deep', '{ items { s children { s n nn } loose { n ns } } }'],
    ['a list of promises', '{ promised { s n ns nn children { n } } }'],
    ['a list of non-null items whose error nulls the list', '{ strict { s nn } one { s n } }'],
    ['aliases', '{ a: items { x: s y: n } b: one { n } }'],
  ])('answers %s as graphql-js does', async (_label, query) => {
    const document = parse(query);
    const compiled = compileQuery(schema, document, undefined, { customSerializers: leafSerializers });
    if (!isCompiledQuery(compiled)) throw new Error(`not compiled: ${JSON.stringify(compiled)}`);
    const expected = normalized(await execute({ schema, document, rootValue: root }));
    const actual = normalized(await compiled.query(root, {}, {}));
    expect(actual).toEqual(expected);
    // The cases are built to fail somewhere: an answer without errors would test nothing of the error paths.
    expect(expected.errors?.length ?? 0).toBeGreaterThan(0);
  });

  it('generates a handler per leaf instead of passing every leaf its error path', () => {
    const compiled = compileQuery(schema, parse('{ items { s n } }'), undefined, {
      debug: true,
    } as Parameters<typeof compileQuery>[3]) as {
      __DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation?: string;
    };
    const source = compiled.__DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation ?? '';
    expect(source).toContain('LeafHandler(__context, __currentItem.s');
    expect(source).not.toContain('checkNonNullLeaf(');
  });

  describe('fields whose resolver only reads the parent', () => {
    // Record: a row with a column under another name (`value_column`), shown as `value`, and its `stats` as the row
    // itself; `loose` names a property that is no plain identifier, so its resolver must still be called.
    const readingSchema = buildSchema(`
      type Stats { size: Int! label: String }
      type Record { value: String! maybe: Int stats: Stats! loose: String }
      type Query { records: [Record] }
    `);
    const calls = new Map<string, number>();
    function reads(typeName: string, fieldName: string, read: (parent: Record<string, unknown>) => unknown) {
      const field = (readingSchema.getType(typeName) as GraphQLObjectType).getFields()[fieldName]!;
      field.resolve = (parent: Record<string, unknown>) => {
        calls.set(`${typeName}.${fieldName}`, (calls.get(`${typeName}.${fieldName}`) ?? 0) + 1);
        return read(parent);
      };
      return field;
    }
    reads('Record', 'value', (row) => row.value_column).extensions = { jitReadsProperty: 'value_column' };
    reads('Record', 'maybe', (row) => row.maybe_column).extensions = { jitReadsProperty: 'maybe_column' };
    reads('Record', 'stats', (row) => row).extensions = { jitReadsParent: true };
    reads('Stats', 'size', (row) => row.size_column).extensions = { jitReadsProperty: 'size_column' };
    reads('Record', 'loose', (row) => row['loose-column']).extensions = { jitReadsProperty: 'loose-column' };
    const records = [
      { value_column: 'a', maybe_column: 1, size_column: 10, label: 'ten', 'loose-column': 'x' },
      { value_column: 'b', maybe_column: null, size_column: 20, label: null, 'loose-column': null },
      // Errors in fields read inline: their paths and messages must stay graphql-js's. One a record, since
      // graphql-jit reports every error of a record that a non-null field nulls, graphql-js only the first.
      { value_column: null, maybe_column: 3, size_column: 30, label: 'c' },
      { value_column: 'd', maybe_column: 'not a number', size_column: 40, label: 'd' },
      { value_column: 'e', maybe_column: 5, size_column: null, label: 'e' },
      null,
    ];
    const query = '{ records { value maybe stats { size label } loose } more: records { again: value } }';

    it('answers as graphql-js does, errors included', async () => {
      const document = parse(query);
      const compiled = compileQuery(readingSchema, document, undefined, {
        customSerializers: leafSerializers,
      });
      if (!isCompiledQuery(compiled)) throw new Error(`not compiled: ${JSON.stringify(compiled)}`);
      const expected = normalized(await execute({ schema: readingSchema, document, rootValue: { records } }));
      const actual = normalized(await compiled.query({ records }, {}, {}));
      expect(actual).toEqual(expected);
      expect(expected.errors?.length ?? 0).toBeGreaterThan(0);
    });

    it('reads them inline instead of calling their resolvers, except a property that is no plain name', async () => {
      const compiled = compileQuery(readingSchema, parse(query), undefined, {
        customSerializers: leafSerializers,
      });
      if (!isCompiledQuery(compiled)) throw new Error(`not compiled: ${JSON.stringify(compiled)}`);
      calls.clear();
      await compiled.query({ records }, {}, {});
      // Five records (and a null), shown twice, with `loose` once: only that resolver ran.
      expect(Object.fromEntries(calls)).toEqual({ 'Record.loose': 5 });
    });
  });
});
