// Where things are, from both src/ (tests) and dist/ (built): this package sits at tools/e2e.
import path from 'node:path';

export const repoRoot = path.resolve(__dirname, '..', '..', '..');
/** ASRANK_E2E_GRAPHQL_MAIN runs the suite against another build of the GraphQL service. */
export const graphqlMain =
  process.env['ASRANK_E2E_GRAPHQL_MAIN'] ?? path.join(repoRoot, 'apps', 'graphql', 'dist', 'main.js');
export const restMain = path.join(repoRoot, 'apps', 'rest', 'dist', 'main.js');
export const nginxConfigFile = path.join(repoRoot, 'deploy', 'nginx.conf');
/** JSON summaries of the runs (requests tried, faults, memory), copied by hand into docs/reliability.md. */
export const testOutputDir = path.join(repoRoot, 'tools', 'e2e', 'test-output');
