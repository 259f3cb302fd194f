#!/usr/bin/env node
// `npm run migration:run`: applies pending migrations (a deploy step in production).
require('./run-entry')('libs/core/src/database/migrate.cli.ts');
