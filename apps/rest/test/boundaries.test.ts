// The spec: the REST layer calls the GraphQL interface rather than the database. Besides the ESLint rule,
// this checks the sources and the runtime dependencies themselves, so the rule cannot be bypassed by a
// require() call, a dynamic import or a dependency added without an import.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const packageDir = path.resolve(__dirname, '..');
const FORBIDDEN = ['@asrank/db', '@asrank/schema', 'kysely', 'pg', 'better-sqlite3', 'graphql', 'mercurius'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : /\.[cm]?[jt]s$/.test(name) ? [full] : [];
  });
}

/** Every module specifier in a source file: import/export ... from, import(), require(). */
function moduleSpecifiers(source: string): string[] {
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;
  return [...source.matchAll(pattern)].map((match) => match[1] ?? '');
}

function isForbidden(specifier: string): boolean {
  return FORBIDDEN.some((name) => specifier === name || specifier.startsWith(`${name}/`));
}

describe('the REST service never touches the database', () => {
  const files = sourceFiles(path.join(packageDir, 'src'));

  it('finds the sources it checks', () => {
    expect(files.length).toBeGreaterThan(5);
    // The scanner itself recognises each import form.
    expect(
      moduleSpecifiers(
        `import { x } from 'kysely';\nconst y = require("pg");\nawait import('@asrank/db');\nimport 'graphql';`,
      ),
    ).toEqual(['kysely', 'pg', '@asrank/db', 'graphql']);
  });

  it('imports no database, schema or GraphQL-execution module in src/', () => {
    const offenders = files.flatMap((file) =>
      moduleSpecifiers(readFileSync(file, 'utf8'))
        .filter(isForbidden)
        .map((specifier) => `${path.relative(packageDir, file)} imports ${specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  it('declares no such runtime dependency', () => {
    const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    const runtime = Object.keys(manifest.dependencies ?? {});
    expect(runtime.length).toBeGreaterThan(0);
    expect(runtime.filter(isForbidden)).toEqual([]);
  });
});
