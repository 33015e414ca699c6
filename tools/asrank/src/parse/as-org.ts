// CAIDA AS-to-Organization files (as-org2info). Two tables in one file, each introduced by a `# format:` line:
//   organizations: org_id|changed|org_name|country|source
//   ASes:          aut|changed|aut_name|org_id|source            (old, 5 fields, e.g. 2017)
//                  aut|changed|aut_name|org_id|opaque_id|source  (new, 6 fields, 2018+)
// The order of the two tables varies between releases, so the layout is read from each `# format:` header.
import { parseAsn, type BadLinePolicy } from '../input/bad-lines';

export interface OrgRecord {
  orgId: string;
  orgName: string;
  country: string | null;
  source: string | null;
}

export interface AsOrgRecord {
  asn: number;
  asnName: string;
  orgId: string | null;
  source: string | null;
}

export interface AsOrgFile {
  organizations: Map<string, OrgRecord>;
  asns: Map<number, AsOrgRecord>;
  /** `# date: YYYYMM` header, when present. */
  date: string | null;
}

type Section = { kind: 'org'; columns: string[] } | { kind: 'aut'; columns: string[] };

function emptyToNull(value: string | undefined): string | null {
  const trimmed = (value ?? '').trim();
  return trimmed === '' ? null : trimmed;
}

export async function parseAsOrg(file: string, policy: BadLinePolicy): Promise<AsOrgFile> {
  const organizations = new Map<string, OrgRecord>();
  const asns = new Map<number, AsOrgRecord>();
  let section: Section | null = null;
  let date: string | null = null;
  for await (const { line, lineNumber } of policy.lines(file)) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const format = /^#\s*format:\s*(.*)$/i.exec(line);
      if (format) {
        const columns = format[1]!.split('|').map((c) => c.trim().toLowerCase());
        if (columns[0] === 'org_id') section = { kind: 'org', columns };
        else if (columns[0] === 'aut') section = { kind: 'aut', columns };
        else policy.reject(file, lineNumber, 'a "# format:" header starting with org_id or aut', line);
        continue;
      }
      const dateHeader = /^#\s*date:\s*(\d{6,8})\s*$/i.exec(line);
      if (dateHeader) date = dateHeader[1]!;
      continue;
    }
    if (section === null) {
      policy.reject(
        file,
        lineNumber,
        'a "# format:org_id|..." or "# format:aut|..." header before the data',
        line,
      );
      continue;
    }
    const fields = line.split('|');
    const width = section.columns.length;
    // Organization names occasionally contain "|": the name absorbs the extra fields.
    if (fields.length < width) {
      policy.reject(file, lineNumber, `${width} |-separated fields (${section.columns.join('|')})`, line);
      continue;
    }
    const extra = fields.length - width;
    const field = (name: string): string | undefined => {
      const index = section!.columns.indexOf(name);
      if (index === -1) return undefined;
      const nameIndex = section!.columns.indexOf(section!.kind === 'org' ? 'org_name' : 'aut_name');
      if (index < nameIndex || extra === 0) return fields[index];
      if (index === nameIndex) return fields.slice(index, index + extra + 1).join('|');
      return fields[index + extra];
    };
    if (section.kind === 'org') {
      const orgId = emptyToNull(field('org_id'));
      if (orgId === null) {
        policy.reject(file, lineNumber, 'a non-empty org_id in the first field', line);
        continue;
      }
      organizations.set(orgId, {
        orgId,
        orgName: (field('org_name') ?? '').trim(),
        country: emptyToNull(field('country'))?.toUpperCase() ?? null,
        source: emptyToNull(field('source')),
      });
    } else {
      const asn = parseAsn((field('aut') ?? '').trim());
      if (asn === null) {
        policy.reject(file, lineNumber, 'an ASN (0..4294967295) in the first field', line);
        continue;
      }
      asns.set(asn, {
        asn,
        asnName: (field('aut_name') ?? '').trim(),
        orgId: emptyToNull(field('org_id')),
        source: emptyToNull(field('source')),
      });
    }
  }
  return { organizations, asns, date };
}
