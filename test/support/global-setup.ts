import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// Jest loads the global setup without the @app path aliases, so this one file is reached directly.
// eslint-disable-next-line no-restricted-imports
import { startThrowawayPostgres, ThrowawayPostgres } from '../../libs/core/src/database/throwaway-postgres';

declare global {
  var __TEST_POSTGRES__: ThrowawayPostgres | undefined;
  var __TEST_SHARED_DIR__: string | undefined;
}

/**
 * One real PostgreSQL for the whole run, migrated once by the production migration command;
 * suites clone it (see database.ts).
 */
export default async function globalSetup(): Promise<void> {
  // As root, an embedded cluster whose folder the postgres account cannot enter (a mode-0700
  // temporary folder) goes to the shared folder: the run's own, removed by the global teardown,
  // never the system-wide one. Every suite and the processes they start inherit it.
  const shared = await mkdtemp(join(tmpdir(), 'funnel-crm-test-shared-'));
  await chmod(shared, 0o755);
  globalThis.__TEST_SHARED_DIR__ = shared;
  process.env.EMBEDDED_POSTGRES_SHARED_DIR = shared;
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
