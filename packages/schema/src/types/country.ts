// Country metadata (shared by every month), looked up by ISO code in the table the process keeps per data version
// (context.country, StoreFacts.countries).
import { CountryRef } from './refs';

function parseLanguages(json: string): string[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

CountryRef.implement({
  description: 'A country (ISO 3166-1 alpha-2).',
  fields: (t) => ({
    iso: t.exposeString('iso'),
    name: t.exposeString('name'),
    capital: t.exposeString('capital', { nullable: true }),
    continent: t.exposeString('continent', { nullable: true }),
    languages: t.stringList({ resolve: (country) => parseLanguages(country.languages) }),
    population: t.float({
      nullable: true,
      resolve: (country) => (country.population == null ? null : Number(country.population)),
    }),
    area: t.float({ nullable: true, description: 'Area in km².', resolve: (country) => country.area }),
  }),
});
