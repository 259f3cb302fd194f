import { DataSource } from 'typeorm';
import {
  EventsService,
  parseEventBatch,
  SESSION_COLUMNS,
  sessionContributions,
  sessionFromRow,
} from '@app/metrics';
import type { SessionCounts, SessionRow } from '@app/metrics';
import { DEVICE_AND_SOURCE_ROLLUPS } from '../db/migrations/1796490000000-AttributeOutcomes';
import { FILL_UTM_MEDIUM_AND_CAMPAIGN } from '../db/migrations/1796300000000-SessionSegments';
import { randomTraffic } from './support/random-traffic';
import { startTestApp, TestApp } from './support/app';
import { createTenant } from './support/factories';

jest.setTimeout(60_000);

const GRAINS = [86_400, 3_600, 900, 60];

/**
 * The session rollups of devices and sources with their outcomes, as DEVICE_AND_SOURCE_ROLLUPS
 * fills them, counted in Node from the stored sessions by the segment's contribution (the
 * sessions, conversions, completions and time to completion every session figure sums).
 */
async function deviceAndSourceReference(db: DataSource): Promise<string[]> {
  const rows: (SessionRow & { funnel_id: string })[] = await db.query(
    `SELECT funnel_id, ${SESSION_COLUMNS} FROM metric_sessions WHERE started_at IS NOT NULL`,
  );
  const sums = new Map<string, SessionCounts>();
  for (const row of rows) {
    const state = sessionFromRow(row);
    const outcomes = sessionContributions(state).find((c) => c.dimension === 'segment')!;
    for (const [dimension, value] of [
      ['device', state.device],
      ['source', state.utmSource],
    ] as const) {
      if (!value) continue;
      for (const grain of GRAINS) {
        const bucket = new Date(Math.floor(state.startedAt! / (grain * 1000)) * grain * 1000).toISOString();
        const id = JSON.stringify([row.funnel_id, dimension, grain, bucket, value]);
        const sum = sums.get(id) ?? { sessions: 0, conversions: 0, completions: 0, completionMs: 0 };
        sum.sessions += outcomes.sessions;
        sum.conversions += outcomes.conversions;
        sum.completions += outcomes.completions;
        sum.completionMs += outcomes.completionMs;
        sums.set(id, sum);
      }
    }
  }
  return [...sums]
    .map(([id, c]) =>
      JSON.stringify([...JSON.parse(id), c.sessions, c.conversions, c.completions, c.completionMs]),
    )
    .sort();
}

/**
 * Migrations write their SQL out: what they fill must be what ingestion writes for the same
 * events, or what the stored sessions count where ingestion no longer writes that table.
 */
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

  it('write what ingestion writes and the stored sessions count', async () => {
    const attributes = `SELECT funnel_id, session_id, utm_medium, utm_campaign FROM metric_sessions ORDER BY 1, 2`;
    const rows = async () =>
      (
        (await db.query(
          `SELECT funnel_id, dimension, grain, bucket, key, sessions, conversions, completions, completion_ms
           FROM metric_session_rollups WHERE dimension IN ('device', 'source')`,
        )) as Record<string, string | number | Date>[]
      )
        .map((r) =>
          JSON.stringify([
            r.funnel_id,
            r.dimension,
            r.grain,
            (r.bucket as Date).toISOString(),
            r.key,
            Number(r.sessions),
            Number(r.conversions),
            Number(r.completions),
            Number(r.completion_ms),
          ]),
        )
        .sort();
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

    const reference = await deviceAndSourceReference(db);
    expect(reference.length).toBeGreaterThan(100);
    await db.query(`DELETE FROM metric_session_rollups WHERE dimension IN ('device', 'source')`);
    await db.query(DEVICE_AND_SOURCE_ROLLUPS);
    expect(await rows()).toEqual(reference);
  });
});
