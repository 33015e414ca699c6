// Where a process's CPU time went, from Linux `perf record -g -e cpu-clock` of a Node process started with
// `--perf-basic-prof` (the suite's --perf), as the tables perf-summary.ts prints. Written beside profile-tables.ts
// because on this project's virtual machines V8's own sampler misplaces time: its SIGPROF samples land on the next
// system call, so `node --cpu-prof` booked 65% of a request to `writev` where perf, sampling from the kernel's
// timer on the same CPU, finds 17% (docs/performance.md, thirty-fourth round). perf also sees the kernel and the
// native code (SQLite, V8's GC, llhttp) that a V8 profile books to the JavaScript frame calling them.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { originOf, type CallFrame } from './profile-tables';

export interface PerfFrame {
  symbol: string;
  /** The frame's object: `[kernel.kallsyms]`, `/usr/bin/node`, a shared library, or the JIT's `/tmp/perf-PID.map`. */
  dso: string;
}

export interface PerfSample {
  /** Nanoseconds the sample stands for (cpu-clock's period). */
  periodNanos: number;
  /** Innermost first. */
  frames: PerfFrame[];
}

export interface PerfTables {
  totalNanos: number;
  /** Nanoseconds per category of a sample's innermost frame (perfCategoryOf). */
  categories: Map<string, number>;
  /** Nanoseconds per JavaScript function that is a sample's innermost JavaScript frame (`name origin:line`). */
  functions: Map<string, number>;
}

/**
 * Parses `perf script -F period,ip,sym,dso` with call chains: a line with the period, then one line per frame
 * (`address symbol (dso)`), samples separated by blank lines.
 */
export function parsePerfScript(text: string): PerfSample[] {
  const samples: PerfSample[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((line) => line.trim() !== '');
    if (lines.length === 0) continue;
    const periodNanos = Number(lines[0]!.trim());
    if (!Number.isFinite(periodNanos)) continue;
    const frames = lines.slice(1).map((line): PerfFrame => {
      const match = /^\s*[0-9a-f]+\s+(.*?)\s+\(([^()]*)\)\s*$/.exec(line);
      return match ? { symbol: match[1]!, dso: match[2]! } : { symbol: line.trim(), dso: '' };
    });
    samples.push({ periodNanos, frames });
  }
  return samples;
}

/**
 * A JavaScript frame of a `--perf-basic-prof` map (`JS:*name /path/file.js:LINE:COL`, `*` optimized, `~`
 * interpreted, `^` baseline, `+` Maglev; the name is empty for anonymous functions) as a V8 call frame, or null.
 */
export function javaScriptFrame(symbol: string): CallFrame | null {
  const match = /^JS:[*~^+]?(.*?)\s?((?:\/|node:)\S*):(\d+):(\d+)$/.exec(symbol);
  if (!match) return null;
  const [, functionName, file, line, column] = match;
  return {
    functionName: functionName ?? '',
    // V8's perf map writes one-based lines and columns; its profiles' call frames are zero-based.
    url: file!.startsWith('/') ? pathToFileURL(file!).href : file!,
    lineNumber: Number(line) - 1,
    columnNumber: Number(column) - 1,
  };
}

/** V8's collectors and the heap's bookkeeping around them. */
const GC_SYMBOL =
  /^v8::internal::(Scavenger|ScavengerCollector|Heap::|MarkCompact|Sweeper|.*Evacuat|GCTracer|.*Marking|MinorMarkCompact|ConcurrentMarking)/;

/** A pnpm package directory without its peers and patch (`fastify-metrics@12.1.0_fastify@5.12.8` → `fastify-metrics@12.1.0`). */
export function shortOrigin(origin: string): string {
  return origin.replace(/^((?:@[^/@]+\/)?[^/@]+@[^_/]+)_.*$/, '$1');
}

/**
 * The category a sample's CPU time is booked to: the kernel, by the system call it runs for (the first user-space
 * frame under it); SQLite's C code; V8's garbage collector; else the innermost JavaScript frame's origin (package,
 * workspace file or Node internal), so V8's builtins and the C++ a function calls count with it; samples with no
 * JavaScript frame at all (libuv, llhttp before it calls back) by their innermost object.
 */
export function perfCategoryOf(sample: PerfSample, resolveFrame: (frame: CallFrame) => CallFrame): string {
  const leaf = sample.frames[0];
  if (!leaf) return '(no frames)';
  if (leaf.dso.includes('kernel')) {
    const caller = sample.frames.find((frame) => !frame.dso.includes('kernel'));
    if (!caller) return 'kernel: interrupts and scheduling';
    const call = caller.symbol.replace(/^(__GI___|__libc_|__)/, '').replace(/(@.*|_nocancel.*|64)$/, '');
    return `kernel: ${/epoll/.test(call) ? 'epoll_wait' : call}`;
  }
  if (/better_sqlite3\.node$/.test(leaf.dso)) return 'SQLite (better-sqlite3, C)';
  if (GC_SYMBOL.test(leaf.symbol)) return 'V8 garbage collector';
  for (const frame of sample.frames) {
    const javaScript = javaScriptFrame(frame.symbol);
    if (javaScript) return shortOrigin(originOf(resolveFrame(javaScript).url));
  }
  return `native, no JavaScript frame: ${path.basename(leaf.dso) || leaf.symbol}`;
}

export function perfTables(
  samples: readonly PerfSample[],
  resolveFrame: (frame: CallFrame) => CallFrame = (frame) => frame,
): PerfTables {
  const tables: PerfTables = { totalNanos: 0, categories: new Map(), functions: new Map() };
  const add = (table: Map<string, number>, key: string, nanos: number) =>
    table.set(key, (table.get(key) ?? 0) + nanos);
  for (const sample of samples) {
    tables.totalNanos += sample.periodNanos;
    add(tables.categories, perfCategoryOf(sample, resolveFrame), sample.periodNanos);
    for (const frame of sample.frames) {
      const javaScript = javaScriptFrame(frame.symbol);
      if (!javaScript) continue;
      const original = resolveFrame(javaScript);
      add(
        tables.functions,
        `${original.functionName || '(anonymous)'} ${shortOrigin(originOf(original.url))}:${original.lineNumber + 1}`,
        sample.periodNanos,
      );
      break;
    }
  }
  return tables;
}
