// Each reliability test writes its figures (requests tried, faults injected, errors seen, memory) as JSON
// under tools/e2e/test-output/, the source of the numbers in docs/reliability.md.
import fs from 'node:fs';
import path from 'node:path';
import { testOutputDir } from './paths';

export function writeSummary(name: string, figures: Record<string, unknown>): void {
  fs.mkdirSync(testOutputDir, { recursive: true });
  const file = path.join(testOutputDir, `${name}.json`);
  fs.writeFileSync(
    file,
    `${JSON.stringify({ test: name, finishedAt: new Date().toISOString(), ...figures }, null, 2)}\n`,
  );
}
