// State kept per database handle (a Kysely instance, or any object standing for one): caches that live and die with
// the handle, so a test's fresh handle starts empty and a closed one lets its caches go.

/** `create`'s value for a handle, made on the handle's first use and kept in a WeakMap by it. */
export function perHandle<Handle extends object, Kept>(create: () => Kept): (handle: Handle) => Kept {
  const keptByHandle = new WeakMap<Handle, Kept>();
  return (handle) => {
    let kept = keptByHandle.get(handle);
    if (kept === undefined) {
      kept = create();
      keptByHandle.set(handle, kept);
    }
    return kept;
  };
}
