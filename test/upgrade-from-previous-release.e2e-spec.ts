import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { Client } from 'pg';
import { SegmentFolder } from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { httpClient } from './support/http-client';
import { restoreDump } from './support/logical-dump';
import { ROOT } from './support/processes';
import { ask, sendEvents } from './support/upgrade-traffic';

// A database of the previous release (test/fixtures, built by `npm run fixture:upgrade` through
// that release's API: folded funnels, segment rows, step marks, late events folded again), upgraded
// by this release's migrations, answers every recorded question exactly as that release did, and
// still does after this release folds again and counts a new event.
jest.setTimeout(900_000);

const run = promisify(execFile);
const fixture = (name: string) =>
  gunzipSync(readFileSync(join(ROOT, 'test', 'fixtures', name))).toString('utf8');

interface Recorded {
  release: string;
  key: string;
  funnels: string[];
  answers: Record<string, unknown>;
}

/** Metrics answers are compared whole; a contact or funnel may carry members a later release added. */
function expectSameAnswers(now: Record<string, unknown>, before: Record<string, unknown>): void {
  for (const [path, answer] of Object.entries(before)) {
    if (path.includes('/metrics/')) expect({ path, answer: now[path] }).toEqual({ path, answer });
    else expect({ path, answer: now[path] }).toMatchObject({ path, answer });
  }
}

describe('upgrade from the previous release', () => {
  const recorded = JSON.parse(fixture('previous-release.answers.json.gz')) as Recorded;
  const paths = Object.keys(recorded.answers);
  let admin: Client;
  let name: string;
  let t: TestApp;
  /** Rows of the previous release's tables as restored, before this release's migrations. */
  let restored: Record<string, number>;

  beforeAll(async () => {
    const template = new URL(process.env.TEST_DATABASE_URL as string);
    const url = new URL(template);
    url.pathname = '/postgres';
    admin = new Client({ connectionString: url.toString() });
    await admin.connect();
    name = `upgrade_${randomBytes(6).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${name} TEMPLATE template0`);
    url.pathname = `/${name}`;
    await restoreDump(url.toString(), fixture('previous-release.sql.gz'));
    const db = new Client({ connectionString: url.toString() });
    await db.connect();
    const { rows } = await db
      .query<{ folds: number; segments: number; steps: number; changes: number }>(
        `SELECT (SELECT count(*)::int FROM metric_segment_folds WHERE folded_to IS NOT NULL) AS folds,
                (SELECT count(*)::int FROM metric_segment_rollups) AS segments,
                (SELECT count(*)::int FROM metric_session_steps) AS steps,
                (SELECT count(*)::int FROM metric_segment_changes) AS changes`,
      )
      .finally(() => db.end());
    restored = rows[0];
    const migrated = await run(process.execPath, [join(ROOT, 'scripts', 'migrate.js')], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url.toString(), NODE_ENV: 'test' },
    });
    expect(migrated.stdout).toMatch(/applied \d+ migration/);
    t = await startTestApp({ SEGMENT_FOLD_POLL_MS: '3600000' }, url.toString());
  });

  afterAll(async () => {
    await t?.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it('holds the recorded questions of folded funnels', () => {
    // Both funnels folded, every late change folded too, with segment rows and step marks.
    expect(restored).toEqual({
      folds: 2,
      segments: expect.any(Number),
      steps: expect.any(Number),
      changes: 0,
    });
    expect(restored.segments).toBeGreaterThan(0);
    expect(restored.steps).toBeGreaterThan(0);
    expect(recorded.funnels).toHaveLength(2);
    expect(paths.length).toBeGreaterThan(300);
    // Answers with traffic in them: sessions counted, a step funnel reached, contacts listed.
    const funnel = paths.find((p) => p.includes('/metrics/funnel?') && p.includes('exact=true'));
    const steps = (recorded.answers[funnel as string] as { data: { value: number }[] }).data;
    expect(steps).toHaveLength(3);
    expect(steps[2].value).toBeGreaterThan(0);
    const contacts = paths.find((p) => p.endsWith('/contacts?limit=100')) as string;
    expect((recorded.answers[contacts] as { data: unknown[] }).data).toHaveLength(12);
  });

  it('answers every recorded question as the previous release did', async () => {
    expectSameAnswers(await ask(t.baseUrl, recorded.key, paths), recorded.answers);
  });

  it('answers them the same after folding again and counting one more session', async () => {
    const folder = t.app.get(SegmentFolder);
    await folder.drain();
    expectSameAnswers(await ask(t.baseUrl, recorded.key, paths), recorded.answers);

    // A session a week after the recorded days: outside every recorded window and its comparison.
    const [funnelId] = recorded.funnels;
    const occurredAt = '2026-04-09T12:00:00.000Z';
    await sendEvents(t.baseUrl, recorded.key, funnelId, [
      { type: 'session_start', sessionId: 'after-upgrade', occurredAt, visitorId: 'after', device: 'mobile' },
      { type: 'page_view', sessionId: 'after-upgrade', occurredAt, pageSlug: 'start' },
    ]);
    await folder.drain();
    const sessions = await httpClient(t.baseUrl, recorded.key).get(
      `/v1/funnels/${funnelId}/metrics/kpis/kpi_total_sessions?from=2026-04-09&to=2026-04-09`,
    );
    expect(sessions.status).toBe(200);
    expect(sessions.body.data).toMatchObject({ value: 1 });
    expectSameAnswers(await ask(t.baseUrl, recorded.key, paths), recorded.answers);
  });
});
