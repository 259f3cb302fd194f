import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
// Jest loads the global setup without the @app path aliases, so this one file is reached directly.
// eslint-disable-next-line no-restricted-imports
import { startThrowawayPostgres, ThrowawayPostgres } from '../../libs/core/src/database/throwaway-postgres';

declare global {
  var __TEST_POSTGRES__: ThrowawayPostgres | undefined;
}

/**
 * One real PostgreSQL for the whole run, migrated once by the production migration command;
 * suites clone it (see database.ts).
 */
export default async function globalSetup(): Promise<void> {
  const pg = await startThrowawayPostgres();
  globalThis.__TEST_POSTGRES__ = pg;
  const root = join(__dirname, '..', '..');
  execFileSync(process.execPath, [join(root, 'scripts', 'migrate.js')], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: pg.url, NODE_ENV: 'test' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  process.env.TEST_DATABASE_URL = pg.url;
  // Every app a suite starts serves metrics on a free port, never on the shared default.
  process.env.METRICS_PORT = '0';
}
