// A link's locations are sorted in memory (asnLink.ts reads them whole); their text must come in the byte order the
// root `locations` list gets from SQL on both stores, not in JavaScript's UTF-16 order.
import type { LocationRow } from '../src/context';
import { sortLocations } from '../src/types/location';

const place = (locId: string, city: string | null): LocationRow =>
  ({
    date: '2024-03-01',
    loc_id: locId,
    city,
    region: null,
    country_iso: null,
    continent: null,
    latitude: null,
    longitude: null,
    population: null,
  }) as LocationRow;

describe("a link's locations in memory", () => {
  const rows = [
    place('a', '\u{1F4A5}ville'),
    place('b', '\uFB00rankfurt'),
    place('c', null),
    place('d', '\uE000Sydney'),
  ];

  it('sorts text by its UTF-8 bytes, nulls last, in both directions', () => {
    const cities = (order: 'city' | '-city') =>
      sortLocations(rows, [{ key: 'city', direction: order === 'city' ? 'asc' : 'desc' }]).map(
        (row) => row.city,
      );
    expect(cities('city')).toEqual(['\uE000Sydney', '\uFB00rankfurt', '\u{1F4A5}ville', null]);
    expect(cities('-city')).toEqual(['\u{1F4A5}ville', '\uFB00rankfurt', '\uE000Sydney', null]);
  });
});
