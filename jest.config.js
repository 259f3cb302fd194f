// Unit specs live beside the code, e2e suites under test/; both run against a real PostgreSQL
// started once by test/support/global-setup.ts.
const { compilerOptions } = require('./tsconfig.json');

const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

// tsconfig "paths" → jest moduleNameMapper, so the aliases have one definition.
const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [
    `^${alias.replace('/*', '/(.*)')}$`,
    `<rootDir>/${target.replace('/*', '/$1')}`,
  ]),
);

const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)sx?$': swc },
  // NestJS 12 and a few other dependencies ship ESM only; let swc turn them into CommonJS.
  transformIgnorePatterns: [
    '/node_modules/(?!(@nestjs|@modelcontextprotocol|jose|oidc-provider|file-type|strtok3|token-types|@tokenizer|uint8array-extras|oauth4webapi)/)',
  ],
  moduleNameMapper,
};

module.exports = {
  // e2e suites boot an app and clone a database in their hooks; on a loaded 2-core machine that
  // takes well over jest's 5 s default. Suites that need longer say so per test.
  testTimeout: 60_000,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  projects: [
    {
      ...common,
      displayName: 'unit',
      rootDir: __dirname,
      testMatch: ['<rootDir>/{apps,libs,clients}/**/*.spec.ts'],
    },
    { ...common, displayName: 'e2e', rootDir: __dirname, testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
