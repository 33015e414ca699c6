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
const renamersByPairs = new Map<string, (source: Record<string, unknown>) => Record<string, unknown>>();
const MAX_BUILDERS = 1000;

/** Each name's last position: a repeated column keeps its last value, at the place of its first, as an object would. */
function lastPositions(names: readonly string[]): Map<string, number> {
  const positions = new Map<string, number>();
  names.forEach((name, index) => positions.set(name, index));
  return positions;
}

/**
 * A function making an object literal of `names` from its one parameter, `input`: `valueAt(index)` is the code that
 * reads the value of the name whose last position is `index`, and `read` reads it without code (the `__proto__` case).
 */
function compileLiteral<Input>(
  names: readonly string[],
  valueAt: (index: number) => string,
  read: (input: Input, index: number) => unknown,
): (input: Input) => Record<string, unknown> {
  const positions = lastPositions(names);
  // A `__proto__` key in a literal would set the prototype: such a list (no statement of ours has one) defines its
  // properties one by one instead.
  if (positions.has('__proto__')) {
    return (input) => {
      const row: Record<string, unknown> = {};
      for (const [name, index] of positions)
        Object.defineProperty(row, name, {
          value: read(input, index),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return row;
    };
  }
  const members = [...positions].map(([name, index]) => `${JSON.stringify(name)}: ${valueAt(index)}`);
  // The names are quoted by JSON.stringify; the code is ours.
  return new Function('input', `return { ${members.join(', ')} };`) as (
    input: Input,
  ) => Record<string, unknown>;
}

function cached<Builder>(cache: Map<string, Builder>, key: string, compile: () => Builder): Builder {
  let builder = cache.get(key);
  if (!builder) {
    builder = compile();
    if (cache.size < MAX_BUILDERS) cache.set(key, builder);
  }
  return builder;
}

/** A builder of row objects from arrays of values in `names`' order; a repeated name keeps its last value. */
export function rowObjectBuilder(
  names: readonly string[],
): (values: readonly unknown[]) => Record<string, unknown> {
  return cached(buildersByColumns, JSON.stringify(names), () =>
    compileLiteral<readonly unknown[]>(
      names,
      (index) => `input[${index}]`,
      (values, index) => values[index],
    ),
  );
}

/**
 * A builder of objects that copy another object's properties under new names (`[name, property]` pairs), such as a
 * joined record's columns out of its row (`asn1__rank` as `rank`). A loop of keyed stores took 33-39 µs for W3's 500
 * neighbours of five columns, the literal 7-10.
 */
export function renamingObjectBuilder(
  pairs: readonly (readonly [name: string, property: string])[],
): (source: Record<string, unknown>) => Record<string, unknown> {
  const properties = pairs.map(([, property]) => property);
  return cached(renamersByPairs, JSON.stringify(pairs), () =>
    compileLiteral<Record<string, unknown>>(
      pairs.map(([name]) => name),
      (index) => `input[${JSON.stringify(properties[index])}]`,
      (source, index) => source[properties[index]!],
    ),
  );
}
