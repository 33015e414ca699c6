// Rewrites dist/service.js (tsc's output of src/service.ts) as one bundled file, which dist/main.js runs through a
// V8 code cache (src/code-cache.ts). Start-up was module loading, not work: a start on the full-Internet store
// spent ~75% of its CPU resolving, reading and compiling some 1,500 CommonJS files (docs/performance.md,
// start-up). One file removes the resolution and file-system part of that; the code cache most of the compiling.
// better-sqlite3 stays external (a native addon found next to its package); pg-native is optional in pg.
// Everything that imports the app as a library (dist/index.js, tests) still gets tsc's unbundled modules.
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/service.js'],
  outfile: 'dist/service.js',
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // CommonJS `main` first: graphql must be the same copy for Pothos, Mercurius and graphql-jit.
  mainFields: ['main', 'module'],
  external: ['better-sqlite3', 'pg-native'],
  // The bundle is what operators run: graphql-js reads NODE_ENV once at load and, unless it is 'production', runs
  // every type check (isNonNullType, isListType, ...) through a multi-realm guard that looks up Symbol.toStringTag
  // whenever the answer is false; graphql-js's documentation asks production builds to set it. Mercurius coerces
  // each request's variables through those checks (W4's ten-ASN list: 15 µs in dev mode, 6.5 in production, in a
  // loop). The unbundled modules, which the tests import, keep the guard.
  define: { 'process.env.NODE_ENV': '"production"' },
  sourcemap: true,
  // Without comments and indentation the file is half the size and pure ASCII, which Node reads as a one-byte
  // string: comments in some packages hold non-ASCII characters, and a 5 MB two-byte source cost the start ~45 ms
  // to decode before V8 scanned it. Names are kept (this is not `minify`), and the source map still maps profiles
  // and stack traces to the sources. Licence comments go to service.js.LEGAL.txt.
  minifyWhitespace: true,
  legalComments: 'external',
  logLevel: 'warning',
});
