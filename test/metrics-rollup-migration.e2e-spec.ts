import { DataSource } from 'typeorm';
import { EventsService, FixedOffsetZone, parseEventBatch, RollupReader } from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { seedMetricsFixture } from './support/metrics-fixture';
import { randomTraffic } from './support/random-traffic';

const MIGRATION = 'TenSecondEventRollups1795600000000';

/** The message rollups' rows (ingestion writes them at every grain), as text, in a stable order. */
async function messageRows(db: DataSource): Promise<string[]> {
  const rows: Record<string, unknown>[] = await db.query(
    `SELECT funnel_id, grain, bucket, key, events FROM metric_event_rollups
     WHERE dimension = 'message' AND events <> 0`,
  );
  return rows.map((r) => JSON.stringify(r)).sort();
}

type TenSecondRow = {
  funnel_id: string;
  dimension: 'activity' | 'page' | 'button';
  bucket: Date;
  key: string;
  events: number;
  timed: number;
  total_ms: string;
  label: string | null;
};

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

  it('computes the ten-second rows from the stored events and messages, and reverts', async () => {
    const written = await messageRows(db);
    expect(written.filter((r) => r.includes('"grain":10,')).length).toBeGreaterThan(0);

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
      'SELECT DISTINCT grain FROM metric_event_rollups WHERE grain IS NOT NULL',
    );
    expect(grains.map((r) => r.grain).sort((a, b) => a - b)).toEqual([1, 15, 60, 1440]);

    await db.runMigrations();
    // Messages: the rows ingestion wrote, ten-second ones included.
    expect(await messageRows(db)).toEqual(written);
    // Page views and clicks (which ingestion no longer rolls up): each ten-second row is what the
    // reads answer for the ten seconds of its bucket.
    const rows: TenSecondRow[] = await db.query(
      `SELECT funnel_id, dimension, bucket, key, events, timed, total_ms, label FROM metric_event_rollups
       WHERE grain = 10 AND dimension <> 'message' ORDER BY funnel_id, bucket`,
    );
    expect(new Set(rows.map((r) => r.dimension))).toEqual(new Set(['activity', 'page', 'button']));
    const buckets = new Map<string, TenSecondRow[]>();
    for (const r of rows) {
      const id = `${r.funnel_id} ${r.bucket.getTime()}`;
      buckets.set(id, [...(buckets.get(id) ?? []), r]);
    }
    const reader = t.app.get(RollupReader);
    const zone = new FixedOffsetZone(0);
    for (const [id, inBucket] of buckets) {
      const [funnelId, start] = id.split(' ');
      const window = { from: Number(start), to: Number(start) + 9_999, zone };
      const cells = (dimension: string) =>
        Object.fromEntries(
          inBucket
            .filter((r) => r.dimension === dimension)
            .map((r) => [
              r.key,
              { events: r.events, timed: r.timed, totalMs: Number(r.total_ms), label: r.label },
            ]),
        );
      for (const dimension of ['page', 'button'] as const) {
        const read = await reader.events(funnelId, window, dimension);
        expect({ id, dimension, cells: cells(dimension) }).toEqual({
          id,
          dimension,
          cells: Object.fromEntries(
            [...read].map(([key, c]) => [
              key,
              { events: c.events, timed: c.timed, totalMs: c.totalMs, label: c.label },
            ]),
          ),
        });
      }
      const activity = (await reader.activity(funnelId, window)).reduce((sum, n) => sum + n, 0);
      expect({ id, activity: cells('activity')['']?.events ?? 0 }).toEqual({ id, activity });
    }
  });
});
