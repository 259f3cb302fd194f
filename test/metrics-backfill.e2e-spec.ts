import { DataSource } from 'typeorm';
import {
  backfillEventDimensions,
  backfillSessionDimensions,
  backfillStartAttribute,
  SESSION_ROLLUP_DIMENSIONS,
  DECLARED_EVENT_DIMENSIONS,
  EventsService,
  parseEventBatch,
  RunSql,
} from '@app/metrics';
import { DEVICE_AND_SOURCE_ROLLUPS } from '../db/migrations/1796490000000-AttributeOutcomes';
import {
  FILL_UTM_MEDIUM_AND_CAMPAIGN,
  SEGMENT_SESSION_ROLLUPS,
} from '../db/migrations/1796300000000-SessionSegments';
import { randomTraffic } from './support/random-traffic';
import { startTestApp, TestApp } from './support/app';
import { createTenant } from './support/factories';
import { seedMetricsFixture } from './support/metrics-fixture';

jest.setTimeout(60_000);

const ROLLUPS = `SELECT funnel_id, dimension, grain, bucket, key, sessions, conversions, completions, completion_ms
  FROM metric_session_rollups ORDER BY funnel_id, dimension, grain, bucket, key`;
const EVENT_ROLLUPS = `SELECT funnel_id, dimension, grain, bucket, key, events, timed, total_ms, label, label_at
  FROM metric_event_rollups WHERE dimension IN ('activity', 'page', 'button')
  ORDER BY funnel_id, dimension, grain, bucket, key`;
const ALL_EVENT_ROLLUPS = `SELECT funnel_id, dimension, grain, bucket, key, events, timed, total_ms, label, label_at
  FROM metric_event_rollups ORDER BY funnel_id, dimension, grain, bucket, key`;
const DEVICES = 'SELECT funnel_id, session_id, device FROM metric_sessions ORDER BY funnel_id, session_id';

/**
 * What a migration adding a start attribute, a session dimension or an event dimension would run:
 * the backfills must rebuild exactly what ingestion wrote, from the declarations alone.
 */
describe('metrics: backfills from the session declarations', () => {
  let t: TestApp;
  let db: DataSource;
  let run: RunSql;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    run = (sql, params) => db.query(sql, params);
    const events = t.app.get(EventsService);
    for (const seed of [3, 4]) {
      const tenant = await createTenant(t.app);
      const raw = randomTraffic(seed, 120);
      for (let i = 0; i < raw.length; i += 1000)
        await events.record(tenant.funnelId, parseEventBatch({ events: raw.slice(i, i + 1000) }));
    }
    // Contact messages delivered and opened, in two funnels.
    await seedMetricsFixture(t, await createTenant(t.app), await createTenant(t.app));
  });
  afterAll(() => t.close());

  it('rebuilds a start attribute column and every session rollup row as ingestion wrote them', async () => {
    const rollups = await db.query(ROLLUPS);
    const devices = await db.query(DEVICES);
    expect(rollups.length).toBeGreaterThan(100);
    expect(devices.filter((d: { device: string | null }) => d.device !== null).length).toBeGreaterThan(100);

    await db.query('UPDATE metric_sessions SET device = NULL');
    await db.query('DELETE FROM metric_session_rollups');
    // Small pages, so that paging across sessions and funnels is exercised.
    await backfillStartAttribute(run, 'device', 37);
    await backfillSessionDimensions(
      run,
      SESSION_ROLLUP_DIMENSIONS.map(([name]) => name),
      37,
    );

    expect(await db.query(DEVICES)).toEqual(devices);
    expect(await db.query(ROLLUPS)).toEqual(rollups);
  });

  it("writes, in the migrations' frozen statements, what ingestion and the declarations write", async () => {
    const attributes = `SELECT funnel_id, session_id, utm_medium, utm_campaign FROM metric_sessions ORDER BY 1, 2`;
    const rows = (dimensions: string) =>
      db.query(
        `SELECT funnel_id, dimension, grain, bucket, key, sessions, conversions, completions, completion_ms
         FROM metric_session_rollups WHERE dimension IN (${dimensions}) ORDER BY 1, 2, 3, 4, 5`,
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

    const written = await rows(`'device', 'source'`);
    expect(written.length).toBeGreaterThan(100);
    await db.query(`DELETE FROM metric_session_rollups WHERE dimension IN ('device', 'source')`);
    await db.query(DEVICE_AND_SOURCE_ROLLUPS);
    expect(await rows(`'device', 'source'`)).toEqual(written);

    // Ingestion no longer writes `segment` session rows: the declaration's backfill is the reference.
    await backfillSessionDimensions(run, ['segment']);
    const segments = await rows(`'segment'`);
    expect(segments.length).toBeGreaterThan(100);
    await db.query(`DELETE FROM metric_session_rollups WHERE dimension = 'segment'`);
    await db.query(SEGMENT_SESSION_ROLLUPS);
    expect(await rows(`'segment'`)).toEqual(segments);
    await db.query(`DELETE FROM metric_session_rollups WHERE dimension = 'segment'`);
  });

  it('rebuilds the rollups of page views and clicks as ingestion wrote them', async () => {
    const rollups = await db.query(EVENT_ROLLUPS);
    const dimensions = new Set(rollups.map((r: { dimension: string }) => r.dimension));
    expect([...dimensions].sort()).toEqual(['activity', 'button', 'page']);

    await db.query(`DELETE FROM metric_event_rollups WHERE dimension IN ('activity', 'page', 'button')`);
    await backfillEventDimensions(run, ['activity', 'page', 'button'], 53);

    expect(await db.query(EVENT_ROLLUPS)).toEqual(rollups);
  });

  it('rebuilds the rollups of every declared event dimension, messages included, as ingestion wrote them', async () => {
    const rollups = await db.query(ALL_EVENT_ROLLUPS);
    const dimensions = new Set(rollups.map((r: { dimension: string }) => r.dimension));
    expect([...dimensions].sort()).toEqual(DECLARED_EVENT_DIMENSIONS.map(([name]) => name).sort());

    await db.query('DELETE FROM metric_event_rollups');
    // Pages of three, so that paging across messages and funnels is exercised.
    await backfillEventDimensions(
      run,
      DECLARED_EVENT_DIMENSIONS.map(([name]) => name),
      3,
    );

    expect(await db.query(ALL_EVENT_ROLLUPS)).toEqual(rollups);
  });
});
