#!/usr/bin/env node
// `npm run migration:run`: applies pending migrations (a deploy step in production).
require('./run-entry')('db/migrate.cli.ts');
