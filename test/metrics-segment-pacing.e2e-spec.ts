import { DataSource } from 'typeorm';
import { AppMetrics } from '@app/core';
import {
  EventsService,
  IngestionActivity,
  parseEventBatch,
  SegmentFolder,
  SHARE_WHILE_INGESTING,
} from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { randomTraffic, T0 } from './support/random-traffic';

// While the process ingests, the segment fold works a share of the time (SHARE_WHILE_INGESTING),
// in chunks of a quarter hour (CHUNK_WHILE_INGESTING): after each chunk it waits 1 / share − 1
// times as long as the chunk took, less once ingestion is quiet. Without ingestion it folds an
// hour per chunk without waiting. Either way it folds the same rows. A scheduled round starts
// once ingestion pauses, or after one poll interval.

jest.setTimeout(300_000);

const HOUR = 3_600_000;

/** randomTraffic's three minutes moved `offset` ms later, its session ids marked by the offset. */
const shiftedTraffic = (seed: number, sessions: number, offset: number) =>
  randomTraffic(seed, sessions).map((e) => ({
    ...e,
    sessionId: `${offset}-${e.sessionId as string}`,
    occurredAt: new Date(Date.parse(e.occurredAt as string) + offset).toISOString(),
  }));

describe('segment folds yield to ingestion', () => {
  let t: TestApp;
  let db: DataSource;
  let folder: SegmentFolder;
  let activity: IngestionActivity;
  let chunks: number[];
  let pauses: number[];
  let busy: jest.SpyInstance;

  /**
   * A funnel with the same three minutes of traffic at each of `offsets` (ms after T0): by
   * default at the start of three hours, three chunks of the fold either way.
   */
  const funnelWithTraffic = async (seed: number, offsets = [0, HOUR, 2 * HOUR]): Promise<TenantFixture> => {
    const tenant = await createTenant(t.app);
    const events = offsets.flatMap((offset) => shiftedTraffic(seed, 30, offset));
    await t.app.get(EventsService).record(tenant.funnelId, parseEventBatch({ events }));
    // The watermark row a round adds for every funnel first.
    await db.query('INSERT INTO metric_segment_folds (funnel_id) VALUES ($1)', [tenant.funnelId]);
    return tenant;
  };
  /** The value of one of the fold's counters in this process. */
  const counter = async (name: string) => {
    const metric = t.app.get(AppMetrics).registry.getSingleMetric(name);
    return (await metric!.get()).values[0]?.value ?? 0;
  };
  const rollups = (funnelId: string) =>
    db.query(
      `SELECT grain, bucket, segment, sessions, events FROM metric_segment_rollups
       WHERE funnel_id = $1 ORDER BY grain, bucket, segment`,
      [funnelId],
    );

  beforeAll(async () => {
    t = await startTestApp({ SEGMENT_FOLD_POLL_MS: '3600000' });
    db = t.app.get(DataSource);
    folder = t.app.get(SegmentFolder);
    activity = t.app.get(IngestionActivity);
    await folder.idle();
    // Each chunk's time, and each wait the folder makes.
    const foldChunk = folder.foldChunk.bind(folder);
    jest.spyOn(folder, 'foldChunk').mockImplementation(async (...args) => {
      const started = performance.now();
      const more = await foldChunk(...args);
      if (more) chunks.push(performance.now() - started);
      return more;
    });
    const paused = folder as unknown as { pause(ms: number): Promise<void> };
    const pause = paused.pause.bind(folder);
    jest.spyOn(paused, 'pause').mockImplementation((ms: number) => {
      pauses.push(ms);
      return pause(ms);
    });
    busy = jest.spyOn(activity, 'busy');
  });
  beforeEach(() => {
    chunks = [];
    pauses = [];
    busy.mockReset();
  });
  afterAll(() => t.close());

  it('counts this process as ingesting while a batch is written and for a second after', async () => {
    busy.mockRestore();
    const tenant = await createTenant(t.app);
    const before = performance.now();
    expect(activity.busy(before + 10_000)).toBe(false);
    const written = t.app
      .get(EventsService)
      .record(tenant.funnelId, parseEventBatch({ events: randomTraffic(3, 5) }));
    expect(activity.busy()).toBe(true);
    await written;
    const after = performance.now();
    expect(activity.busy(after)).toBe(true);
    expect(activity.busy(after + 1_100)).toBe(false);
    // A batch that fails (a funnel that does not exist) ends its activity too.
    await expect(
      t.app
        .get(EventsService)
        .record('00000000-0000-4000-8000-000000000000', parseEventBatch({ events: randomTraffic(4, 2) })),
    ).rejects.toThrow('Funnel not found');
    expect(activity.busy(performance.now() + 1_100)).toBe(false);
    busy = jest.spyOn(activity, 'busy');
  });

  it('waits 1 / share − 1 times each chunk while ingestion is busy, and folds the same rows', async () => {
    const idle = await funnelWithTraffic(11);
    const ingesting = await funnelWithTraffic(11);
    // Sealed at the end of the third hour: idle, its chunks end at 11:00, 12:00 and 13:00.
    const at = T0 + 3 * HOUR;

    busy.mockReturnValue(false);
    const yieldedIdle = await counter('segment_fold_yield_seconds_total');
    await folder.foldFunnel(idle.funnelId, at);
    expect(chunks.length).toBe(3);
    expect(pauses).toEqual([]);
    expect(await counter('segment_fold_yield_seconds_total')).toBe(yieldedIdle);

    chunks = [];
    busy.mockReturnValue(true);
    const [chunksBefore, yieldedBefore] = [
      await counter('segment_fold_chunks_total'),
      await counter('segment_fold_yield_seconds_total'),
    ];
    await folder.foldFunnel(ingesting.funnelId, at);
    // What an operator sees: four chunks (the quarter hour of each hour's traffic, then the rest
    // of the last hour), and the seconds waited for ingestion.
    expect((await counter('segment_fold_chunks_total')) - chunksBefore).toBe(4);
    const yielded = (await counter('segment_fold_yield_seconds_total')) - yieldedBefore;
    expect(chunks.length).toBe(4);
    const waited = pauses.reduce((sum, ms) => sum + ms, 0);
    const worked = chunks.reduce((sum, ms) => sum + ms, 0);
    const times = 1 / SHARE_WHILE_INGESTING - 1;
    // The seconds waited (the counter's, measured by the clock: a late timer counts too) cover
    // 1 / share − 1 times each chunk; what the folder asked for, at most that, and the
    // millisecond each pause may end early (below), which the next pause asks for again.
    expect(yielded * 1000).toBeGreaterThanOrEqual(times * worked - 1);
    expect(waited).toBeLessThanOrEqual(times * worked + pauses.length + 10);
    expect(Math.max(...pauses)).toBeLessThanOrEqual(100);
    // Timers fire on the event loop's millisecond clock: each pause may end up to 1 ms early.
    expect(yielded * 1000).toBeGreaterThanOrEqual(waited - pauses.length);
    expect(yielded * 1000).toBeLessThanOrEqual(waited * 1.2 + 200);

    const [a, b] = [await rollups(idle.funnelId), await rollups(ingesting.funnelId)];
    expect(a.length).toBeGreaterThan(0);
    expect(b.map((r: { segment: string }) => r.segment)).toEqual(
      a.map((r: { segment: string }) => r.segment),
    );
    expect(b.map((r: { sessions: unknown }) => r.sessions)).toEqual(
      a.map((r: { sessions: unknown }) => r.sessions),
    );
  });

  it('stops waiting once ingestion is quiet', async () => {
    const tenant = await funnelWithTraffic(12);
    // Busy for the first chunk's size and two waits, then quiet.
    busy.mockReturnValueOnce(true).mockReturnValueOnce(true).mockReturnValueOnce(true).mockReturnValue(false);
    await folder.foldFunnel(tenant.funnelId, T0 + 3 * HOUR);
    expect(chunks.length).toBe(3);
    expect(pauses.length).toBe(2);
  });

  it('folds a quarter hour per chunk while ingestion is busy, an hour once quiet', async () => {
    // Traffic at 10:00, 10:20 and 10:40: three quarter hours of one hour.
    const offsets = [0, 20 * 60_000, 40 * 60_000];
    const idle = await funnelWithTraffic(13, offsets);
    const ingesting = await funnelWithTraffic(13, offsets);
    busy.mockReturnValue(false);
    await folder.foldFunnel(idle.funnelId, T0 + HOUR);
    expect(chunks.length).toBe(1);
    chunks = [];
    busy.mockReturnValue(true);
    await folder.foldFunnel(ingesting.funnelId, T0 + HOUR);
    // Each quarter hour with traffic, then the last, empty, which completes the hour's rows.
    expect(chunks.length).toBe(4);
    const [a, b] = [await rollups(idle.funnelId), await rollups(ingesting.funnelId)];
    expect(a.length).toBeGreaterThan(0);
    expect(b).toEqual(a.map((r: Record<string, unknown>) => ({ ...r })));
  });

  it('refolds at most an hour of changed minutes per chunk, and the same rows as folding them once', async () => {
    // Traffic of three minutes every three minutes from 10:03 to 11:45, arriving after the funnel
    // was folded and sealed to 13:00: a change per minute (per batch) to fold again. All at once,
    // a day of such an import held every session of its minutes in the process's memory.
    const shifted = (offset: number) => shiftedTraffic(16, 10, offset);
    const late = Array.from({ length: 34 }, (_, i) => shifted((i + 1) * 3 * 60_000)).flat();
    const record = async (funnelId: string, events: Record<string, unknown>[]) => {
      for (let i = 0; i < events.length; i += 1000)
        await t.app
          .get(EventsService)
          .record(funnelId, parseEventBatch({ events: events.slice(i, i + 1000) }));
    };
    const twin = await createTenant(t.app);
    const tenant = await createTenant(t.app);
    await record(twin.funnelId, [...shifted(0), ...late]);
    await record(tenant.funnelId, shifted(0));
    await db.query('INSERT INTO metric_segment_folds (funnel_id) VALUES ($1), ($2)', [
      twin.funnelId,
      tenant.funnelId,
    ]);
    busy.mockReturnValue(false);
    await folder.foldFunnel(twin.funnelId, T0 + 3 * HOUR);
    await folder.foldFunnel(tenant.funnelId, T0 + 3 * HOUR);
    await record(tenant.funnelId, late);
    const [{ minutes, changes }] = await db.query(
      `SELECT count(DISTINCT minute)::int AS minutes, count(*)::int AS changes
       FROM metric_segment_changes WHERE funnel_id = $1`,
      [tenant.funnelId],
    );
    expect(minutes).toBeGreaterThan(90);

    chunks = [];
    await folder.foldFunnel(tenant.funnelId, T0 + 3 * HOUR);
    expect(chunks.length).toBe(Math.ceil(changes / 60));
    const [a, b] = [await rollups(twin.funnelId), await rollups(tenant.funnelId)];
    expect(a.length).toBeGreaterThan(0);
    expect(b).toEqual(a.map((r: Record<string, unknown>) => ({ ...r })));
  });

  describe('a scheduled round', () => {
    let drains: number[];
    let drain: jest.SpyInstance;
    beforeEach(() => {
      drains = [];
      const real = folder.drain.bind(folder);
      drain = jest.spyOn(folder, 'drain').mockImplementation((now?: number) => {
        drains.push(performance.now());
        return real(now);
      });
    });
    afterEach(async () => {
      await folder.stop();
      drain.mockRestore();
    });

    it('starts once this process has not ingested for a second, then folds', async () => {
      busy.mockRestore();
      try {
        const tenant = await createTenant(t.app);
        await t.app
          .get(EventsService)
          .record(tenant.funnelId, parseEventBatch({ events: randomTraffic(15, 20) }));
        const answered = performance.now();
        folder.start(60_000);
        await folder.idle();
        expect(drains.length).toBe(1);
        // Ingestion counts as busy for a second after its last batch (the test above).
        expect(drains[0] - answered).toBeGreaterThanOrEqual(990);
        expect(drains[0] - answered).toBeLessThan(60_000);
        expect(pauses.length).toBeGreaterThanOrEqual(9);
        const [fold] = await db.query('SELECT folded_to FROM metric_segment_folds WHERE funnel_id = $1', [
          tenant.funnelId,
        ]);
        expect(fold.folded_to).not.toBeNull();
      } finally {
        busy = jest.spyOn(activity, 'busy');
      }
    });

    it('waits one poll interval at most while ingestion never pauses', async () => {
      busy.mockReturnValue(true);
      // The round itself is not run (nor the next, which the interval would start right after).
      drain.mockImplementation(() => {
        drains.push(performance.now());
        void folder.stop();
        return Promise.resolve();
      });
      const yieldedBefore = await counter('segment_fold_yield_seconds_total');
      const started = performance.now();
      folder.start(400);
      await folder.idle();
      expect(drains.length).toBe(1);
      expect(drains[0] - started).toBeGreaterThanOrEqual(399);
      expect(drains[0] - started).toBeLessThan(1_400);
      // Asked for in steps of 100 ms, 400 in all (and each millisecond a pause ended early, asked
      // for again); the wait counts as yielded to ingestion.
      expect(Math.max(...pauses)).toBeLessThanOrEqual(100);
      expect(pauses.reduce((sum, ms) => sum + ms, 0)).toBeLessThanOrEqual(400 + pauses.length);
      expect((await counter('segment_fold_yield_seconds_total')) - yieldedBefore).toBeGreaterThanOrEqual(
        0.399,
      );
    });
  });
});
