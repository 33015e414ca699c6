// The committed sample dataset (`sample-data/` at the repository root) and the script that regenerates it:
//   pnpm --filter @asrank/cli run build && node tools/asrank/dist/generate/sample.js
// A test regenerates it with these options and compares every byte, so it never drifts from the generator.
import path from 'node:path';
import { generateDataset, type GenerateOptions } from './index';

export const SAMPLE_OPTIONS: Omit<GenerateOptions, 'outDir'> = {
  seed: 2024,
  asns: 300,
  months: 3,
  startDate: '2024-01-01',
  // Fewer links and prefixes per ASN than the full-Internet defaults keep the committed files small.
  links: 1200,
  prefixes: 1500,
  gzip: false,
};

/** `<repo>/sample-data`, from either src/generate (tests) or dist/generate (the built script). */
export const SAMPLE_DATA_DIR = path.resolve(__dirname, '..', '..', '..', '..', 'sample-data');

if (require.main === module) {
  const outDir = process.argv[2] ? path.resolve(process.argv[2]) : SAMPLE_DATA_DIR;
  generateDataset({ ...SAMPLE_OPTIONS, outDir })
    .then((files) =>
      console.log(`wrote ${files.months.length} months of synthetic sample data to ${files.outDir}`),
    )
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    });
}
