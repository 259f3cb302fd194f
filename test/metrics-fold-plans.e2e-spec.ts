import { Client } from 'pg';
import { EventsService, FOLD_EVENT_SUMS_SQL, parseEventBatch } from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { PlanNode, rowsRead } from './support/plans';
import { randomTraffic, T0 } from './support/random-traffic';

// The fold reads a funnel's events with their sessions' attributes. Its statement is planned on the
// tables' statistics, and a funnel whose traffic came after the last ANALYZE is estimated there at
// a single session: planned as a join, every event of the range was compared with every session of
// the funnel. Each event must find its session by a probe of its key, whatever the statistics say.
describe("The fold's event read on a funnel newer than the statistics", () => {
  let t: TestApp;
  let client: Client;
  let older: TenantFixture;
  let newer: TenantFixture;

  const record = async (funnelId: string, seed: number) => {
    const events = randomTraffic(seed, 400);
    for (let i = 0; i < events.length; i += 500)
      await t.app.get(EventsService).record(funnelId, parseEventBatch({ events: events.slice(i, i + 500) }));
  };

  beforeAll(async () => {
    t = await startTestApp({ SEGMENT_FOLD_POLL_MS: '3600000' });
    client = new Client({ connectionString: t.databaseUrl });
    await client.connect();
    older = await createTenant(t.app);
    newer = await createTenant(t.app);
    await record(older.funnelId, 1);
    await client.query('ANALYZE metric_sessions, metric_events');
    await record(newer.funnelId, 2);
  });
  afterAll(async () => {
    await client.end();
    await t.close();
  });

  it('reads each session of the range once, by its key, not every session of the funnel', async () => {
    const from = new Date(T0 + 60_000).toISOString();
    const to = new Date(T0 + 70_000).toISOString();
    const types = ['page_view', 'button_click'];
    const [{ sessions, funnelSessions }] = (
      await client.query(
        `SELECT (SELECT count(DISTINCT session_id) FROM metric_events
                 WHERE funnel_id = $1 AND type = ANY($4) AND occurred_at >= $2 AND occurred_at < $3)::int AS sessions,
                (SELECT count(*) FROM metric_sessions WHERE funnel_id = $1)::int AS "funnelSessions"`,
        [newer.funnelId, from, to, types],
      )
    ).rows;
    // A range whose events come from a small part of the funnel's sessions.
    expect(sessions).toBeGreaterThan(5);
    expect(sessions * 4).toBeLessThan(funnelSessions);

    const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${FOLD_EVENT_SUMS_SQL}`, [
      newer.funnelId,
      [from],
      [to],
      types,
    ]);
    const plan = (rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan;
    expect(rowsRead(plan, 'metric_sessions')).toBeLessThanOrEqual(sessions);
  });
});
