import { DataSource } from 'typeorm';
import { ReadPool, type SnapshotRows } from '@app/core';
import { EventsService, parseEventBatch, SegmentFolder } from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

// A metrics read plans over what is folded (metric_segment_folds, …_changes), then reads the
// rollups and raw rows its plan names, both in one snapshot. A late batch that commits between the
// two counts in neither: read with its plan before the batch, a folded minute it changed would
// come from rollups without it and the minutes past the watermark from raw rows with it. A fold
// that commits between them changes nothing either. A connection lost between them is an outage
// like any other: 503, and the next read is served.

const T = Date.parse('2026-05-10T10:00:00Z');
const MINUTE = 60_000;

describe('a metrics read plans and reads in one snapshot', () => {
  let t: TestApp;
  let tenant: TenantFixture;
  let reads: ReadPool;
  let folder: SegmentFolder;
  let db: DataSource;

  const start = (sessionId: string, at: number) => ({
    type: 'session_start',
    sessionId,
    occurredAt: new Date(at).toISOString(),
    visitorId: sessionId,
    device: 'mobile',
  });
  const record = (events: Record<string, unknown>[]) =>
    t.app.get(EventsService).record(tenant.funnelId, parseEventBatch({ events }));
  /** kpi_total_sessions over the traffic's day: one planned read. */
  const kpi = () =>
    httpClient(t.baseUrl, tenant.key).get(
      `/v1/funnels/${tenant.funnelId}/metrics/kpis/kpi_total_sessions?from=2026-05-10&to=2026-05-10`,
    );
  const sessions = async (): Promise<number> => {
    const reply = await kpi();
    expect(reply.status).toBe(200);
    return reply.body.data.value as number;
  };
  const foldedTo = async () => {
    const [row]: { folded_to: Date }[] = await db.query(
      'SELECT folded_to FROM metric_segment_folds WHERE funnel_id = $1',
      [tenant.funnelId],
    );
    return row.folded_to.getTime();
  };
  /**
   * The next snapshot runs `step` (committed on other connections) after its first statement, the
   * plan; resolves to the statements it ran.
   */
  const between = (step: () => Promise<unknown>) => {
    const snapshot = reads.snapshot.bind(reads);
    const statements: string[] = [];
    jest.spyOn(reads, 'snapshot').mockImplementationOnce((work) =>
      snapshot((rows) =>
        work((async (text: string, values?: unknown[]) => {
          const result = await rows(text, values);
          statements.push(text);
          if (statements.length === 1) await step();
          return result;
        }) as SnapshotRows),
      ),
    );
    return statements;
  };

  beforeAll(async () => {
    t = await startTestApp({ SEGMENT_FOLD_POLL_MS: '3600000', SEGMENT_FOLD_LAG_SECONDS: '0' });
    reads = t.app.get(ReadPool);
    folder = t.app.get(SegmentFolder);
    db = t.app.get(DataSource);
    // The round at start has ended: the funnel is folded below only as this suite folds it.
    await folder.idle();
    tenant = await createTenant(t.app);
    await record([start('a', T + 10_000), start('b', T + 20_000), start('c', T + MINUTE + 5_000)]);
    await folder.drain(T + 2 * MINUTE);
    expect(await foldedTo()).toBe(T + 2 * MINUTE);
  }, 120_000);
  afterAll(() => t?.close());

  it('does not count a late batch that commits between the plan and the read', async () => {
    expect(await sessions()).toBe(3);
    // One session in a folded minute (a recorded change), one past the watermark (raw).
    const statements = between(() => record([start('late', T + 30_000), start('tail', T + 5 * MINUTE)]));
    expect(await sessions()).toBe(3);
    expect(statements).toHaveLength(2);
    expect(statements[0]).toMatch(/FROM metric_segment_folds f WHERE f\.funnel_id = \$1/);
    expect(await sessions()).toBe(5);
  });

  it('answers the same when a fold commits between the plan and the read', async () => {
    between(() => folder.foldFunnel(tenant.funnelId, T + 10 * MINUTE));
    expect(await sessions()).toBe(5);
    expect(await foldedTo()).toBe(T + 10 * MINUTE);
    const [changes]: { n: number }[] = await db.query(
      'SELECT count(*)::int AS n FROM metric_segment_changes WHERE funnel_id = $1',
      [tenant.funnelId],
    );
    expect(changes.n).toBe(0);
    expect(await sessions()).toBe(5);
  });

  it('answers 503 when its connection is lost between the plan and the read, then serves again', async () => {
    between(() =>
      db.query(
        `SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity
         WHERE datname = current_database() AND state = 'idle in transaction'
           AND query LIKE '%FROM metric_segment_folds f WHERE f.funnel_id = $1%'`,
      ),
    );
    const reply = await kpi();
    expect([reply.status, reply.headers.get('retry-after'), reply.body]).toEqual([
      503,
      '1',
      { error: 'Service unavailable', status: 503 },
    ]);
    expect(await sessions()).toBe(5);
  });
});
