#!/usr/bin/env node
// `npm start`: runs the service from source in development (migrations applied on start,
// embedded PostgreSQL when DATABASE_URL is unset). Production runs `npm run start:prod`.
require('@swc-node/register');
require('../apps/api/src/main.ts');
