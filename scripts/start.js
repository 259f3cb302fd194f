#!/usr/bin/env node
// `npm start`: the HTTP service (from source in development: migrations applied on start,
// embedded PostgreSQL when DATABASE_URL is unset).
require('./run-entry')('apps/api/src/main.ts');
