// Rewrites dist/main.js (tsc's output) as one bundled file. Start-up was module loading, not work: a start
// on the full-Internet store spent ~75% of its CPU resolving, reading and compiling some 1,500 CommonJS files
// (docs/performance.md, start-up). One file removes the resolution and file-system part of that.
// better-sqlite3 stays external (a native addon found next to its package); pg-native is optional in pg.
// Everything that imports the app as a library (dist/index.js, tests) still gets tsc's unbundled modules.
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/main.js'],
  outfile: 'dist/main.js',
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // CommonJS `main` first: graphql must be the same copy for Pothos, Mercurius and graphql-jit.
  mainFields: ['main', 'module'],
  external: ['better-sqlite3', 'pg-native'],
  sourcemap: true,
  logLevel: 'warning',
});
