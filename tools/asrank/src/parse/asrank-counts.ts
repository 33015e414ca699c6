// CAIDA's AS Rank intermediate files (asrank-tools/data-preprocessing), one directory per month:
//   *-asn_count.txt      asn|asnes|prefixes|addresses|asn_degree|asn_transit_degree   (the two "# format" header
//                        lines disagree with the rows; the rows are authoritative)
//   *-org_count.txt      org_id|orgs|asnes|prefixes|addresses|asn_degree|asn_transit_degree|org_degree|org_transit_degree
//   *-asn_link_count.txt asn0|asn1|number_paths
//   *-asn_loc.txt        as|country|region|city|lat|lon|total-prefixes
//   *.locations.jsonl    API Location records ({lid, city, region, country, continent, latitude, longitude, population})
//   *.dataset.jsonl      dataset metadata (clique, asn_ixs, ranges, sources, counts)
import fs from 'node:fs';
import path from 'node:path';
import { readLines, InputFileError } from '../input/open';
import { parseAsn, type BadLinePolicy } from '../input/bad-lines';

export interface AsnCount {
  coneAsns: number;
  conePrefixes: number;
  coneAddresses: number;
  degreeTotal: number;
  degreeTransit: number;
}

export interface OrgCount extends AsnCount {
  orgDegreeTotal: number;
  orgDegreeTransit: number;
}

export interface AsnLocation {
  country: string | null;
  latitude: number | null;
  longitude: number | null;
}

export interface LocationRecord {
  locId: string;
  city: string | null;
  region: string | null;
  country: string | null;
  continent: string | null;
  latitude: number | null;
  longitude: number | null;
  population: number | null;
}

export interface DatasetSource {
  url: string;
  date: string;
  name: string;
}

export interface DatasetMetadata {
  clique: number[] | null;
  asnIxs: number[] | null;
  asnReservedRanges: [string, string][] | null;
  asnAssignedRanges: [string, string][] | null;
  sources: DatasetSource[];
  numberPrefixes: number | null;
  numberAddresses: number | null;
  datasetId: string | null;
}

export interface AsrankCounts {
  asnCounts: Map<number, AsnCount>;
  orgCounts: Map<string, OrgCount>;
  linkPaths: PairMap<number>;
  asnLocations: Map<number, AsnLocation>;
  locations: LocationRecord[];
  dataset: DatasetMetadata | null;
  files: string[];
}

/**
 * A map keyed by an unordered ASN pair. Nested number maps instead of "a|b" string keys: a month has ~300k links and
 * building and hashing that many strings dominated the ingest's profile.
 */
export class PairMap<V> {
  private readonly byLow = new Map<number, Map<number, V>>();
  size = 0;

  set(a: number, b: number, value: V): void {
    const [low, high] = a < b ? [a, b] : [b, a];
    let inner = this.byLow.get(low);
    if (!inner) this.byLow.set(low, (inner = new Map()));
    if (!inner.has(high)) this.size += 1;
    inner.set(high, value);
  }

  get(a: number, b: number): V | undefined {
    return a < b ? this.byLow.get(a)?.get(b) : this.byLow.get(b)?.get(a);
  }

  *values(): IterableIterator<V> {
    for (const inner of this.byLow.values()) yield* inner.values();
  }
}

/**
 * The file of the month `compactDate` (YYYYMMDD) with this suffix: CAIDA names every file of a run after its month
 * (20171201-asn_count.txt, 20171201.dataset.jsonl). Another month's file is never taken instead, as its cone sizes,
 * degrees and dataset_id would be stored as this month's. Months may share a directory, so an optional file of
 * another month is just not this month's; for the required asn_count file the error names the months found, since
 * the usual mistake is giving another month's directory.
 */
function findFile(
  dir: string,
  entries: string[],
  suffix: string,
  compactDate: string,
  required: boolean,
): string | null {
  const matches = entries.filter(
    (name) => name.endsWith(suffix) || name.endsWith(`${suffix}.gz`) || name.endsWith(`${suffix}.bz2`),
  );
  const chosen = matches.find((name) => fileMonth(name) === compactDate);
  if (chosen !== undefined) return path.join(dir, chosen);
  if (!required) return null;
  const months = [...new Set(matches.map(fileMonth).filter((month) => month !== null))];
  if (months.length > 0)
    throw new InputFileError(
      dir,
      `the --asrank-counts directory holds the AS Rank counts of ${months.join(', ')}, not of ${compactDate} (no ${compactDate}${suffix})`,
    );
  if (matches.length > 0)
    throw new InputFileError(
      dir,
      `no ${compactDate}${suffix} in the AS Rank counts directory (found ${matches.join(', ')}, whose month is unknown: CAIDA's names start with YYYYMMDD)`,
    );
  throw new InputFileError(dir, `no *${suffix} file for ${compactDate} in the AS Rank counts directory`);
}

/** The YYYYMMDD a CAIDA file name starts with, or null when it starts with none. */
function fileMonth(name: string): string | null {
  return /^(\d{8})(?!\d)/.exec(name)?.[1] ?? null;
}

function numberField(text: string | undefined): number | null {
  if (text === undefined || text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

function nonNegativeIntegers(fields: string[], from: number, count: number): number[] | null {
  const values: number[] = [];
  for (let i = from; i < from + count; i += 1) {
    const text = fields[i];
    if (text === undefined || !/^\d+$/.test(text)) return null;
    values.push(Number(text));
  }
  return values;
}

function textOrNull(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  return text === '' ? null : text;
}

function asnArray(value: unknown): number[] | null {
  if (!Array.isArray(value)) return null;
  return value.map((v) => parseAsn(String(v))).filter((v): v is number => v !== null);
}

function rangeArray(value: unknown): [string, string][] | null {
  if (!Array.isArray(value)) return null;
  return value
    .filter((pair): pair is unknown[] => Array.isArray(pair) && pair.length === 2)
    .map((pair) => [String(pair[0]), String(pair[1])] as [string, string]);
}

async function readJsonLines(
  file: string,
  policy: BadLinePolicy,
  expected: string,
): Promise<Record<string, unknown>[]> {
  const records: Record<string, unknown>[] = [];
  for await (const { line, lineNumber } of readLines(file)) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      policy.reject(file, lineNumber, expected, line);
      continue;
    }
    records.push(value as Record<string, unknown>);
  }
  return records;
}

export async function parseAsrankCounts(
  dir: string,
  date: string,
  policy: BadLinePolicy,
): Promise<AsrankCounts> {
  let entries: string[];
  try {
    entries = fs.readdirSync(dir).sort();
  } catch (error) {
    throw new InputFileError(
      dir,
      `cannot read the AS Rank counts directory (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  const compactDate = date.replaceAll('-', '');
  const files: string[] = [];
  const result: AsrankCounts = {
    asnCounts: new Map(),
    orgCounts: new Map(),
    linkPaths: new PairMap(),
    asnLocations: new Map(),
    locations: [],
    dataset: null,
    files,
  };

  const asnCountFile = findFile(dir, entries, '-asn_count.txt', compactDate, true)!;
  files.push(asnCountFile);
  for await (const { line, lineNumber } of readLines(asnCountFile)) {
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split('|');
    const asn = parseAsn(fields[0] ?? '');
    const values = nonNegativeIntegers(fields, 1, 5);
    if (asn === null || values === null || fields.length < 6 || fields.length > 7) {
      policy.reject(
        asnCountFile,
        lineNumber,
        'asn|asnes|prefixes|addresses|asn_degree|asn_transit_degree (non-negative integers)',
        line,
      );
      continue;
    }
    const [coneAsns, conePrefixes, coneAddresses, degreeTotal, degreeTransit] = values as [
      number,
      number,
      number,
      number,
      number,
    ];
    result.asnCounts.set(asn, { coneAsns, conePrefixes, coneAddresses, degreeTotal, degreeTransit });
  }

  const orgCountFile = findFile(dir, entries, '-org_count.txt', compactDate, false);
  if (orgCountFile) {
    files.push(orgCountFile);
    for await (const { line, lineNumber } of readLines(orgCountFile)) {
      if (line === '' || line.startsWith('#')) continue;
      const fields = line.split('|');
      const values = nonNegativeIntegers(fields, 1, 8);
      if (fields.length !== 9 || (fields[0] ?? '') === '' || values === null) {
        policy.reject(
          orgCountFile,
          lineNumber,
          'org_id|orgs|asnes|prefixes|addresses|asn_degree|asn_transit_degree|org_degree|org_transit_degree',
          line,
        );
        continue;
      }
      const [
        ,
        coneAsns,
        conePrefixes,
        coneAddresses,
        degreeTotal,
        degreeTransit,
        orgDegreeTotal,
        orgDegreeTransit,
      ] = values as number[];
      result.orgCounts.set(fields[0]!, {
        coneAsns: coneAsns!,
        conePrefixes: conePrefixes!,
        coneAddresses: coneAddresses!,
        degreeTotal: degreeTotal!,
        degreeTransit: degreeTransit!,
        orgDegreeTotal: orgDegreeTotal!,
        orgDegreeTransit: orgDegreeTransit!,
      });
    }
  }

  const linkCountFile = findFile(dir, entries, '-asn_link_count.txt', compactDate, false);
  if (linkCountFile) {
    files.push(linkCountFile);
    for await (const { line, lineNumber } of readLines(linkCountFile)) {
      if (line === '' || line.startsWith('#')) continue;
      const fields = line.split('|');
      const asn0 = parseAsn(fields[0] ?? '');
      const asn1 = parseAsn(fields[1] ?? '');
      if (fields.length !== 3 || asn0 === null || asn1 === null || !/^\d+$/.test(fields[2] ?? '')) {
        policy.reject(linkCountFile, lineNumber, 'asn0|asn1|number_paths', line);
        continue;
      }
      result.linkPaths.set(asn0, asn1, Number(fields[2]));
    }
  }

  const asnLocFile = findFile(dir, entries, '-asn_loc.txt', compactDate, false);
  if (asnLocFile) {
    files.push(asnLocFile);
    for await (const { line, lineNumber } of readLines(asnLocFile)) {
      if (line === '' || line.startsWith('#')) continue;
      const fields = line.split('|');
      const asn = parseAsn(fields[0] ?? '');
      const latitude = numberField(fields[4]);
      const longitude = numberField(fields[5]);
      if (
        fields.length < 6 ||
        asn === null ||
        (fields[4] !== '' && latitude === null) ||
        (fields[5] !== '' && longitude === null)
      ) {
        policy.reject(asnLocFile, lineNumber, 'as|country|region|city|lat|lon|total-prefixes', line);
        continue;
      }
      result.asnLocations.set(asn, {
        country: textOrNull(fields[1])?.toUpperCase() ?? null,
        latitude,
        longitude,
      });
    }
  }

  const locationsFile = findFile(dir, entries, '.locations.jsonl', compactDate, false);
  if (locationsFile) {
    files.push(locationsFile);
    for (const record of await readJsonLines(locationsFile, policy, 'a JSON Location object per line')) {
      const locId = textOrNull(record.lid ?? record.locId);
      if (locId === null) continue;
      result.locations.push({
        locId,
        city: textOrNull(record.city),
        region: textOrNull(record.region),
        country: textOrNull(record.country),
        continent: textOrNull(record.continent),
        latitude: numberField(record.latitude === undefined ? undefined : String(record.latitude)),
        longitude: numberField(record.longitude === undefined ? undefined : String(record.longitude)),
        population: numberField(
          record.population === undefined || record.population === null
            ? undefined
            : String(record.population),
        ),
      });
    }
  }

  const datasetFile = findFile(dir, entries, '.dataset.jsonl', compactDate, false);
  if (datasetFile) {
    files.push(datasetFile);
    const record = (await readJsonLines(datasetFile, policy, 'a JSON dataset object per line'))[0];
    if (record) {
      const sources = Array.isArray(record.sources)
        ? (record.sources as Record<string, unknown>[]).map((s) => ({
            url: String(s.url ?? ''),
            date: String(s.date ?? ''),
            name: String(s.name ?? ''),
          }))
        : [];
      result.dataset = {
        clique: asnArray(record.clique),
        asnIxs: asnArray(record.asn_ixs),
        asnReservedRanges: rangeArray(record.asn_reserved_ranges),
        asnAssignedRanges: rangeArray(record.asn_assigned_ranges),
        sources,
        numberPrefixes: numberField(
          record.number_prefixes === undefined ? undefined : String(record.number_prefixes),
        ),
        numberAddresses: numberField(
          record.number_addresses === undefined ? undefined : String(record.number_addresses),
        ),
        datasetId: textOrNull(record.dataset_id),
      };
    }
  }
  return result;
}
