// `node dist/profile-summary.js FILE.cpuprofile [--top N]`: where a process's CPU time went, from a
// `node --cpu-prof` profile (the suite writes them with --profile, one directory per process): the inclusive time
// of the layers we care about (Mercurius, GraphQL execution, Kysely, the SQLite driver, the response serializer,
// GC), self time by package / source file, and the hottest functions (profile-tables.ts). Written here because
// the evidence for docs/performance.md has to be reproducible without a GUI (0x and clinic produce HTML flame
// graphs).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { LAYERS, profileTables, sourceMappedFrames, type CpuProfile } from './profile-tables';
import { positiveIntegerOption, runSuiteEntryPoint, UsageError } from './options';

const PROFILE_SUMMARY_USAGE = `usage: node dist/profile-summary.js FILE.cpuprofile [--top N]
  --top N    rows of the per-package and per-function tables (default 25)
  --help     this text`;

export interface ProfileSummaryOptions {
  file: string;
  top: number;
}

/** The command line, checked: one profile file and a positive --top, or a UsageError saying what is wrong. */
export function parseProfileSummaryArgs(argv: readonly string[]): ProfileSummaryOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { top: { type: 'string', default: '25' } },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    throw new UsageError(`one profile file is needed, got ${positionals.length}`);
  }
  return { file: positionals[0]!, top: positiveIntegerOption('top', values.top) ?? 25 };
}

async function main(argv: readonly string[]): Promise<void> {
  const { file, top } = parseProfileSummaryArgs(argv);
  let profile: CpuProfile;
  try {
    profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  } catch (error) {
    throw new UsageError(
      `cannot read ${file} as a CPU profile: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const tables = profileTables(profile, sourceMappedFrames());
  const percent = (micros: number) => `${((100 * micros) / tables.busyMicros).toFixed(1)}%`;
  const print = (title: string, entries: Map<string, number>, limit: number) => {
    console.log(`\n${title}`);
    for (const [name, micros] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
      console.log(`  ${percent(micros).padStart(6)}  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${name}`);
    }
  };
  console.log(
    `${file}: ${(tables.totalMicros / 1e6).toFixed(1)} s sampled, ${(tables.busyMicros / 1e6).toFixed(1)} s busy (percentages are of busy time)`,
  );
  print('Inclusive time by layer', tables.layers, LAYERS.length);
  print('Self time by package / file', tables.origins, top);
  print('Hottest functions (self time)', tables.functions, top);
}

// Run as a script only: the tests import parseProfileSummaryArgs.
if (require.main === module) {
  const argv = process.argv.slice(2);
  runSuiteEntryPoint(() => main(argv), argv, PROFILE_SUMMARY_USAGE);
}
