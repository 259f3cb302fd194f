#!/usr/bin/env node
// `npm run --silent admin -- <command>`: the operators' CLI, run from source.
require('@swc-node/register');
require('../apps/admin/src/main.ts');
