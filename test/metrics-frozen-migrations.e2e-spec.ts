import { DataSource } from 'typeorm';
import { EventsService, parseEventBatch } from '@app/metrics';
import { DEVICE_AND_SOURCE_ROLLUPS } from '../db/migrations/1796490000000-AttributeOutcomes';
import { FILL_UTM_MEDIUM_AND_CAMPAIGN } from '../db/migrations/1796300000000-SessionSegments';
import { randomTraffic } from './support/random-traffic';
import { startTestApp, TestApp } from './support/app';
import { createTenant } from './support/factories';

jest.setTimeout(60_000);

/** Migrations write their SQL out: what they fill must be what ingestion writes for the same events. */
describe("metrics: the migrations' frozen statements", () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    const events = t.app.get(EventsService);
    for (const seed of [3, 4]) {
      const tenant = await createTenant(t.app);
      const raw = randomTraffic(seed, 120);
      for (let i = 0; i < raw.length; i += 1000)
        await events.record(tenant.funnelId, parseEventBatch({ events: raw.slice(i, i + 1000) }));
    }
  });
  afterAll(() => t.close());

  it('write what ingestion writes', async () => {
    const attributes = `SELECT funnel_id, session_id, utm_medium, utm_campaign FROM metric_sessions ORDER BY 1, 2`;
    const rows = () =>
      db.query(
        `SELECT funnel_id, dimension, grain, bucket, key, sessions, conversions, completions, completion_ms
         FROM metric_session_rollups WHERE dimension IN ('device', 'source') ORDER BY 1, 2, 3, 4, 5`,
      );
    // Traffic whose sessions carry a medium and a campaign too.
    const tenant = await createTenant(t.app);
    const raw = randomTraffic(5, 150).map((e, i) =>
      e.type === 'session_start' && e.utm
        ? {
            ...e,
            utm: {
              ...(e.utm as object),
              medium: ['cpc', 'email', 'Cpc'][i % 3],
              campaign: `spring ${i % 5} 🌱`,
            },
          }
        : e,
    );
    await t.app.get(EventsService).record(tenant.funnelId, parseEventBatch({ events: raw }));

    const stored = await db.query(attributes);
    expect(
      stored.filter((r: { utm_campaign: string | null }) => r.utm_campaign !== null).length,
    ).toBeGreaterThan(50);
    await db.query('UPDATE metric_sessions SET utm_medium = NULL, utm_campaign = NULL');
    await db.query(FILL_UTM_MEDIUM_AND_CAMPAIGN);
    expect(await db.query(attributes)).toEqual(stored);

    const written = await rows();
    expect(written.length).toBeGreaterThan(100);
    await db.query(`DELETE FROM metric_session_rollups WHERE dimension IN ('device', 'source')`);
    await db.query(DEVICE_AND_SOURCE_ROLLUPS);
    expect(await rows()).toEqual(written);
  });
});
