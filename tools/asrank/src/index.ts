// Programmatic API of the asrank data tool (used by the services' tests, the start script and the benchmarks).
export { ingestMonth, IngestInputError, type IngestOptions, type IngestSummary } from './ingest/ingest';
export { importJsonl, type ImportJsonlOptions } from './import-jsonl';
export { listDatasets, dropMonth, upgradeStore, type DatasetListing } from './datasets';
export { loadSampleData, readManifest, SAMPLE_DATA_DIR } from './sample';
export { generateDataset, type GeneratedFiles } from './generate';
export { MalformedLineError } from './input/bad-lines';
export { InputFileError, detectCompression, openInput, readLines } from './input/open';
export { parseAsRel } from './parse/as-rel';
export { parseAsOrg } from './parse/as-org';
export { parsePfx2as } from './parse/pfx2as';
export { runCli, buildProgram } from './cli';
