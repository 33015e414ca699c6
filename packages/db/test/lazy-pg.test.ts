// pg is loaded when a PostgreSQL store is opened, not with the package: loading it makes Node 20 load its fetch
// implementation (~45 ms of every SQLite service start). A child process, so that the module cache is Node's own
// and not jest's; it runs the built package (turbo builds before testing).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const builtIndex = path.resolve(__dirname, '..', 'dist', 'index.js');

(fs.existsSync(builtIndex) ? it : it.skip)(
  'opens SQLite without loading pg, and loads it (int8 as numbers) for a PostgreSQL URL',
  () => {
    const script = `
      const loaded = () => Object.keys(require.cache).some((file) => /[\\\\/]pg[\\\\/]lib[\\\\/]/.test(file));
      const { openDatabase } = require(${JSON.stringify(builtIndex)});
      const afterImport = loaded();
      const sqlite = openDatabase(':memory:');
      const afterSqlite = loaded();
      // A pool connects on its first query only: nothing listens on port 1.
      const postgres = openDatabase('postgres://nobody@127.0.0.1:1/none');
      const int8 = require(require.resolve('pg', { paths: [${JSON.stringify(path.dirname(builtIndex))}] })).types.getTypeParser(20)('42');
      console.log(JSON.stringify({ afterImport, afterSqlite, afterPostgres: loaded(), int8 }));
      Promise.all([sqlite.close(), postgres.close()]).then(() => process.exit(0));
    `;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({
      afterImport: false,
      afterSqlite: false,
      afterPostgres: true,
      int8: 42,
    });
  },
);
