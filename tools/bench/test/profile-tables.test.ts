// The profile tables must book a bundled service's time to the packages and files it came from, or the layer
// figures in docs/performance.md (serializer, SQLite, Mercurius) read zero for the service as it really runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { originOf, profileTables, sourceMappedFrames, type CpuProfile } from '../src/profile-tables';
import { FASTIFY_REPLY_SOURCE, WORKSPACE_ROOT, writeTwoSourceBundle } from './two-source-bundle';

const SERIALIZER_LAYER = "Fastify's response serializer (JSON.stringify inside it included)";

describe('profileTables', () => {
  let dir: string;
  let bundleUrl: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'profile-tables-'));
    // Line 1 of the bundle comes from Fastify's reply.js, line 2 from a workspace file.
    const bundle = writeTwoSourceBundle(
      dir,
      'main.js',
      ['serialize', 'resolve'],
      [FASTIFY_REPLY_SOURCE, 'packages/schema/src/types/asn.ts'],
    );
    bundleUrl = pathToFileURL(bundle).href;
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // root -> serialize (bundle line 1) -> the serializer fast-json-stringify compiled (no URL);
  // root -> resolve (bundle line 2); and idle time.
  const profile = (): CpuProfile => ({
    nodes: [
      {
        id: 1,
        callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 },
        children: [2, 4, 5],
      },
      {
        id: 2,
        callFrame: { functionName: 'serialize', url: bundleUrl, lineNumber: 0, columnNumber: 0 },
        children: [3],
      },
      { id: 3, callFrame: { functionName: 'anonymous1', url: '', lineNumber: 33, columnNumber: 0 } },
      { id: 4, callFrame: { functionName: 'resolve', url: bundleUrl, lineNumber: 1, columnNumber: 0 } },
      { id: 5, callFrame: { functionName: '(idle)', url: '', lineNumber: -1, columnNumber: -1 } },
    ],
    samples: [3, 3, 3, 4, 5],
    timeDeltas: [100, 100, 100, 50, 1000],
  });

  it('traces bundled frames through the source map to their package and workspace file', () => {
    const tables = profileTables(profile(), sourceMappedFrames());
    expect(tables.totalMicros).toBe(1350);
    expect(tables.busyMicros).toBe(350);
    expect(tables.layers.get(SERIALIZER_LAYER)).toBe(300);
    expect(tables.origins.get('packages/schema/src/types/asn.ts')).toBe(50);
    expect(tables.origins.get('(native / idle / gc)')).toBe(300);
    expect(tables.functions.get('resolve packages/schema/src/types/asn.ts:1')).toBe(50);
  });

  it('books everything to the bundle when frames are taken as they are', () => {
    const tables = profileTables(profile());
    expect(tables.layers.get(SERIALIZER_LAYER)).toBeUndefined();
    expect(tables.origins.get(path.relative(WORKSPACE_ROOT, path.join(dir, 'main.js')))).toBeUndefined();
    expect(tables.origins.get(bundleUrl)).toBe(50);
  });

  it('leaves frames of scripts without a source map unchanged', () => {
    const frame = {
      functionName: 'f',
      url: pathToFileURL(path.join(dir, 'other.js')).href,
      lineNumber: 3,
      columnNumber: 1,
    };
    expect(sourceMappedFrames()(frame)).toBe(frame);
  });
});

describe('originOf', () => {
  it('names pnpm packages by name and version, workspace files by their path in the repository', () => {
    expect(originOf('file:///x/node_modules/.pnpm/fastify@5.12.8/node_modules/fastify/lib/reply.js')).toBe(
      'fastify@5.12.8',
    );
    expect(originOf(pathToFileURL(path.join(WORKSPACE_ROOT, 'apps/graphql/dist/main.js')).href)).toBe(
      'apps/graphql/dist/main.js',
    );
    expect(originOf('node:events')).toBe('node:events');
    expect(originOf('')).toBe('(native / idle / gc)');
  });
});
