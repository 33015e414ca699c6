// Rows read from PostgreSQL through Kysely are objects of one hidden class from one result to the next (connection.ts
// poolWithRowObjects): pg's own row objects get a class per result, which every resolver's property access then meets
// anew. A child process, for V8's %HaveSameMap; it runs the built package (turbo builds before testing).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const PG_URL = process.env.DATABASE_URL_PG;
const builtIndex = path.resolve(__dirname, '..', 'dist', 'index.js');

(PG_URL && fs.existsSync(builtIndex) ? it : it.skip)(
  'gives the rows of separate results one hidden class, with the columns named and typed as pg reads them',
  () => {
    const script = `
      const { openDatabase } = require(${JSON.stringify(builtIndex)});
      const { sql } = require(require.resolve('kysely', { paths: [${JSON.stringify(path.dirname(builtIndex))}] }));
      const handle = openDatabase(${JSON.stringify(PG_URL)});
      const read = (from) => sql\`select n as asn, 'AS' || n as asn_name, n::bigint * 2 as cone, null::int as rank,
        n as asn from generate_series(\${from}::int, \${from}::int + 2) as n\`.execute(handle.db).then((result) => result.rows);
      Promise.all([read(1), read(100)]).then(async ([first, second]) => {
        console.log(JSON.stringify({
          first,
          sameClassWithinResult: %HaveSameMap(first[0], first[1]),
          sameClassAcrossResults: %HaveSameMap(first[0], second[0]),
        }));
        await handle.close();
      });
    `;
    const child = spawnSync(process.execPath, ['--allow-natives-syntax', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({
      // A repeated column name keeps its last value, in the place of its first, as pg's own objects do.
      first: [
        { asn: 1, asn_name: 'AS1', cone: 2, rank: null },
        { asn: 2, asn_name: 'AS2', cone: 4, rank: null },
        { asn: 3, asn_name: 'AS3', cone: 6, rank: null },
      ],
      sameClassWithinResult: true,
      sameClassAcrossResults: true,
    });
  },
);

if (!PG_URL) {
  it.skip('PostgreSQL row objects: set DATABASE_URL_PG to run (the CI script .ci/run always does)', () =>
    undefined);
}
