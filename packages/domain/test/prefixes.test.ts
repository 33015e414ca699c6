import fc from 'fast-check';
import {
  ArgumentError,
  computeConePrefixStats,
  countUniqueAddresses,
  parsePrefix,
  parsePrefixText,
  prefixSize,
  type ParsedPrefix,
} from '../src';

describe('parsePrefix', () => {
  it('parses IPv4 and masks host bits', () => {
    expect(parsePrefix('192.0.2.0', 24)).toEqual({
      ipVersion: 4,
      network: '192.0.2.0',
      length: 24,
      firstAddress: 0xc0000200n,
    });
    expect(parsePrefix('10.1.2.3', 8).network).toBe('10.0.0.0');
    expect(parsePrefix('0.0.0.0', 0).firstAddress).toBe(0n);
    expect(parsePrefix('255.255.255.255', 32).firstAddress).toBe(0xffffffffn);
  });

  it.each([
    ['2001:db8::', 32, '2001:db8::'],
    ['2001:0DB8:0000:0000:0000:0000:0000:0001', 128, '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', 128, '2001:db8::1:0:0:1'],
    ['::', 0, '::'],
    ['2001:db8:1:2:3:4:5:6', 48, '2001:db8:1::'],
    ['::ffff:192.0.2.1', 128, '::ffff:c000:201'],
    ['fe80:0:0:1::', 64, 'fe80:0:0:1::'],
  ])('parses IPv6 %s/%d canonically as %s', (network, length, canonical) => {
    const prefix = parsePrefix(network, length);
    expect(prefix.ipVersion).toBe(6);
    expect(prefix.network).toBe(canonical);
    expect(parsePrefix(prefix.network, length)).toEqual(prefix);
  });

  it.each([
    ['256.0.0.0', 8],
    ['1.2.3', 24],
    ['1.2.3.4.5', 24],
    ['a.b.c.d', 24],
    ['2001:db8:::1', 64],
    ['2001:db8::1::2', 64],
    ['1:2:3:4:5:6:7:8:9', 64],
    ['12345::', 16],
    ['', 0],
  ])('rejects the address %j', (network, length) => {
    expect(() => parsePrefix(network, length)).toThrow(/invalid IPv[46] network address/);
  });

  it.each([
    ['10.0.0.0', 33],
    ['10.0.0.0', -1],
    ['10.0.0.0', 8.5],
    ['2001:db8::', 129],
  ])('rejects the length of %s/%d', (network, length) => {
    expect(() => parsePrefix(network, length)).toThrow(ArgumentError);
  });

  it('parses network/length text', () => {
    expect(parsePrefixText('203.0.113.0/24').firstAddress).toBe(0xcb007100n);
    expect(() => parsePrefixText('203.0.113.0')).toThrow(/network\/length/);
  });
});

describe('countUniqueAddresses', () => {
  const v4 = (text: string): ParsedPrefix => parsePrefixText(text);

  it('counts overlapping prefixes once and keeps the families apart', () => {
    const result = countUniqueAddresses(
      [
        '10.0.0.0/8',
        '10.1.0.0/16',
        '10.0.0.0/8',
        '192.0.2.0/24',
        '192.0.2.128/25',
        '192.0.3.0/24',
        '2001:db8::/32',
        '2001:db8:1::/48',
      ].map(v4),
    );
    expect(result.v4).toBe(2 ** 24 + 512);
    expect(result.v6).toBe(2n ** 96n);
  });

  it('is zero for nothing', () => {
    expect(countUniqueAddresses([])).toEqual({ v4: 0, v6: 0n });
  });

  it('equals the size of the set of covered addresses (small prefixes, checked address by address)', () => {
    const smallPrefix = fc
      .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 24, max: 32 }))
      .map(([host, length]) => parsePrefix(`198.51.100.${host}`, length));
    fc.assert(
      fc.property(fc.array(smallPrefix, { maxLength: 30 }), (prefixes) => {
        const covered = new Set<bigint>();
        for (const prefix of prefixes) {
          for (let offset = 0n; offset < prefixSize(prefix); offset += 1n)
            covered.add(prefix.firstAddress + offset);
        }
        expect(countUniqueAddresses(prefixes).v4).toBe(covered.size);
      }),
    );
  });
});

describe('computeConePrefixStats', () => {
  const prefixesByAsn = new Map<number, ParsedPrefix[]>([
    [1, ['10.0.0.0/8', '2001:db8::/32'].map((text) => parsePrefixText(text))],
    [2, ['10.1.0.0/16', '192.0.2.0/24'].map((text) => parsePrefixText(text))],
    // MOAS: 3 originates 192.0.2.0/24 too.
    [3, ['192.0.2.0/24', '2001:db8:1::/48'].map((text) => parsePrefixText(text))],
  ]);

  it('counts MOAS prefixes once and overlapping addresses once, per family', () => {
    const stats = computeConePrefixStats(
      new Map<number, number[]>([
        [1, [1, 2, 3]],
        [2, [2, 3]],
        [4, [4]],
      ]),
      prefixesByAsn,
    );
    expect(stats.get(1)).toEqual({
      numberPrefixes: 5,
      numberPrefixesV4: 3,
      numberPrefixesV6: 2,
      numberAddressesV4: 2 ** 24 + 256,
      numberAddressesV6: 2n ** 96n,
    });
    expect(stats.get(2)).toEqual({
      numberPrefixes: 3,
      numberPrefixesV4: 2,
      numberPrefixesV6: 1,
      numberAddressesV4: 2 ** 16 + 256,
      numberAddressesV6: 2n ** 80n,
    });
    // A cone whose ASN originates nothing (cone with ASNs but no prefixes).
    expect(stats.get(4)).toEqual({
      numberPrefixes: 0,
      numberPrefixesV4: 0,
      numberPrefixesV6: 0,
      numberAddressesV4: 0,
      numberAddressesV6: 0n,
    });
  });

  it('agrees with countUniqueAddresses for random cones, small and large (both merge paths)', () => {
    const prefixArbitrary = fc
      .tuple(fc.boolean(), fc.integer({ min: 0, max: 65535 }), fc.integer({ min: 8, max: 24 }))
      .map(([v6, bits, length]) =>
        v6
          ? parsePrefix(`2001:db8:${bits.toString(16)}::`, length + 24)
          : parsePrefix(`10.${bits >> 8}.${bits & 255}.0`, length),
      );
    fc.assert(
      fc.property(
        fc.array(fc.array(prefixArbitrary, { maxLength: 8 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.array(fc.integer({ min: 0, max: 14 }), { maxLength: 14 }), { maxLength: 8 }),
        (prefixLists, coneLists) => {
          const byAsn = new Map(prefixLists.map((prefixes, asn) => [asn, prefixes]));
          const cones = new Map(coneLists.map((members, index) => [index, members]));
          const stats = computeConePrefixStats(cones, byAsn);
          for (const [index, members] of cones) {
            const prefixes = members.flatMap((asn) => byAsn.get(asn) ?? []);
            const distinct = new Set(prefixes.map((prefix) => `${prefix.network}/${prefix.length}`));
            const expected = countUniqueAddresses(prefixes);
            const actual = stats.get(index);
            expect(actual?.numberPrefixes).toBe(distinct.size);
            expect(actual?.numberAddressesV4).toBe(expected.v4);
            expect(actual?.numberAddressesV6).toBe(expected.v6);
          }
        },
      ),
    );
  });
});
