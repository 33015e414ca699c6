// One ESLint flat config for the whole workspace; each package runs `eslint src test`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/test-output/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The domain package is pure: no database, HTTP or GraphQL library may enter it.
    files: ['packages/domain/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                'kysely',
                'better-sqlite3',
                'pg',
                'graphql',
                '@pothos/*',
                'fastify',
                'mercurius',
                'undici',
                '@asrank/*',
                'node:http',
                'node:fs',
                'node:net',
              ],
              message: '@asrank/domain is pure: no I/O, database, HTTP or GraphQL imports.',
            },
          ],
        },
      ],
    },
  },
  {
    // The spec: the REST layer calls the GraphQL interface, never the database.
    files: ['apps/rest/src/**/*.ts', 'apps/rest/test/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@asrank/db', '@asrank/db/*', 'kysely', 'better-sqlite3', 'pg', '@asrank/schema'],
              message:
                'The REST service answers by calling the GraphQL service over HTTP, never the database.',
            },
          ],
        },
      ],
    },
  },
);
