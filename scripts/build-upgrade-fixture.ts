/**
 * `npm run fixture:upgrade`: builds test/fixtures/previous-release.sql.gz and
 * previous-release.answers.json.gz, what test/upgrade-from-previous-release.e2e-spec.ts upgrades.
 *
 * The previous release is the build before `1796600000000-ApiKeyInsertNotifications` (the first
 * migration the upgrade applies). It is checked out into a temporary git worktree, migrated and
 * started on a throwaway embedded PostgreSQL, and filled through its admin CLI and HTTP API:
 * contacts, six days of sessions, folded, then late and repeated events folded again. Its answers
 * to upgradeQuestions are recorded beside a dump of its database (test/support/logical-dump.ts:
 * the embedded PostgreSQL ships no pg_dump, and the test restores without one).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { Client } from 'pg';
import { startThrowawayPostgres } from '@app/core';
import { dumpDatabase } from '../test/support/logical-dump';
import { freePort } from '../test/support/processes';
import {
  ask,
  createContacts,
  lateTraffic,
  sendEvents,
  sessionTraffic,
  upgradeQuestions,
} from '../test/support/upgrade-traffic';

const run = promisify(execFile);
const ROOT = join(__dirname, '..');
const FIXTURES = join(ROOT, 'test', 'fixtures');
const FIRST_NEW_MIGRATION = 'db/migrations/1796600000000-ApiKeyInsertNotifications.ts';

async function previousRelease(): Promise<string> {
  const { stdout } = await run('git', ['log', '--diff-filter=A', '--format=%H', '--', FIRST_NEW_MIGRATION], {
    cwd: ROOT,
  });
  const added = stdout.trim().split('\n').pop();
  if (!added) throw new Error(`${FIRST_NEW_MIGRATION} is not in this checkout's history`);
  return (await run('git', ['rev-parse', `${added}^`], { cwd: ROOT })).stdout.trim();
}

async function main(): Promise<void> {
  const commit = await previousRelease();
  const tmp = await mkdtemp(join(tmpdir(), 'upgrade-fixture-'));
  const old = join(tmp, 'release');
  await run('git', ['worktree', 'add', '--detach', old, commit], { cwd: ROOT });
  // The release's dependencies are a subset of this checkout's, at the same versions.
  await symlink(join(ROOT, 'node_modules'), join(old, 'node_modules'));
  const pg = await startThrowawayPostgres();
  const env = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    DATABASE_URL: pg.url,
    RATE_LIMIT_PER_MINUTE: '1000000',
    METRICS_PORT: '0',
    SEGMENT_FOLD_POLL_MS: '200',
    SEGMENT_FOLD_LAG_SECONDS: '0',
  };
  let server: ReturnType<typeof spawn> | undefined;
  try {
    console.log(`previous release ${commit}`);
    await run(process.execPath, ['scripts/migrate.js'], { cwd: old, env });
    const admin = async (...args: string[]) =>
      JSON.parse((await run(process.execPath, ['scripts/admin.js', ...args], { cwd: old, env })).stdout) as {
        id: string;
        key: string;
      };
    const company = await admin('company', 'create', '--name', 'Upgrade');
    const workspace = await admin('workspace', 'create', '--company', company.id, '--name', 'Main');
    const funnels: string[] = [];
    for (const name of ['First', 'Second'])
      funnels.push(
        (
          await admin(
            'funnel',
            'create',
            '--workspace',
            workspace.id,
            '--name',
            name,
            '--pages',
            'start:Start,details:Details,done:Done',
          )
        ).id,
      );
    const permissions = 'crm:read,crm:write,metrics:read,events:write';
    const { key } = await admin('apikey', 'create', '--company', company.id, '--permissions', permissions);

    const port = await freePort();
    server = spawn(process.execPath, ['scripts/start.js'], {
      cwd: old,
      env: { ...env, PORT: String(port) },
      stdio: 'inherit',
    });
    const baseUrl = `http://127.0.0.1:${port}`;
    await until(async () => (await fetch(`${baseUrl}/health`).catch(() => undefined))?.ok === true);

    const db = new Client({ connectionString: pg.url });
    await db.connect();
    try {
      for (const [i, funnelId] of funnels.entries()) {
        const contacts = await createContacts(baseUrl, key, funnelId, 12);
        const first = sessionTraffic(i + 1, 300, contacts);
        await sendEvents(baseUrl, key, funnelId, first);
        await folded(db);
        await sendEvents(baseUrl, key, funnelId, lateTraffic(i + 10, first));
        await folded(db);
      }
      const paths = funnels.flatMap(upgradeQuestions);
      const answers = await ask(baseUrl, key, paths);
      // Asked twice: an answer that changes between two asks cannot be compared after the upgrade.
      const again = await ask(baseUrl, key, paths);
      const unstable = paths.filter((p) => JSON.stringify(answers[p]) !== JSON.stringify(again[p]));
      if (unstable.length) throw new Error(`answers changed between two asks: ${unstable.join(', ')}`);
      await writeFile(
        join(FIXTURES, 'previous-release.answers.json.gz'),
        gzipSync(JSON.stringify({ release: commit, key, funnels, answers })),
      );
      console.log(`${paths.length} answers recorded`);
    } finally {
      await db.end();
    }
    server.kill('SIGTERM');
    await new Promise((resolve) => server?.once('exit', resolve));
    server = undefined;
    const sql = await dumpDatabase(pg.url);
    await writeFile(join(FIXTURES, 'previous-release.sql.gz'), gzipSync(sql, { level: 9 }));
    console.log(`dump: ${sql.length} bytes of SQL`);
  } finally {
    server?.kill('SIGTERM');
    await pg.destroy();
    await run('git', ['worktree', 'remove', '--force', old], { cwd: ROOT }).catch(() => undefined);
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Waits until every funnel is folded to the last minute and its recorded changes are folded (deleted). */
async function folded(db: Client): Promise<void> {
  const since = new Date(Date.now() - 60_000);
  await until(async () => {
    const { rows } = await db.query<{ ready: boolean }>(
      `SELECT (SELECT count(*) FROM metric_segment_folds WHERE folded_to IS NULL OR folded_to < $1) = 0
          AND (SELECT count(*) FROM metric_segment_folds) > 0
          AND NOT EXISTS (SELECT 1 FROM metric_segment_changes) AS ready`,
      [since],
    );
    return rows[0].ready;
  });
}

async function until(check: () => Promise<boolean>, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
