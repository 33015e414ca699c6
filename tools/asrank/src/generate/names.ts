// Plausible, deterministic names for synthetic organizations and ASes, shaped like the real registries'
// records (ARIN `LVLT-ARIN` org ids and `LVLT-1` AS names, RIPE `ORG-TA906-RIPE`, APNIC `ORG-PDL4-AP-APNIC`,
// LACNIC `@del-28007`, AFRINIC `ORG-IAL2-AFRINIC`).
import type { Registry } from './geography';
import type { Random } from './random';

const SYLLABLES = [
  'al',
  'bar',
  'cor',
  'dan',
  'el',
  'fa',
  'gen',
  'hal',
  'in',
  'jo',
  'ka',
  'lum',
  'mar',
  'nor',
  'or',
  'pan',
  'qua',
  'ros',
  'sel',
  'tel',
  'ul',
  'ver',
  'wen',
  'xa',
  'yor',
  'zen',
  'bri',
  'cla',
  'dro',
  'fen',
  'gra',
  'kri',
  'lin',
  'mo',
  'net',
  'tri',
];
const KIND_WORDS = [
  'Networks',
  'Telecom',
  'Communications',
  'Broadband',
  'Internet',
  'Hosting',
  'Data',
  'Fiber',
  'Cloud',
  'Connect',
  'Online',
  'Systems',
];
const LEGAL_FORMS: Record<Registry, readonly string[]> = {
  ARIN: ['Inc.', 'LLC', 'Corp.', 'Inc.'],
  RIPE: ['Ltd', 'GmbH', 'B.V.', 'AB', 'S.A.', 'LLC', 'SAS', 'Sp. z o.o.'],
  APNIC: ['Pty Ltd', 'Co., Ltd.', 'Pvt Ltd', 'Limited', 'Pte. Ltd.'],
  LACNIC: ['Ltda', 'S.A.', 'S.A. de C.V.', 'SpA'],
  AFRINIC: ['Ltd', 'SARL', 'PLC', '(Pty) Ltd'],
};

export interface OrgNames {
  orgName: string;
  /** Upper-case short handle used in ids and AS names, e.g. `KORTEL`. */
  handle: string;
}

export function makeOrgNames(random: Random, registry: Registry): OrgNames {
  const syllableCount = random.int(2, 3);
  let stem = '';
  for (let index = 0; index < syllableCount; index++) stem += random.pick(SYLLABLES);
  const brand = stem.charAt(0).toUpperCase() + stem.slice(1);
  const orgName = `${brand} ${random.pick(KIND_WORDS)} ${random.pick(LEGAL_FORMS[registry])}`;
  return { orgName, handle: stem.toUpperCase() };
}

/** Registry-shaped organization id; `serial` keeps ids unique. */
export function makeOrgId(registry: Registry, handle: string, serial: number, firstAsn: number): string {
  const initials = handle.slice(0, 3);
  switch (registry) {
    case 'ARIN':
      return `${handle.slice(0, 6)}-${serial}-ARIN`;
    case 'RIPE':
      return `ORG-${initials}${serial}-RIPE`;
    case 'APNIC':
      return `ORG-${initials}${serial}-AP-APNIC`;
    case 'AFRINIC':
      return `ORG-${initials}${serial}-AFRINIC`;
    case 'LACNIC':
      return `@del-${firstAsn}`;
  }
}

/** AS name as registries show it: `KORTEL-NET`, `KORTEL-AS-AP`, `AS-KORTEL2`. */
export function makeAsName(registry: Registry, handle: string, asn: number, memberIndex: number): string {
  const suffix = memberIndex === 0 ? '' : `${memberIndex + 1}`;
  switch (registry) {
    case 'ARIN':
      return `${handle}-NET${suffix}`;
    case 'RIPE':
      return `${handle}${suffix}-AS`;
    case 'APNIC':
      return `${handle}${suffix}-AS-AP`;
    case 'LACNIC':
      return `AS${asn}`;
    case 'AFRINIC':
      return `AS-${handle}${suffix}`;
  }
}

/** Opaque id as in the 6-field AS table: 32 hex digits for ARIN, 8 upper-case hex for APNIC/AFRINIC, empty for RIPE/LACNIC. */
export function makeOpaqueId(random: Random, registry: Registry): string {
  if (registry === 'RIPE' || registry === 'LACNIC') return '';
  if (registry === 'ARIN') return `${random.hex(32)}_ARIN`;
  return `${random.hex(8).toUpperCase()}_${registry}`;
}
