// A two-line "bundle" with a source map beside it, as esbuild writes the GraphQL service's: line 1 comes from
// the first source, line 2 from the second (VLQ "C" = next source). The profile and perf tables are tested on it
// to book a bundled frame to the package or workspace file it came from.
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** The repository's root, which the tables name workspace files from. */
export const WORKSPACE_ROOT = path.resolve(__dirname, '..', '..', '..');

/** Fastify's reply.js as pnpm lays it out: a package frame once traced back. */
export const FASTIFY_REPLY_SOURCE = 'node_modules/.pnpm/fastify@5.12.8/node_modules/fastify/lib/reply.js';

/** Writes `dir/name` (one function per line) and its `.map`; the sources are workspace-relative paths. */
export function writeTwoSourceBundle(
  dir: string,
  name: string,
  functions: readonly [string, string],
  sources: readonly [string, string],
): string {
  const bundle = path.join(dir, name);
  writeFileSync(bundle, functions.map((fn) => `function ${fn}(){}\n`).join(''));
  writeFileSync(
    `${bundle}.map`,
    JSON.stringify({
      version: 3,
      file: name,
      sources: sources.map((source) => path.join(WORKSPACE_ROOT, source)),
      names: [],
      mappings: 'AAAA;ACAA',
    }),
  );
  return bundle;
}
