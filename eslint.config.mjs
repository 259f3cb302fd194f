import jest from 'eslint-plugin-jest';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', 'coverage/', 'scripts/*.js', 'jest.config.js'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-unsafe-function-type': 'off',
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
