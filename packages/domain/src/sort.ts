import { ArgumentError, quoteValue } from './errors';

/** The list operations that take a `sort` argument. */
export type SortOperation = 'asns' | 'organizations' | 'asnLinks' | 'locations' | 'datasets';

/** Sortable keys per operation, exactly as the spec's Sorting table names them (datasets: our choice, see decisions). */
export const SORT_KEYS: Record<SortOperation, readonly string[]> = {
  asns: [
    'asn',
    'asnName',
    'rank',
    'source',
    'cone.numberAsns',
    'cone.numberPrefixes',
    'cone.numberAddresses',
    'asnDegree.peer',
    'asnDegree.customer',
    'asnDegree.transit',
    'asnDegree.sibling',
    'asnDegree.total',
  ],
  organizations: [
    'orgId',
    'orgName',
    'rank',
    'asnDegree.provider',
    'asnDegree.peer',
    'asnDegree.customer',
    'asnDegree.transit',
    'asnDegree.sibling',
    'asnDegree.total',
    'cone.numberAsns',
    'cone.numberPrefixes',
    'cone.numberAddresses',
  ],
  asnLinks: ['asn0', 'asn1', 'numberPaths', 'relationship', 'correctedBy'],
  locations: ['locId', 'city', 'region', 'country', 'continent', 'population'],
  datasets: [
    'date',
    'datasetId',
    'numberAsns',
    'numberAsnsSeen',
    'numberPrefixes',
    'numberAddresses',
    'numberOrganizations',
  ],
};

/** The key every historic query may also sort by (spec: "Historic queries also support sorting by date"). */
export const HISTORIC_SORT_KEY = 'date';

export type SortDirection = 'asc' | 'desc';

/**
 * One key of a parsed `sort` argument. `key` is always one of SORT_KEYS[operation] (or `date` for historic queries),
 * so the SQL layer maps it to a column through a fixed table, never by pasting client text into SQL.
 */
export interface SortKey {
  key: string;
  direction: SortDirection;
}

/** The keys a `sort` argument may use for this operation. */
export function allowedSortKeys(operation: SortOperation, historic = false): readonly string[] {
  const keys = SORT_KEYS[operation];
  return historic && !keys.includes(HISTORIC_SORT_KEY) ? [...keys, HISTORIC_SORT_KEY] : keys;
}

/**
 * Parses a `sort` argument: comma-separated keys, each with an optional leading `+` (ascending, the default) or `-`
 * (descending). Whitespace around keys is ignored (a `+` in a URL query string arrives as a space). Unknown or repeated
 * keys and empty entries are errors. An absent or blank argument yields `[]` (the caller's default order).
 */
export function parseSort(
  value: string | null | undefined,
  operation: SortOperation,
  options: { historic?: boolean; argument?: string } = {},
): SortKey[] {
  const argument = options.argument ?? 'sort';
  if (value === null || value === undefined || value.trim() === '') return [];
  const allowed = allowedSortKeys(operation, options.historic ?? false);
  const allowedText = allowed.join(', ');
  const seen = new Set<string>();
  return value.split(',').map((rawEntry) => {
    const entry = rawEntry.trim();
    let direction: SortDirection = 'asc';
    let key = entry;
    if (entry.startsWith('-') || entry.startsWith('+')) {
      direction = entry.startsWith('-') ? 'desc' : 'asc';
      key = entry.slice(1).trim();
    }
    if (key === '') {
      throw new ArgumentError(
        argument,
        `${argument} has an empty key in ${quoteValue(value)}; use comma-separated keys, each optionally prefixed with + or -, from: ${allowedText}`,
      );
    }
    if (!allowed.includes(key)) {
      if (key === HISTORIC_SORT_KEY && options.historic === false) {
        // The key exists, for a query over several months; listing the keys without it would not say so.
        throw new ArgumentError(
          argument,
          `${argument} key "date" needs a query over several months (dateStart and dateEnd, or dates); ` +
            `this one reads a single month; allowed keys: ${allowedText}`,
        );
      }
      throw new ArgumentError(
        argument,
        `${argument} key ${quoteValue(key)} is not sortable for ${operation}; allowed keys: ${allowedText}`,
      );
    }
    if (seen.has(key)) {
      throw new ArgumentError(argument, `${argument} names the key ${quoteValue(key)} more than once`);
    }
    seen.add(key);
    return { key, direction };
  });
}

/**
 * Orders two strings as their UTF-8 bytes do, which is code point order: the order of SQLite's BINARY collation and
 * PostgreSQL's "C", in which the API promises text sorts. JavaScript's `<` compares UTF-16 code units, which puts a
 * character above U+FFFF (a surrogate pair, U+D800-U+DFFF) before U+E000-U+FFFF; moving the two ranges past each
 * other restores code point order without decoding.
 */
export function compareCodePoints(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index += 1) {
    const a = left.charCodeAt(index);
    const b = right.charCodeAt(index);
    if (a !== b) return codePointRank(a) - codePointRank(b);
  }
  return left.length - right.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}
