import { DataSource } from 'typeorm';
import { EventsService, parseEventBatch, SegmentFolder } from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { randomTraffic, SPAN, T0 } from './support/random-traffic';

// A round of the segment folder visits only the funnels with something to fold: an idle funnel
// costs it no statement of its own (its watermark row is neither locked nor written), and a
// funnel getting traffic again, on time or late, is folded in the next round.

jest.setTimeout(300_000);

const MINUTE = 60_000;

describe('segment folds pass over idle funnels', () => {
  let t: TestApp;
  let db: DataSource;
  let folder: SegmentFolder;
  let tenants: TenantFixture[];
  let visits: jest.SpyInstance;

  const send = (tenant: TenantFixture, events: Record<string, unknown>[]) =>
    t.app.get(EventsService).record(tenant.funnelId, parseEventBatch({ events }));

  /** Each of our funnels' watermarks and the transactions that last wrote and locked its row. */
  const foldRows = async () => {
    const rows: { funnel_id: string; sealed_to: Date; folded_to: Date; xmin: string; xmax: string }[] =
      await db.query(
        `SELECT funnel_id, sealed_to, folded_to, xmin::text, xmax::text FROM metric_segment_folds
         WHERE funnel_id = ANY($1::uuid[])`,
        [tenants.map((x) => x.funnelId)],
      );
    return new Map(rows.map((r) => [r.funnel_id, r]));
  };
  /** Our funnels the folder visited since the last call. */
  const visited = () => {
    const ids = new Set(tenants.map((x) => x.funnelId));
    const mine = visits.mock.calls.map(([id]) => id as string).filter((id) => ids.has(id));
    visits.mockClear();
    return mine.sort();
  };
  const pageViews = async (funnelId: string, from: number, to: number) => {
    const [row]: { raw: number; folded: number }[] = await db.query(
      `SELECT (SELECT count(*)::int FROM metric_events WHERE funnel_id = $1 AND type = 'page_view'
                 AND occurred_at >= $2 AND occurred_at < $3) AS raw,
              (SELECT coalesce(sum((events -> 'activity' -> '' ->> 0)::int), 0)::int FROM metric_segment_rollups
               WHERE funnel_id = $1 AND grain = 60 AND bucket >= $2 AND bucket < $3) AS folded`,
      [funnelId, new Date(from), new Date(to)],
    );
    return row;
  };

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000', SEGMENT_FOLD_POLL_MS: '3600000' });
    db = t.app.get(DataSource);
    folder = t.app.get(SegmentFolder);
    // The round the app runs at start ends before these funnels exist; the next is an hour away.
    await folder.idle();
    tenants = [await createTenant(t.app), await createTenant(t.app), await createTenant(t.app)];
    for (const [i, tenant] of tenants.entries()) {
      const events = randomTraffic(40 + i, 60).map((e) => ({
        ...e,
        sessionId: `${i}-${e.sessionId as string}`,
      }));
      for (let n = 0; n < events.length; n += 100) await send(tenant, events.slice(n, n + 100));
    }
    visits = jest.spyOn(folder, 'foldFunnel');
  });
  afterAll(() => t.close());

  it('folds every funnel with traffic once, then passes over them while nothing arrives', async () => {
    await folder.drain(T0 + SPAN + 10 * MINUTE);
    expect(visited()).toEqual(tenants.map((x) => x.funnelId).sort());
    const folded = await foldRows();
    for (const tenant of tenants) {
      expect(folded.get(tenant.funnelId)!.folded_to).toEqual(new Date(T0 + SPAN + 8 * MINUTE));
      const views = await pageViews(tenant.funnelId, T0, T0 + SPAN);
      expect(views.raw).toBeGreaterThan(0);
      expect(views.folded).toBe(views.raw);
    }

    // Later rounds, nothing new: no funnel is visited, no watermark row is locked or written.
    for (const minutes of [11, 30, 24 * 60]) await folder.drain(T0 + SPAN + minutes * MINUTE);
    expect(visited()).toEqual([]);
    expect(await foldRows()).toEqual(folded);
  });

  it('folds a funnel getting traffic again, on time or late, and still passes over the idle one', async () => {
    const before = await foldRows();
    const [onTime, late, idle] = tenants;
    // Past the seal (8 minutes after the traffic): nothing is recorded, the round finds the events.
    const at = T0 + SPAN + 40 * MINUTE;
    await send(onTime, [
      {
        type: 'session_start',
        sessionId: 'back-1',
        occurredAt: new Date(at).toISOString(),
        visitorId: 'v-back',
        device: 'mobile',
      },
      {
        type: 'page_view',
        sessionId: 'back-1',
        occurredAt: new Date(at + 5000).toISOString(),
        pageSlug: 'start',
      },
      {
        type: 'page_view',
        sessionId: 'back-1',
        occurredAt: new Date(at + 9000).toISOString(),
        pageSlug: 'details',
      },
    ]);
    // Behind the seal: the batch records its minute, which the round folds again.
    await send(late, [
      {
        type: 'page_view',
        sessionId: '1-r-0',
        occurredAt: new Date(T0 + 30_000).toISOString(),
        pageSlug: 'done',
      },
    ]);
    const [recorded]: { n: number }[] = await db.query(
      `SELECT count(*)::int AS n FROM metric_segment_changes WHERE funnel_id = $1`,
      [late.funnelId],
    );
    expect(recorded.n).toBeGreaterThan(0);

    // A round whose seal does not reach the new events yet leaves the on-time funnel alone.
    await folder.drain(at + 60_000);
    expect(visited()).toEqual([late.funnelId]);
    await folder.drain(at + 3 * MINUTE);
    expect(visited()).toEqual([onTime.funnelId]);

    const after = await foldRows();
    expect(after.get(idle.funnelId)).toEqual(before.get(idle.funnelId));
    expect(after.get(onTime.funnelId)!.folded_to).toEqual(new Date(at + MINUTE));
    for (const [tenant, from, to] of [
      [onTime, at, at + MINUTE],
      [late, T0, T0 + MINUTE],
    ] as const) {
      const views = await pageViews(tenant.funnelId, from, to);
      expect(views.raw).toBeGreaterThan(0);
      expect(views.folded).toBe(views.raw);
    }
    const [left]: { n: number }[] = await db.query(
      `SELECT count(*)::int AS n FROM metric_segment_changes WHERE funnel_id = $1`,
      [late.funnelId],
    );
    expect(left.n).toBe(0);

    // The filtered read over the new minute counts its page views from the folded rows.
    const res = await httpClient(t.baseUrl, onTime.key).get(
      `/v1/funnels/${onTime.funnelId}/metrics/charts/chart_activity_by_daytime?from=${new Date(at).toISOString()}&to=${new Date(at + MINUTE - 1).toISOString()}&device=mobile`,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.reduce((sum: number, p: { value: number }) => sum + p.value, 0)).toBe(2);
  });
});
