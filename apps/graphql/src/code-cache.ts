// Runs the bundled service (a CommonJS file) through a V8 code cache of the functions it compiled in an earlier run.
//
// Start-up is mostly V8 parsing and compiling the 3.2 MB bundle: its top level, then each function the first time
// it runs (Fastify, Mercurius, Pothos, ajv's schema compiler...). A code cache made after a run holds the bytecode
// of every function that run compiled, so the next start deserializes it instead: 630-944 ms -> 503-665 ms from
// spawn to ready on the generated full-Internet store, user CPU 600-870 -> 410-570 ms (docs/performance.md,
// twenty-first round). Written here because nothing in Node 20 does it: v8-compile-cache (and Node 22's
// module.enableCompileCache) cache what V8 compiles eagerly when the file is first compiled, before it has run
// (424 KB here against 2.9 MB after start-up), which left most of the start as it was in the same measurements.
//
// V8 checks a cache's version, flags and source length only, so the file's name carries a digest of the source:
// a rebuilt bundle never meets a cache of an earlier one. A cache V8 rejects (another Node, other flags) or one
// that is missing is written when the process exits, next to the bundle; where that directory is read-only the
// service simply starts without it. Under `node --enable-source-maps` (debugging) the bundle is required as usual,
// without the cache: Node 20 maps stack traces of the files its loader compiles, not of vm scripts.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

export type CodeCacheState = 'accepted' | 'rejected' | 'absent' | 'not used';

export interface CodeCacheRun {
  /** What became of the cache file at start: used, refused by V8, not there, or not looked for (source maps on). */
  state: CodeCacheState;
  cacheFile: string;
  /** The bundle's `module.exports`. */
  exports: unknown;
  /** Writes the cache of everything compiled so far (replacing older caches of this bundle); false if it cannot. */
  save(): boolean;
}

/** Where a bundle's code caches are kept: `.code-cache` beside it. */
export function codeCacheDirectory(bundleFile: string): string {
  return path.join(path.dirname(bundleFile), '.code-cache');
}

/** The cache file of a bundle's exact source, for this Node version. */
export function codeCacheFile(bundleFile: string, source: string): string {
  const digest = createHash('sha256').update(source).digest('hex').slice(0, 20);
  return path.join(
    codeCacheDirectory(bundleFile),
    `${path.basename(bundleFile)}.${process.version}.${digest}.bin`,
  );
}

function readIfThere(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

function writeCache(script: vm.Script, bundleFile: string, cacheFile: string): boolean {
  try {
    const directory = path.dirname(cacheFile);
    mkdirSync(directory, { recursive: true });
    // Written whole under a temporary name, then renamed: workers of one service exit together.
    const partial = `${cacheFile}.${process.pid}.partial`;
    writeFileSync(partial, script.createCachedData());
    renameSync(partial, cacheFile);
    const ownPrefix = `${path.basename(bundleFile)}.`;
    for (const name of readdirSync(directory)) {
      if (name.startsWith(ownPrefix) && name !== path.basename(cacheFile) && !name.endsWith('.partial'))
        rmSync(path.join(directory, name), { force: true });
    }
    return true;
  } catch {
    return false;
  }
}

/** Runs a CommonJS bundle as a module of its own (its require, __dirname, module), with the code cache if any. */
export function runWithCodeCache(bundleFile: string): CodeCacheRun {
  const source = readFileSync(bundleFile, 'utf8');
  const cacheFile = codeCacheFile(bundleFile, source);
  if (process.sourceMapsEnabled) {
    const exports: unknown = createRequire(bundleFile)(bundleFile);
    return { state: 'not used', cacheFile, exports, save: () => false };
  }
  const cachedData = readIfThere(cacheFile);
  const script = new vm.Script(Module.wrap(source), {
    filename: bundleFile,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const state: CodeCacheState =
    cachedData === undefined ? 'absent' : script.cachedDataRejected === true ? 'rejected' : 'accepted';
  const bundleModule = { exports: {} as unknown, filename: bundleFile, id: bundleFile };
  const compiled = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: unknown,
    filename: string,
    dirname: string,
  ) => void;
  compiled.call(
    bundleModule.exports,
    bundleModule.exports,
    createRequire(bundleFile),
    bundleModule,
    bundleFile,
    path.dirname(bundleFile),
  );
  return {
    state,
    cacheFile,
    exports: bundleModule.exports,
    save: () => writeCache(script, bundleFile, cacheFile),
  };
}
