// Fixed reference data for the synthetic Internet: the five regional registries, their 32-bit ASN blocks
// and IPv6 ranges, and a small table of real countries (ISO 3166 alpha-2) with a few real cities each,
// so generated organizations, ASNs and link locations carry plausible countries and coordinates.
// It is a fixed table on purpose: the generator's output must never change when an npm data package
// is updated, or the committed sample would drift.

export type Registry = 'ARIN' | 'RIPE' | 'APNIC' | 'LACNIC' | 'AFRINIC';

export interface RegistryInfo {
  name: Registry;
  /** Share of organizations registered here. */
  weight: number;
  /** 32-bit ASN block [first, last] handed out by this registry. */
  asn32: [number, number];
  /** First 16 bits of this registry's IPv6 space (e.g. 0x2a00 for RIPE). */
  ipv6Prefix: number;
  countries: readonly string[];
}

export const REGISTRIES: readonly RegistryInfo[] = [
  {
    name: 'ARIN',
    weight: 25,
    asn32: [393216, 402431],
    ipv6Prefix: 0x2600,
    countries: ['US', 'US', 'US', 'US', 'CA', 'US', 'CA'],
  },
  {
    name: 'RIPE',
    weight: 36,
    asn32: [196608, 216475],
    ipv6Prefix: 0x2a00,
    countries: [
      'DE',
      'GB',
      'NL',
      'FR',
      'RU',
      'IT',
      'ES',
      'PL',
      'SE',
      'UA',
      'CH',
      'TR',
      'IR',
      'CZ',
      'RO',
      'DK',
      'NO',
      'FI',
      'AE',
    ],
  },
  {
    name: 'APNIC',
    weight: 21,
    asn32: [131072, 151865],
    ipv6Prefix: 0x2400,
    countries: ['CN', 'JP', 'IN', 'AU', 'ID', 'KR', 'SG', 'HK', 'TW', 'BD', 'VN', 'NZ', 'PH', 'TH'],
  },
  {
    name: 'LACNIC',
    weight: 13,
    asn32: [262144, 273819],
    ipv6Prefix: 0x2800,
    countries: ['BR', 'BR', 'BR', 'AR', 'MX', 'CL', 'CO', 'PE', 'EC'],
  },
  {
    name: 'AFRINIC',
    weight: 5,
    asn32: [327680, 329983],
    ipv6Prefix: 0x2c0f,
    countries: ['ZA', 'NG', 'KE', 'EG', 'GH', 'TZ', 'MA'],
  },
];

export type Continent = 'Africa' | 'Asia' | 'Europe' | 'North America' | 'Oceania' | 'South America';

export interface City {
  city: string;
  region: string;
  country: string;
  continent: Continent;
  latitude: number;
  longitude: number;
  population: number;
}

const c = (
  city: string,
  region: string,
  country: string,
  continent: Continent,
  latitude: number,
  longitude: number,
  population: number,
): City => ({
  city,
  region,
  country,
  continent,
  latitude,
  longitude,
  population,
});

/** Real cities (approximate coordinates and populations); the first city of a country is its main hub. */
export const CITIES: readonly City[] = [
  c('Ashburn', 'VA', 'US', 'North America', 39.0438, -77.4874, 43511),
  c('New York', 'NY', 'US', 'North America', 40.7128, -74.006, 8336817),
  c('Chicago', 'IL', 'US', 'North America', 41.8781, -87.6298, 2693976),
  c('Dallas', 'TX', 'US', 'North America', 32.7767, -96.797, 1343573),
  c('Los Angeles', 'CA', 'US', 'North America', 34.0522, -118.2437, 3979576),
  c('San Jose', 'CA', 'US', 'North America', 37.3382, -121.8863, 1021795),
  c('Seattle', 'WA', 'US', 'North America', 47.6062, -122.3321, 753675),
  c('Miami', 'FL', 'US', 'North America', 25.7617, -80.1918, 467963),
  c('Toronto', 'ON', 'CA', 'North America', 43.6532, -79.3832, 2731571),
  c('Montreal', 'QC', 'CA', 'North America', 45.5017, -73.5673, 1704694),
  c('Frankfurt', 'HE', 'DE', 'Europe', 50.1109, 8.6821, 753056),
  c('Berlin', 'BE', 'DE', 'Europe', 52.52, 13.405, 3644826),
  c('Munich', 'BY', 'DE', 'Europe', 48.1351, 11.582, 1471508),
  c('London', 'ENG', 'GB', 'Europe', 51.5074, -0.1278, 8982000),
  c('Manchester', 'ENG', 'GB', 'Europe', 53.4808, -2.2426, 553230),
  c('Amsterdam', 'NH', 'NL', 'Europe', 52.3676, 4.9041, 872680),
  c('Rotterdam', 'ZH', 'NL', 'Europe', 51.9244, 4.4777, 651446),
  c('Paris', 'IDF', 'FR', 'Europe', 48.8566, 2.3522, 2148271),
  c('Marseille', 'PAC', 'FR', 'Europe', 43.2965, 5.3698, 861635),
  c('Moscow', 'MOW', 'RU', 'Europe', 55.7558, 37.6173, 12506468),
  c('Saint Petersburg', 'SPE', 'RU', 'Europe', 59.9311, 30.3609, 5351935),
  c('Milan', 'LOM', 'IT', 'Europe', 45.4642, 9.19, 1352000),
  c('Rome', 'LAZ', 'IT', 'Europe', 41.9028, 12.4964, 2873000),
  c('Madrid', 'MD', 'ES', 'Europe', 40.4168, -3.7038, 3223334),
  c('Barcelona', 'CT', 'ES', 'Europe', 41.3874, 2.1686, 1620343),
  c('Warsaw', 'MZ', 'PL', 'Europe', 52.2297, 21.0122, 1790658),
  c('Stockholm', 'AB', 'SE', 'Europe', 59.3293, 18.0686, 975904),
  c('Kyiv', '30', 'UA', 'Europe', 50.4501, 30.5234, 2962180),
  c('Zurich', 'ZH', 'CH', 'Europe', 47.3769, 8.5417, 415367),
  c('Istanbul', '34', 'TR', 'Asia', 41.0082, 28.9784, 15462452),
  c('Tehran', '23', 'IR', 'Asia', 35.6892, 51.389, 8693706),
  c('Prague', '10', 'CZ', 'Europe', 50.0755, 14.4378, 1309000),
  c('Bucharest', 'B', 'RO', 'Europe', 44.4268, 26.1025, 1883425),
  c('Copenhagen', '84', 'DK', 'Europe', 55.6761, 12.5683, 602481),
  c('Oslo', '03', 'NO', 'Europe', 59.9139, 10.7522, 693494),
  c('Helsinki', '18', 'FI', 'Europe', 60.1699, 24.9384, 631695),
  c('Dubai', 'DU', 'AE', 'Asia', 25.2048, 55.2708, 3331420),
  c('Beijing', 'BJ', 'CN', 'Asia', 39.9042, 116.4074, 21540000),
  c('Shanghai', 'SH', 'CN', 'Asia', 31.2304, 121.4737, 24870895),
  c('Guangzhou', 'GD', 'CN', 'Asia', 23.1291, 113.2644, 15300000),
  c('Tokyo', '13', 'JP', 'Asia', 35.6762, 139.6503, 13960000),
  c('Osaka', '27', 'JP', 'Asia', 34.6937, 135.5023, 2691000),
  c('Mumbai', 'MH', 'IN', 'Asia', 19.076, 72.8777, 12442373),
  c('Chennai', 'TN', 'IN', 'Asia', 13.0827, 80.2707, 7088000),
  c('Sydney', 'NSW', 'AU', 'Oceania', -33.8688, 151.2093, 5312000),
  c('Melbourne', 'VIC', 'AU', 'Oceania', -37.8136, 144.9631, 5078000),
  c('Jakarta', 'JK', 'ID', 'Asia', -6.2088, 106.8456, 10562088),
  c('Seoul', '11', 'KR', 'Asia', 37.5665, 126.978, 9776000),
  c('Singapore', '01', 'SG', 'Asia', 1.3521, 103.8198, 5686000),
  c('Hong Kong', 'HK', 'HK', 'Asia', 22.3193, 114.1694, 7482500),
  c('Taipei', 'TPE', 'TW', 'Asia', 25.033, 121.5654, 2646204),
  c('Dhaka', '13', 'BD', 'Asia', 23.8103, 90.4125, 8906039),
  c('Hanoi', '64', 'VN', 'Asia', 21.0278, 105.8342, 8053663),
  c('Auckland', 'AUK', 'NZ', 'Oceania', -36.8485, 174.7633, 1657000),
  c('Manila', 'NCR', 'PH', 'Asia', 14.5995, 120.9842, 1780148),
  c('Bangkok', '10', 'TH', 'Asia', 13.7563, 100.5018, 10539000),
  c('Sao Paulo', 'SP', 'BR', 'South America', -23.5505, -46.6333, 12325232),
  c('Rio de Janeiro', 'RJ', 'BR', 'South America', -22.9068, -43.1729, 6747815),
  c('Fortaleza', 'CE', 'BR', 'South America', -3.7319, -38.5267, 2686612),
  c('Buenos Aires', 'C', 'AR', 'South America', -34.6037, -58.3816, 2890151),
  c('Mexico City', 'CMX', 'MX', 'North America', 19.4326, -99.1332, 9209944),
  c('Santiago', 'RM', 'CL', 'South America', -33.4489, -70.6693, 6257516),
  c('Bogota', 'DC', 'CO', 'South America', 4.711, -74.0721, 7412566),
  c('Lima', 'LIM', 'PE', 'South America', -12.0464, -77.0428, 9751717),
  c('Quito', 'P', 'EC', 'South America', -0.1807, -78.4678, 2011388),
  c('Johannesburg', 'GT', 'ZA', 'Africa', -26.2041, 28.0473, 5635127),
  c('Cape Town', 'WC', 'ZA', 'Africa', -33.9249, 18.4241, 4618000),
  c('Lagos', 'LA', 'NG', 'Africa', 6.5244, 3.3792, 14862000),
  c('Nairobi', '30', 'KE', 'Africa', -1.2921, 36.8219, 4397073),
  c('Cairo', 'C', 'EG', 'Africa', 30.0444, 31.2357, 9539673),
  c('Accra', 'AA', 'GH', 'Africa', 5.6037, -0.187, 2291352),
  c('Dar es Salaam', '02', 'TZ', 'Africa', -6.7924, 39.2083, 4364541),
  c('Casablanca', 'CAS', 'MA', 'Africa', 33.5731, -7.5898, 3359818),
];

/** The CAIDA-style location id: `City-Region-CC` (as in AS Rank's `Aachen-NW-DE`). */
export function locationId(city: City): string {
  return `${city.city}-${city.region}-${city.country}`;
}

/** Per continent, the city where networks of many countries meet (big IXPs); long-haul links are often seen there. */
export const HUB_CITY_BY_CONTINENT: Readonly<Record<Continent, string>> = {
  'North America': 'Ashburn',
  'South America': 'Sao Paulo',
  Europe: 'Frankfurt',
  Africa: 'Johannesburg',
  Asia: 'Singapore',
  Oceania: 'Sydney',
};

export function citiesByCountry(): Map<string, City[]> {
  const byCountry = new Map<string, City[]>();
  for (const city of CITIES) {
    const list = byCountry.get(city.country) ?? [];
    list.push(city);
    byCountry.set(city.country, list);
  }
  return byCountry;
}
