#!/usr/bin/env node
// `npm run migration:run`: applies pending migrations, from the build when there is one.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const built = join(__dirname, '..', 'dist', 'libs', 'core', 'src', 'database', 'migrate.cli.js');
if (existsSync(built) && process.env.NODE_ENV === 'production') {
  require(built);
} else {
  require('@swc-node/register');
  require('../libs/core/src/database/migrate.cli.ts');
}
