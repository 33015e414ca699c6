// Row objects built here from a statement's rows read as arrays, for the service's hottest statements on both stores.
// - better-sqlite3 builds each row object property by property in C++, slow for wide rows (an `asns` row has 25
//   columns): 500 such rows took 6.6-7.5 ms as objects and 3.0 ms as arrays plus this loop (W3's 500 neighbours).
// - pg gives every result's rows a hidden class of their own: it clones them from a template built anew per result
//   from a null-prototype object, which no transition tree shares. Every property access in the resolvers then meets
//   a class it has not seen, and adding one to such a row (a link's filed asn1 record) cost ~2 µs: 1.0 ms of W3's
//   500 rows against 0.16 ms on objects built here (docs/performance.md, twenty-sixth round). Objects built by
//   assigning the same names in the same order share one class from request to request.

/** A builder of row objects from arrays of values in `names`' order; a repeated name keeps its last value. */
export function rowObjectBuilder(
  names: readonly string[],
): (values: readonly unknown[]) => Record<string, unknown> {
  return (values) => {
    const row: Record<string, unknown> = {};
    for (let index = 0; index < names.length; index += 1) row[names[index]!] = values[index];
    return row;
  };
}
