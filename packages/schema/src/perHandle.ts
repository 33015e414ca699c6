// State kept per database handle (a Kysely instance, or any object standing for one): caches that live and die with
// the handle, so a test's fresh handle starts empty and a closed one lets its caches go.

/** `create`'s value for a handle, made on the handle's first use and kept in a WeakMap by it. */
export function perHandle<Handle extends object, Kept extends object>(
  create: () => Kept,
): (handle: Handle) => Kept {
  const keptByHandle = new WeakMap<Handle, Kept>();
  return (handle) => keptByHandle.get(handle) ?? keep(keptByHandle, handle, create());
}

/**
 * Keeps `value` in `map` under `key` and returns it: `map.get(key) ?? keep(map, key, make())` makes a value on first
 * use without a closure per call (the record specs are found on every point lookup). For values never null.
 */
export function keep<Key extends object, Value>(map: WeakMap<Key, Value>, key: Key, value: Value): Value {
  map.set(key, value);
  return value;
}
