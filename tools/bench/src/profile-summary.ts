// `node dist/profile-summary.js FILE.cpuprofile [--top N]`: where a service's CPU time went, from a
// `node --cpu-prof` profile (the suite writes them with --profile): self time by package / source file, the
// hottest functions, and the inclusive time of the layers we care about (GraphQL execution, Kysely, the SQLite
// driver, JSON, Fastify). Written here because the evidence for docs/performance.md has to be reproducible
// without a GUI (0x and clinic produce HTML flame graphs).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Groups a script URL as `package@version` (pnpm layout), a workspace path, or a Node internal. */
function origin(url: string): string {
  if (url === '') return '(native / idle / gc)';
  const pnpm = /node_modules\/\.pnpm\/([^/]+)/.exec(url);
  if (pnpm) return pnpm[1] as string;
  const workspace = /\/work\/[^/]+\/(.*)$/.exec(url.replace(/^file:\/\//, ''));
  if (workspace) return workspace[1] as string;
  return url.replace(/^node:/, 'node:');
}

const LAYERS: { name: string; match: (frame: ProfileNode['callFrame']) => boolean }[] = [
  {
    name: 'graphql execute (resolvers included)',
    match: (frame) =>
      /graphql@|graphql-jit/.test(frame.url) &&
      /^(execute|executeImpl|executeOperation|compiledQuery|query)$/.test(frame.functionName),
  },
  {
    name: 'Kysely (build + compile + run)',
    match: (frame) => /kysely@/.test(frame.url) && frame.functionName === 'execute',
  },
  {
    name: 'better-sqlite3 (statement all/get)',
    match: (frame) => frame.url === '' && /^(all|get|iterate|run|prepare)$/.test(frame.functionName),
  },
  { name: 'JSON.stringify', match: (frame) => frame.functionName === 'stringify' },
  { name: 'GC', match: (frame) => frame.functionName === '(garbage collector)' },
];

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '25' } },
  });
  const file = positionals[0];
  if (!file) throw new Error('usage: profile-summary FILE.cpuprofile [--top N]');
  const top = Number(values.top);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const selfByOrigin = new Map<string, number>();
  const selfByFunction = new Map<string, number>();
  const inclusiveByLayer = new Map<string, number>();
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0;
    const node = byId.get(id);
    if (!node) return;
    total += micros;
    if (node.callFrame.functionName === '(idle)') {
      idle += micros;
      return;
    }
    const where = origin(node.callFrame.url);
    selfByOrigin.set(where, (selfByOrigin.get(where) ?? 0) + micros);
    const fn = `${node.callFrame.functionName || '(anonymous)'} ${where}:${node.callFrame.lineNumber + 1}`;
    selfByFunction.set(fn, (selfByFunction.get(fn) ?? 0) + micros);
    // Each layer counts a sample once, however deep the recursion.
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const frame = byId.get(current)?.callFrame;
      if (!frame) break;
      for (const layer of LAYERS) {
        if (!seen.has(layer.name) && layer.match(frame)) {
          seen.add(layer.name);
          inclusiveByLayer.set(layer.name, (inclusiveByLayer.get(layer.name) ?? 0) + micros);
        }
      }
    }
  });
  const busy = total - idle;
  const percent = (micros: number) => `${((100 * micros) / busy).toFixed(1)}%`;
  const print = (title: string, entries: Map<string, number>, limit: number) => {
    console.log(`\n${title}`);
    for (const [name, micros] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
      console.log(`  ${percent(micros).padStart(6)}  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${name}`);
    }
  };
  console.log(
    `${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (percentages are of busy time)`,
  );
  print('Inclusive time by layer', inclusiveByLayer, LAYERS.length);
  print('Self time by package / file', selfByOrigin, top);
  print('Hottest functions (self time)', selfByFunction, top);
}

main();
