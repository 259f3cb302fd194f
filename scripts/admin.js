#!/usr/bin/env node
// `npm run --silent admin -- <command>`: the operators' CLI.
require('./run-entry')('apps/admin/src/main.ts', { json: true });
