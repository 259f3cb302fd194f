import { DataSource } from 'typeorm';
import { EventsService, parseEventBatch } from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { seedMetricsFixture } from './support/metrics-fixture';
import { randomTraffic } from './support/random-traffic';

const MIGRATION = 'TenSecondEventRollups1795600000000';

/** Every rollup row that counts something, as text, in a stable order. */
async function rollupRows(db: DataSource): Promise<string[]> {
  const events: Record<string, unknown>[] = await db.query(
    `SELECT funnel_id, dimension, grain, bucket, key, events, timed, total_ms, label, label_at
     FROM metric_event_rollups WHERE events <> 0`,
  );
  // Rows whose sessions left them (a session moved, an answer changed) stay behind at zero. The
  // `segment` rows that SegmentSessionTotals' down rebuilds for the release before it stay after
  // its up, for that release's pods while a rollout replaces them, until TenSecondSessionRollups.
  const sessions: Record<string, unknown>[] = await db.query(
    `SELECT funnel_id, dimension, grain, bucket, key, sessions, conversions, completions, completion_ms
     FROM metric_session_rollups WHERE (sessions <> 0 OR conversions <> 0 OR completions <> 0 OR completion_ms <> 0)
       AND dimension <> 'segment'`,
  );
  return [
    ...events.map((r) => `event ${JSON.stringify(r)}`),
    ...sessions.map((r) => `session ${JSON.stringify(r)}`),
  ].sort();
}

describe(`migration ${MIGRATION}: ten-second rollups of the events already stored`, () => {
  let t: TestApp;
  let acme: TenantFixture;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    acme = await createTenant(t.app);
    const globex = await createTenant(t.app);
    db = t.app.get(DataSource);
    // Hand-made sessions, clicks and contact messages, and random sessions in every dimension.
    await seedMetricsFixture(t, acme, globex);
    const raw = randomTraffic(11, 300);
    for (let i = 0; i < raw.length; i += 700)
      await t.app
        .get(EventsService)
        .record(globex.funnelId, parseEventBatch({ events: raw.slice(i, i + 700) }));
  });

  afterAll(() => t.close());

  it('computes from the stored events and messages the rows ingestion wrote, and reverts', async () => {
    const written = await rollupRows(db);
    const finest: { dimension: string }[] = await db.query(
      `SELECT DISTINCT dimension FROM metric_event_rollups WHERE grain = 10 ORDER BY dimension`,
    );
    expect(finest.map((r) => r.dimension)).toEqual(['activity', 'button', 'message', 'page']);
    // Sessions stop at the minute: the migration only counts their grains in seconds.
    const sessionGrains: { grain: number }[] = await db.query(
      'SELECT DISTINCT grain FROM metric_session_rollups ORDER BY grain',
    );
    expect(sessionGrains.map((r) => r.grain)).toEqual([60, 900, 3600, 86400]);

    // Back to the minute grains, as before the migration: no ten-second rows, grains in minutes.
    // Later migrations (other tables) are undone first, and applied again below.
    const lastName = async () =>
      ((await db.query('SELECT name FROM migrations ORDER BY id DESC LIMIT 1')) as { name: string }[])[0]
        .name;
    const applied: { name: string }[] = await db.query('SELECT name FROM migrations');
    expect(applied.map((m) => m.name)).toContain(MIGRATION);
    while ((await lastName()) !== MIGRATION) await db.undoLastMigration();
    expect(await lastName()).toBe(MIGRATION);
    await db.undoLastMigration();
    const grains: { grain: number }[] = await db.query(
      'SELECT DISTINCT grain FROM metric_session_rollups UNION SELECT DISTINCT grain FROM metric_event_rollups',
    );
    expect(grains.map((r) => r.grain).sort((a, b) => a - b)).toEqual([1, 15, 60, 1440]);

    await db.runMigrations();
    expect(await rollupRows(db)).toEqual(written);
  });
});
