// Shared jest configuration for every workspace package (see ../shared/notes/stack.md §6).
const path = require('node:path');

// ESM-only transitive packages (engines node >=22) that jest's CJS loader cannot require on Node 20;
// swc compiles them to CJS instead.
const esmOnly = ['cookie', 'content-disposition', 'quick-lru', 'mercurius', 'p-limit', 'yocto-queue'];
const swc = [
  '@swc/jest',
  {
    jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
    module: { type: 'commonjs', ignoreDynamic: false },
  },
];
const escaped = esmOnly.map((n) => n.replace('/', '\\+'));

module.exports = (packageDir) => ({
  rootDir: packageDir,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': swc, '^.+\\.m?js$': swc },
  transformIgnorePatterns: [`/node_modules/(?!\\.pnpm/(${escaped.join('|')})@)(?!(${esmOnly.join('|')})/)`],
  // Workspace packages are tested against their TypeScript sources, so a test never runs stale dist/.
  moduleNameMapper: {
    '^@asrank/(domain|db|schema|service-kit)$': path.join(__dirname, 'packages/$1/src/index.ts'),
    '^@asrank/cli$': path.join(__dirname, 'tools/asrank/src/index.ts'),
  },
  // CI runs every package's suite at once on 2 cores: a test that takes 5 s alone can take 60 s there. Bounded
  // all the same, so a hang still fails.
  testTimeout: 180000,
});
