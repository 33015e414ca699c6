// The code cache that dist/main.js runs the bundled service through: the module runs as CommonJS with its own
// require and __dirname; a cache is taken by the next run of the same source only; a changed source of the same
// length (V8 checks the length, not the text) never meets the old cache; a damaged cache is refused and the module
// still runs; a directory that cannot be written leaves the module running without a cache; with source maps on,
// the module is required as usual so that its stack traces are mapped.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { codeCacheFile, runWithCodeCache } from '../src/code-cache';
import { makeTempDir } from './helpers';

/** A CommonJS module with work of its own to compile; `label` changes the text but not its length. */
function bundleSource(label: string): string {
  return `
const path = require('node:path');
function fibonacci(n) { return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2); }
const table = Array.from({ length: 50 }, (_, index) => ({ index, square: index * index }));
module.exports = {
  label: ${JSON.stringify(label)},
  folder: path.basename(__dirname),
  file: path.basename(__filename),
  fibonacci: fibonacci(20),
  squares: table.reduce((sum, row) => sum + row.square, 0),
  self: module.exports === exports,
};
`;
}

describe('runWithCodeCache', () => {
  let folder: string;
  let bundle: string;

  beforeEach(() => {
    folder = makeTempDir('code-cache');
    bundle = path.join(folder, 'service.js');
  });

  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('runs the module, writes its cache, and the next run of the same source takes it', () => {
    fs.writeFileSync(bundle, bundleSource('first'));
    const first = runWithCodeCache(bundle);
    expect(first.state).toBe('absent');
    expect(first.exports).toEqual({
      label: 'first',
      folder: path.basename(folder),
      file: 'service.js',
      fibonacci: 6765,
      squares: 40425,
      self: true,
    });
    expect(first.cacheFile).toBe(codeCacheFile(bundle, bundleSource('first')));
    expect(path.dirname(first.cacheFile)).toBe(path.join(folder, '.code-cache'));
    expect(fs.existsSync(first.cacheFile)).toBe(false);
    expect(first.save()).toBe(true);
    expect(fs.statSync(first.cacheFile).size).toBeGreaterThan(0);

    const second = runWithCodeCache(bundle);
    expect(second.state).toBe('accepted');
    expect(second.exports).toEqual(first.exports);
  });

  it('never gives a changed source of the same length the old cache, and keeps one cache per bundle', () => {
    fs.writeFileSync(bundle, bundleSource('before'));
    const before = runWithCodeCache(bundle);
    expect(before.save()).toBe(true);
    expect(bundleSource('after!')).toHaveLength(bundleSource('before').length);

    fs.writeFileSync(bundle, bundleSource('after!'));
    const after = runWithCodeCache(bundle);
    expect(after.state).toBe('absent');
    expect(after.cacheFile).not.toBe(before.cacheFile);
    expect((after.exports as { label: string }).label).toBe('after!');
    expect(after.save()).toBe(true);
    expect(fs.readdirSync(path.join(folder, '.code-cache'))).toEqual([path.basename(after.cacheFile)]);
  });

  it('refuses a damaged cache, still runs the module, and can write a good one', () => {
    fs.writeFileSync(bundle, bundleSource('damaged'));
    const cacheFile = codeCacheFile(bundle, bundleSource('damaged'));
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
    fs.writeFileSync(cacheFile, Buffer.alloc(4096, 7));
    const run = runWithCodeCache(bundle);
    expect(run.state).toBe('rejected');
    expect((run.exports as { fibonacci: number }).fibonacci).toBe(6765);
    expect(run.save()).toBe(true);
    expect(runWithCodeCache(bundle).state).toBe('accepted');
  });

  it('runs without a cache where the cache cannot be written', () => {
    fs.writeFileSync(bundle, bundleSource('readonly'));
    // A file where the cache directory would be: nothing can be written under it.
    fs.writeFileSync(path.join(folder, '.code-cache'), 'not a directory');
    const run = runWithCodeCache(bundle);
    expect(run.state).toBe('absent');
    expect((run.exports as { squares: number }).squares).toBe(40425);
    expect(run.save()).toBe(false);
    expect(runWithCodeCache(bundle).state).toBe('absent');
  });

  // A child process, as Node reads --enable-source-maps at start; it runs the built module (turbo builds first).
  const builtCodeCache = path.resolve(__dirname, '..', 'dist', 'code-cache.js');
  (fs.existsSync(builtCodeCache) ? it : it.skip)(
    'requires the module as usual under --enable-source-maps, and its stack traces name the original file',
    () => {
      // What esbuild writes: the module, then its map (one line: `boom` thrown from line 2 of original.ts).
      const map = {
        version: 3,
        sources: ['original.ts'],
        names: [],
        mappings: 'AACA',
      };
      fs.writeFileSync(
        bundle,
        `module.exports.where = () => { try { throw new Error('boom'); } catch (error) { return error.stack; } };\n` +
          `//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}\n`,
      );
      const script =
        `const run = require(${JSON.stringify(builtCodeCache)}).runWithCodeCache(${JSON.stringify(bundle)});` +
        `console.log(JSON.stringify({ state: run.state, stack: run.exports.where() }))`;
      const child = spawnSync(process.execPath, ['--enable-source-maps', '-e', script], {
        encoding: 'utf8',
      });
      expect(child.stderr).toBe('');
      const answer = JSON.parse(child.stdout) as { state: string; stack: string };
      expect(answer.state).toBe('not used');
      expect(answer.stack).toMatch(/original\.ts:2/);
      expect(fs.existsSync(path.join(folder, '.code-cache'))).toBe(false);
    },
  );
});
