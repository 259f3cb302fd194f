import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import jest from 'eslint-plugin-jest';
import tseslint from 'typescript-eslint';

// A library (libs/<name>, and apps/dev-idp which the api app uses as one) is entered only through
// its index.ts: `@app/<name>`, never `@app/<name>/<file>` nor a relative path into its src/.
const ONE_DOOR = {
  regex: '^@app/[^/]+/|(^|/)(libs/[^/]+|apps/dev-idp)/src/',
  message: 'A library is used through its index.ts only: import from @app/<library> (export the name there).',
};

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.data/',
      'coverage/',
      'scripts/*.js',
      'jest.config.js',
      // Generated (npm run tracker:build); its source beside it is linted.
      'libs/collection/src/tracker/tracker.min.js',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-unsafe-function-type': 'off',
    },
  },
  // Module boundaries: one door per library, and no import cycle, so no two libraries depend on
  // each other (through the doors a cycle between libraries is a cycle between files).
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // The plugin's TypeScript settings (which files it parses), with the path aliases of tsconfig.json.
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: {
      'no-restricted-imports': ['error', { patterns: [ONE_DOOR] }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-duplicates': 'error',
    },
  },
  // TypeORM relations are two-way (Funnel has pages, a FunnelPage its funnel), resolved lazily
  // through `() => Entity`: a cycle between the entity files of one library is by design.
  { files: ['libs/*/src/entities/*.entity.ts'], rules: { 'import-x/no-cycle': 'off' } },
  // core is beneath every domain: it imports none of them. No library imports an app or the
  // migrations (db/), which the apps compose from the libraries.
  {
    files: ['libs/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ONE_DOOR,
            {
              regex: '^(\\.\\./){3,}(apps|db)/',
              message: 'A library imports no app and no migration: the apps compose the libraries.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['libs/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ONE_DOOR,
            { regex: '^@app/', message: 'core knows no domain: take what it needs as a parameter.' },
            { regex: '^(\\.\\./){3,}(apps|db)/', message: 'core imports no app and no migration.' },
          ],
        },
      ],
    },
  },
  // Migrations are frozen history: they write their SQL out and import no application code, so a
  // change to the service never changes what an old migration does. Only TypeORM, Node and an
  // earlier migration of db/migrations may be imported.
  {
    files: ['db/migrations/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(@app/|\\.\\./|(libs|apps|db)/)',
              message: 'A migration imports no application code: write its SQL out.',
            },
          ],
        },
      ],
    },
  },
  // A suite must not weaken quietly: no focused or skipped tests, every test asserts, and no
  // assertion hides behind a condition.
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
    plugins: { jest },
    languageOptions: { globals: jest.environments.globals.globals },
    rules: {
      'jest/no-focused-tests': 'error',
      'jest/no-disabled-tests': 'error',
      'jest/expect-expect': [
        'error',
        {
          assertFunctionNames: [
            'expect',
            'expect*',
            'assert*',
            'fc.assert',
            'eventually',
            '*.waitFor',
            'page.**.waitFor',
          ],
        },
      ],
      'jest/no-conditional-expect': 'error',
      // describe(Service.name) is the convention, so the describe title may be an expression.
      'jest/valid-title': ['error', { ignoreTypeOfDescribeName: true }],
      // A fixture checked in beforeAll fails the suite loudly, which is what a setup assertion is for.
      'jest/no-standalone-expect': ['error', { additionalTestBlockFunctions: ['beforeAll', 'beforeEach'] }],
    },
  },
);
