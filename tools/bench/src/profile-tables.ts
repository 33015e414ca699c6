// Where a `node --cpu-prof` profile's time went, as the tables profile-summary.ts prints: self time by package or
// source file, the hottest functions, and the inclusive time of the layers docs/performance.md argues with. The
// GraphQL service runs as one esbuild bundle (apps/graphql/scripts/bundle.mjs), so without its source map every
// frame of ours and of Fastify, Mercurius or Kysely is booked to `dist/main.js`; frames are therefore traced back
// through the script's source map when it has one.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';

export interface CallFrame {
  functionName: string;
  /** `file://` URL, `node:` internal, or '' (native code, GC, and functions made by `new Function`). */
  url: string;
  /** Zero-based, as V8 writes them. */
  lineNumber: number;
  columnNumber: number;
}

export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileTables {
  /** Microseconds sampled, and those of them not idle. */
  totalMicros: number;
  busyMicros: number;
  /** Inclusive microseconds per layer (a sample counts once per layer however deep the recursion). */
  layers: Map<string, number>;
  /** Self microseconds per package (`fastify@5.12.8`), workspace file, or Node internal. */
  origins: Map<string, number>;
  /** Self microseconds per function (`name origin:line`). */
  functions: Map<string, number>;
}

/** The repository's root, so workspace files are named relative to it wherever the clone lives. */
const WORKSPACE_ROOT = path.resolve(__dirname, '..', '..', '..');

/** Groups a script path or URL as `package@version` (pnpm layout), a workspace path, or a Node internal. */
export function originOf(url: string): string {
  if (url === '') return '(native / idle / gc)';
  const pnpm = /node_modules\/\.pnpm\/([^/]+)/.exec(url);
  if (pnpm) return pnpm[1] as string;
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (path.isAbsolute(file) && file.startsWith(WORKSPACE_ROOT + path.sep)) {
    return path.relative(WORKSPACE_ROOT, file);
  }
  return url;
}

export const LAYERS: { name: string; match: (frame: CallFrame) => boolean }[] = [
  {
    // Everything Mercurius does for one operation: the cached parse and validation, the variables' coercion,
    // hooks, and the execution itself.
    name: 'Mercurius operation (cache, validation, variables, hooks, execution)',
    match: (frame) => /mercurius@/.test(frame.url) && frame.functionName === 'fastifyGraphQl',
  },
  {
    // graphql-jit's bound query is `ret`, and the query it compiled is a `new Function` with no script URL.
    // Resolvers that return promises finish in later ticks, outside this frame.
    name: 'GraphQL execution (graphql-jit or graphql-js, synchronous resolver time included)',
    match: (frame) =>
      (/graphql-jit@/.test(frame.url) && frame.functionName === 'ret') ||
      (frame.url === '' && frame.functionName === 'query') ||
      (/graphql@/.test(frame.url) && frame.functionName === 'execute'),
  },
  {
    name: 'Kysely (build + compile + run)',
    match: (frame) => /kysely@/.test(frame.url) && frame.functionName === 'execute',
  },
  {
    // better-sqlite3's methods are C++: V8 books their time to the JavaScript frame that calls them, which in
    // the service is the statement cache's wrapper (row objects built there included).
    name: 'SQLite statements (better-sqlite3, row objects included)',
    match: (frame) =>
      /^(all|get|iterate|run|prepare)$/.test(frame.functionName) &&
      (frame.url === '' ||
        /better-sqlite3@|apps\/graphql\/(src|dist)\/statement-cache\.[jt]s$/.test(frame.url)),
  },
  {
    // Mercurius gives its route a response schema, so a GraphQL answer is written by fast-json-stringify's
    // compiled serializer, which hands `data` to JSON.stringify; V8 books the builtin's time to that caller.
    name: "Fastify's response serializer (JSON.stringify inside it included)",
    match: (frame) =>
      /fastify@[^/]+\/node_modules\/fastify\/lib\/reply\.js$/.test(frame.url) &&
      frame.functionName === 'serialize',
  },
  { name: 'JSON.stringify (called by name)', match: (frame) => frame.functionName === 'stringify' },
  { name: 'GC', match: (frame) => frame.functionName === '(garbage collector)' },
];

/**
 * Traces frames of scripts that have a source map next to them (`main.js.map`) back to their original file and
 * line; other frames are returned as they are. Maps are read once per script.
 */
export function sourceMappedFrames(): (frame: CallFrame) => CallFrame {
  const maps = new Map<string, TraceMap | null>();
  const mapOf = (url: string): TraceMap | null => {
    let map = maps.get(url);
    if (map === undefined) {
      const mapFile = `${fileURLToPath(url)}.map`;
      map = existsSync(mapFile) ? new TraceMap(readFileSync(mapFile, 'utf8'), mapFile) : null;
      maps.set(url, map);
    }
    return map;
  };
  return (frame) => {
    if (!frame.url.startsWith('file://') || frame.lineNumber < 0) return frame;
    const map = mapOf(frame.url);
    if (!map) return frame;
    const original = originalPositionFor(map, { line: frame.lineNumber + 1, column: frame.columnNumber });
    if (original.source === null) return frame;
    return {
      functionName: frame.functionName,
      url: original.source,
      lineNumber: original.line - 1,
      columnNumber: original.column,
    };
  };
}

export function profileTables(
  profile: CpuProfile,
  resolveFrame: (frame: CallFrame) => CallFrame = (frame) => frame,
): ProfileTables {
  const frames = new Map(profile.nodes.map((node) => [node.id, resolveFrame(node.callFrame)]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  // The layers on a node's call path (each once, however deep the recursion), found once per node rather than
  // by walking the stack again for each of its samples.
  const layersOnPath = new Map<number, ReadonlySet<string>>();
  const layersOf = (id: number): ReadonlySet<string> => {
    let layers = layersOnPath.get(id);
    if (layers === undefined) {
      const callerId = parent.get(id);
      const frame = frames.get(id);
      const own = frame ? LAYERS.filter((layer) => layer.match(frame)).map((layer) => layer.name) : [];
      const callers = callerId === undefined ? new Set<string>() : layersOf(callerId);
      layers = own.every((name) => callers.has(name)) ? callers : new Set([...callers, ...own]);
      layersOnPath.set(id, layers);
    }
    return layers;
  };

  const tables: ProfileTables = {
    totalMicros: 0,
    busyMicros: 0,
    layers: new Map(),
    origins: new Map(),
    functions: new Map(),
  };
  const add = (table: Map<string, number>, key: string, micros: number) =>
    table.set(key, (table.get(key) ?? 0) + micros);
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0;
    const frame = frames.get(id);
    if (!frame) return;
    tables.totalMicros += micros;
    if (frame.functionName === '(idle)') return;
    tables.busyMicros += micros;
    const where = originOf(frame.url);
    add(tables.origins, where, micros);
    add(tables.functions, `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`, micros);
    for (const name of layersOf(id)) add(tables.layers, name, micros);
  });
  return tables;
}
