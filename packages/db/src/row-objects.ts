// Row objects built here from a statement's rows read as arrays, for the service's hottest statements on both stores.
// - better-sqlite3 builds each row object property by property in C++, slow for wide rows (an `asns` row has 25
//   columns): 500 such rows took 6.6-7.5 ms as objects and 3.0 ms as arrays plus this loop (W3's 500 neighbours).
// - pg gives every result's rows a hidden class of their own: it clones them from a template built anew per result
//   from a null-prototype object, which no transition tree shares. Every property access in the resolvers then meets
//   a class it has not seen, and adding one to such a row (a link's filed asn1 record) cost ~2 µs: 1.0 ms of W3's
//   500 rows against 0.16 ms on objects built here (docs/performance.md, twenty-sixth round).
// A builder is an object literal compiled once per column list (as graphql-jit compiles a query): one store site per
// column, so every row of the list is made like a literal, of one hidden class from request to request. A loop of
// keyed stores (`row[names[i]] = values[i]`) took 187-192 µs for W3's 500 rows of ten columns, the literal 28-32.

/** Builders by column list; the lists are the service's statement shapes, so few. */
const buildersByColumns = new Map<string, (values: readonly unknown[]) => Record<string, unknown>>();
const MAX_BUILDERS = 1000;

/** Each name's last position: a repeated column keeps its last value, at the place of its first, as an object would. */
function lastPositions(names: readonly string[]): Map<string, number> {
  const positions = new Map<string, number>();
  names.forEach((name, index) => positions.set(name, index));
  return positions;
}

function compileBuilder(names: readonly string[]): (values: readonly unknown[]) => Record<string, unknown> {
  const positions = lastPositions(names);
  // A `__proto__` key in a literal would set the prototype: such a list (no statement of ours has one) defines its
  // properties one by one instead.
  if (positions.has('__proto__')) {
    return (values) => {
      const row: Record<string, unknown> = {};
      for (const [name, index] of positions)
        Object.defineProperty(row, name, {
          value: values[index],
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return row;
    };
  }
  const members = [...positions].map(([name, index]) => `${JSON.stringify(name)}: values[${index}]`);
  // The names are quoted by JSON.stringify; the code is ours.
  return new Function('values', `return { ${members.join(', ')} };`) as (
    values: readonly unknown[],
  ) => Record<string, unknown>;
}

/** A builder of row objects from arrays of values in `names`' order; a repeated name keeps its last value. */
export function rowObjectBuilder(
  names: readonly string[],
): (values: readonly unknown[]) => Record<string, unknown> {
  const key = JSON.stringify(names);
  let builder = buildersByColumns.get(key);
  if (!builder) {
    builder = compileBuilder(names);
    if (buildersByColumns.size < MAX_BUILDERS) buildersByColumns.set(key, builder);
  }
  return builder;
}
