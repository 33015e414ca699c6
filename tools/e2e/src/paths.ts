// Where things are, from both src/ (tests) and dist/ (built): this package sits at tools/e2e.
import path from 'node:path';

export const repoRoot = path.resolve(__dirname, '..', '..', '..');
export const graphqlMain = path.join(repoRoot, 'apps', 'graphql', 'dist', 'main.js');
export const restMain = path.join(repoRoot, 'apps', 'rest', 'dist', 'main.js');
export const nginxConfigFile = path.join(repoRoot, 'deploy', 'nginx.conf');
/** JSON summaries of the runs (requests tried, faults, memory), copied by hand into docs/reliability.md. */
export const testOutputDir = path.join(repoRoot, 'tools', 'e2e', 'test-output');
