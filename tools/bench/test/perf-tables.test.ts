// The perf tables must book each sample where its CPU really went: to the kernel call it runs for, to SQLite's or
// the GC's native code, or to the innermost JavaScript frame (traced through a bundle's source map), or the
// thirty-fourth round's evidence in docs/performance.md would read the wrong item.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sourceMappedFrames } from '../src/profile-tables';
import {
  javaScriptFrame,
  parsePerfScript,
  perfCategoryOf,
  perfTables,
  shortOrigin,
  type PerfSample,
} from '../src/perf-tables';
import { formatPerfComparison, formatPerfTables, keepJitMaps } from '../src/perf-record';
import { parsePerfSummaryArgs } from '../src/perf-summary';
import { UsageError } from '../src/options';
import { FASTIFY_REPLY_SOURCE, writeTwoSourceBundle } from './two-source-bundle';

describe('parsePerfScript', () => {
  it('reads each sample’s period and frames, innermost first, from perf script’s text', () => {
    const text = [
      '    333444 ',
      '\tffffffff822004c9 _raw_spin_unlock_irqrestore ([kernel.kallsyms])',
      '\t          1a2b3c __GI___writev (/usr/lib/x86_64-linux-gnu/libc.so.6)',
      '\t    7f357c18b23f JS:*clearBuffer node:internal/streams/writable:744:21 (/tmp/perf-25455.map)',
      '',
      '    1000 ',
      '\t          dc5df4 v8::internal::StubCache::Set (/usr/bin/node)',
      '',
    ].join('\n');
    const samples = parsePerfScript(text);
    expect(samples).toHaveLength(2);
    expect(samples[0]).toEqual({
      periodNanos: 333444,
      frames: [
        { symbol: '_raw_spin_unlock_irqrestore', dso: '[kernel.kallsyms]' },
        { symbol: '__GI___writev', dso: '/usr/lib/x86_64-linux-gnu/libc.so.6' },
        { symbol: 'JS:*clearBuffer node:internal/streams/writable:744:21', dso: '/tmp/perf-25455.map' },
      ],
    });
    expect(samples[1]!.periodNanos).toBe(1000);
  });
});

describe('javaScriptFrame', () => {
  it('reads a perf map name as a zero-based V8 call frame, anonymous functions included', () => {
    expect(javaScriptFrame('JS:*fastifyGraphQl /srv/dist/service.js:906:52891')).toEqual({
      functionName: 'fastifyGraphQl',
      url: 'file:///srv/dist/service.js',
      lineNumber: 905,
      columnNumber: 52890,
    });
    expect(javaScriptFrame('JS:~ /srv/dist/service.js:944:22054')?.functionName).toBe('');
    expect(javaScriptFrame('JS:^onconnection node:net:2168:22')?.url).toBe('node:net');
    expect(javaScriptFrame('Builtins_JSEntry')).toBeNull();
  });
});

describe('shortOrigin', () => {
  it('drops a pnpm directory’s peers and patch, and leaves files alone', () => {
    expect(shortOrigin('fastify-metrics@12.1.0_fastify@5.12.8')).toBe('fastify-metrics@12.1.0');
    expect(shortOrigin('@pothos/core@4.3.0_graphql@16.15.0')).toBe('@pothos/core@4.3.0');
    expect(shortOrigin('packages/schema/src/types/asn.ts')).toBe('packages/schema/src/types/asn.ts');
    expect(shortOrigin('node:internal/streams/writable')).toBe('node:internal/streams/writable');
  });
});

describe('perfCategoryOf and perfTables', () => {
  let dir: string;
  let bundle: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'perf-tables-'));
    // Line 1 of the bundle comes from the statement cache, line 2 from Fastify.
    bundle = writeTwoSourceBundle(
      dir,
      'service.js',
      ['all', 'resolve'],
      ['apps/graphql/src/statement-cache.ts', FASTIFY_REPLY_SOURCE],
    );
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const frame = (symbol: string, dso = '/usr/bin/node') => ({ symbol, dso });
  const sample = (periodNanos: number, ...frames: { symbol: string; dso: string }[]): PerfSample => ({
    periodNanos,
    frames,
  });

  it('books kernel time to the system call, native code to SQLite or the GC, the rest to JavaScript', () => {
    const resolve = sourceMappedFrames();
    const statementFrame = frame(`JS:*all ${bundle}:1:1`, '/tmp/perf-1.map');
    const kernel = sample(
      10,
      frame('tcp_sendmsg', '[kernel.kallsyms]'),
      frame('do_syscall_64', '[kernel.kallsyms]'),
      frame('__GI___writev', '/lib/libc.so.6'),
      frame('node::StreamBase::Writev'),
    );
    const sqlite = sample(
      20,
      frame('sqlite3BtreeIndexMoveto', '/repo/build/Release/better_sqlite3.node'),
      statementFrame,
    );
    const gc = sample(5, frame('v8::internal::Scavenger::ScavengeObject<v8::internal::FullHeapObjectSlot>'));
    const builtinUnderStatement = sample(7, frame('Builtins_LoadIC'), statementFrame);
    const fastify = sample(3, frame(`JS:*send ${bundle}:2:1`, '/tmp/perf-1.map'));
    const noJavaScript = sample(1, frame('llhttp__internal_execute'), frame('uv__read'));

    expect(perfCategoryOf(kernel, resolve)).toBe('kernel: writev');
    expect(perfCategoryOf(sqlite, resolve)).toBe('SQLite (better-sqlite3, C)');
    expect(perfCategoryOf(gc, resolve)).toBe('V8 garbage collector');
    expect(perfCategoryOf(builtinUnderStatement, resolve)).toBe('apps/graphql/src/statement-cache.ts');
    expect(perfCategoryOf(fastify, resolve)).toBe('fastify@5.12.8');
    expect(perfCategoryOf(noJavaScript, resolve)).toBe('native, no JavaScript frame: node');
    expect(perfCategoryOf(sample(2, frame('schedule', '[kernel.kallsyms]')), resolve)).toBe(
      'kernel: interrupts and scheduling',
    );

    const tables = perfTables([kernel, sqlite, gc, builtinUnderStatement, fastify, noJavaScript], resolve);
    expect(tables.totalNanos).toBe(46);
    expect(tables.categories.get('apps/graphql/src/statement-cache.ts')).toBe(7);
    // By function, SQLite's C code counts with the JavaScript function that called it.
    expect(tables.functions.get('all apps/graphql/src/statement-cache.ts:1')).toBe(27);
    expect(tables.functions.get('send fastify@5.12.8:1')).toBe(3);

    const text = formatPerfTables(tables, 2, 3);
    expect(text.split('\n')[0]).toBe('0 ms of CPU sampled, 2 requests: 0.0 µs a request');
    // The largest category first, at most `top` rows per table: three of six categories, both functions.
    expect(text).toMatch(/\n\s+0\.01 µs\s+43\.5%\s+SQLite \(better-sqlite3, C\)\n/);
    expect(text.split('\n').filter((line) => line.includes('%'))).toHaveLength(5);
  });
});

describe('formatPerfComparison', () => {
  it('puts the contenders side by side per request, the largest excess of the last over the one before first', () => {
    const tables = (entries: [string, number][]) => ({
      totalNanos: entries.reduce((sum, [, nanos]) => sum + nanos, 0),
      categories: new Map(entries),
      functions: new Map<string, number>(),
    });
    const text = formatPerfComparison(
      [
        {
          name: 'stack floor',
          requests: 10,
          tables: tables([
            ['kernel: writev', 70_000],
            ['fastify@5.12.8', 30_000],
          ]),
        },
        {
          name: 'service',
          requests: 20,
          tables: tables([
            ['kernel: writev', 160_000],
            ['fastify@5.12.8', 80_000],
            ['SQLite (better-sqlite3, C)', 100_000],
          ]),
        },
      ],
      10,
    );
    expect(text.split('\n')).toEqual([
      '| µs a request | stack floor | service | service − stack floor |',
      '|---|---:|---:|---:|',
      '| all of it | 10.00 | 17.00 | 7.00 |',
      '| SQLite (better-sqlite3, C) | 0.00 | 5.00 | 5.00 |',
      '| kernel: writev | 7.00 | 8.00 | 1.00 |',
      '| fastify@5.12.8 | 3.00 | 4.00 | 1.00 |',
    ]);
  });
});

describe('parsePerfSummaryArgs', () => {
  it('takes one recording, and positive --requests and --top', () => {
    expect(parsePerfSummaryArgs(['a.data', '--requests', '1000'])).toEqual({
      file: 'a.data',
      requests: 1000,
      top: 30,
    });
    expect(() => parsePerfSummaryArgs([])).toThrow(new UsageError('one perf recording is needed, got 0'));
    expect(() => parsePerfSummaryArgs(['a.data', '--top', '0'])).toThrow(
      new UsageError('--top must be a positive integer, got "0"'),
    );
    expect(() => parsePerfSummaryArgs(['a.data', '--requests', 'many'])).toThrow(UsageError);
  });
});

describe('keepJitMaps', () => {
  it('copies the recorded processes’ /tmp/perf-PID.map beside the recording, and skips those without one', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perf-maps-'));
    // pids far above any kernel's pid_max, so no live process owns these names.
    const withMap = 2_000_000_001;
    const withoutMap = 2_000_000_002;
    const map = `/tmp/perf-${withMap}.map`;
    writeFileSync(map, '7f0000001000 40 JS:*resolve /srv/dist/service.js:1:1\n');
    try {
      keepJitMaps([withMap, withoutMap], path.join(dir, 'W1-service.data'));
      expect(readFileSync(path.join(dir, 'W1-service.data.maps', `perf-${withMap}.map`), 'utf8')).toContain(
        'JS:*resolve',
      );
      expect(existsSync(path.join(dir, 'W1-service.data.maps', `perf-${withoutMap}.map`))).toBe(false);
    } finally {
      rmSync(map, { force: true });
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
