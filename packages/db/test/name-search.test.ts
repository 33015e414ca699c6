// Each dataset date has its own name search index per searched table, named so the date can be read back, and the
// statements that build and drop them name only that date's indexes.
import {
  clearMonthNameSearchStatements,
  fillMonthNameSearchStatements,
  nameSearchIndex,
  parseNameSearchIndex,
} from '../src';

describe('name search index names', () => {
  it('name one index per table and date, and read the table and date back', () => {
    expect(nameSearchIndex('asns', '2017-12-01')).toBe('asns_name_search_20171201');
    expect(nameSearchIndex('organizations', '0001-01-31')).toBe('organizations_name_search_00010131');
    for (const [table, date] of [
      ['asns', '2017-12-01'],
      ['organizations', '2024-02-29'],
    ] as const)
      expect(parseNameSearchIndex(nameSearchIndex(table, date))).toEqual({ table, date });
    for (const name of [
      'asns',
      'asns_name_search',
      'asns_name_search_2017120',
      'links_name_search_20171201',
      'asns_name_search_20171201_data',
    ])
      expect(parseNameSearchIndex(name)).toBeNull();
  });

  it('refuses text that is not a YYYY-MM-DD date (it becomes part of a table name)', () => {
    for (const text of ['2017-12', '20171201', '2017-12-01 ', '2017-12-01; drop table asns', ''])
      expect(() => nameSearchIndex('asns', text)).toThrow(`not a dataset date (YYYY-MM-DD): ${text}`);
  });

  it("builds and drops only the given date's indexes", () => {
    const texts = (statements: { sql: string }[]) => statements.map((statement) => statement.sql).join('\n');
    const fill = texts(fillMonthNameSearchStatements('2017-12-01'));
    const clear = texts(clearMonthNameSearchStatements('2017-12-01'));
    for (const table of ['asns', 'organizations'] as const) {
      expect(fill).toContain(`drop table if exists ${nameSearchIndex(table, '2017-12-01')}`);
      expect(fill).toContain(`create virtual table ${nameSearchIndex(table, '2017-12-01')} using fts5`);
      expect(clear).toContain(`drop table if exists ${nameSearchIndex(table, '2017-12-01')}`);
    }
    expect(`${fill}\n${clear}`.match(/_name_search_\d+/g)!.every((name) => name.endsWith('20171201'))).toBe(
      true,
    );
  });
});
