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
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startThrowawayPostgres } from '@app/core';
import { dumpDatabase } from '../test/support/logical-dump';
import {
  ask,
  createContacts,
  lateTraffic,
  sendEvents,
  sessionTraffic,
  upgradeQuestions,
} from '../test/support/upgrade-traffic';
import { checkoutPreviousRelease, createTenant, folded, ROOT } from './previous-release';

const FIXTURES = join(ROOT, 'test', 'fixtures');

async function main(): Promise<void> {
  const release = await checkoutPreviousRelease();
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
  let server: Awaited<ReturnType<typeof release.start>> | undefined;
  try {
    console.log(`previous release ${release.commit}`);
    await release.script(env, 'migrate.js');
    const { key, funnels } = await createTenant(release, env, 'Upgrade', [
      { name: 'First', pages: 'start:Start,details:Details,done:Done' },
      { name: 'Second', pages: 'start:Start,details:Details,done:Done' },
    ]);
    server = await release.start(env);
    const { baseUrl } = server;
    for (const [i, funnelId] of funnels.entries()) {
      const contacts = await createContacts(baseUrl, key, funnelId, 12);
      const first = sessionTraffic(i + 1, 300, contacts);
      await sendEvents(baseUrl, key, funnelId, first);
      await folded(pg.url);
      await sendEvents(baseUrl, key, funnelId, lateTraffic(i + 10, first));
      await folded(pg.url);
    }
    const paths = funnels.flatMap(upgradeQuestions);
    const answers = await ask(baseUrl, key, paths);
    // Asked twice: an answer that changes between two asks cannot be compared after the upgrade.
    const again = await ask(baseUrl, key, paths);
    const unstable = paths.filter((p) => JSON.stringify(answers[p]) !== JSON.stringify(again[p]));
    if (unstable.length) throw new Error(`answers changed between two asks: ${unstable.join(', ')}`);
    await writeFile(
      join(FIXTURES, 'previous-release.answers.json.gz'),
      gzipSync(JSON.stringify({ release: release.commit, key, funnels, answers })),
    );
    console.log(`${paths.length} answers recorded`);
    await server.stop();
    server = undefined;
    const sql = await dumpDatabase(pg.url);
    await writeFile(join(FIXTURES, 'previous-release.sql.gz'), gzipSync(sql, { level: 9 }));
    console.log(`dump: ${sql.length} bytes of SQL`);
  } finally {
    await server?.stop();
    await pg.destroy();
    await release.remove();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
