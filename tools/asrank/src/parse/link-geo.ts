// AS links with geographic annotations. Two layouts exist and both are read:
//   CAIDA as-rel-geo:  asn0|asn1|loc,source,source|loc,source|...  (each location followed by its evidence sources)
//   our generator:     asn0|asn1|loc,loc,...
// Every comma-separated token after the ASNs is a candidate; buildMonth keeps those naming a known location.
//   locations:   lid|continent|country|region|city|latitude|longitude|population
import { parseAsn, type BadLinePolicy } from '../input/bad-lines';
import type { LocationRecord } from './asrank-counts';

export interface LinkGeo {
  asn0: number;
  asn1: number;
  locIds: string[];
}

function optionalNumber(text: string | undefined): number | null {
  if (text === undefined || text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

function optionalText(text: string | undefined): string | null {
  const trimmed = (text ?? '').trim();
  return trimmed === '' ? null : trimmed;
}

export async function parseAsRelGeo(file: string, policy: BadLinePolicy): Promise<LinkGeo[]> {
  const links: LinkGeo[] = [];
  for await (const { line, lineNumber } of policy.lines(file)) {
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split('|');
    const asn0 = parseAsn(fields[0] ?? '');
    const asn1 = parseAsn(fields[1] ?? '');
    const locIds = fields
      .slice(2)
      .flatMap((f) => f.split(','))
      .map((id) => id.trim())
      .filter((id) => id !== '');
    if (asn0 === null || asn1 === null || fields.length < 3 || locIds.length === 0) {
      policy.reject(
        file,
        lineNumber,
        'asn0|asn1|location,source,...|... with at least one location id',
        line,
      );
      continue;
    }
    links.push({ asn0, asn1, locIds: [...new Set(locIds)] });
  }
  return links;
}

export async function parseGeoLocations(file: string, policy: BadLinePolicy): Promise<LocationRecord[]> {
  const locations: LocationRecord[] = [];
  for await (const { line, lineNumber } of policy.lines(file)) {
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split('|');
    const locId = optionalText(fields[0]);
    if (
      fields.length !== 8 ||
      locId === null ||
      (fields[5] !== '' && optionalNumber(fields[5]) === null) ||
      (fields[6] !== '' && optionalNumber(fields[6]) === null)
    ) {
      policy.reject(
        file,
        lineNumber,
        'lid|continent|country|region|city|latitude|longitude|population',
        line,
      );
      continue;
    }
    locations.push({
      locId,
      continent: optionalText(fields[1]),
      country: optionalText(fields[2]),
      region: optionalText(fields[3]),
      city: optionalText(fields[4]),
      latitude: optionalNumber(fields[5]),
      longitude: optionalNumber(fields[6]),
      population: optionalNumber(fields[7]),
    });
  }
  return locations;
}
