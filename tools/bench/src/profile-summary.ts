// `node dist/profile-summary.js FILE.cpuprofile [--top N]`: where a process's CPU time went, from a
// `node --cpu-prof` profile (the suite writes them with --profile, one directory per process): the inclusive time
// of the layers we care about (Mercurius, GraphQL execution, Kysely, the SQLite driver, the response serializer,
// GC), self time by package / source file, and the hottest functions (profile-tables.ts). Written here because
// the evidence for docs/performance.md has to be reproducible without a GUI (0x and clinic produce HTML flame
// graphs).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { LAYERS, profileTables, sourceMappedFrames, type CpuProfile } from './profile-tables';

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '25' } },
  });
  const file = positionals[0];
  if (!file) throw new Error('usage: profile-summary FILE.cpuprofile [--top N]');
  const top = Number(values.top);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
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

main();
