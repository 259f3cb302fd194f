import { DataSource } from 'typeorm';
import { AppMetrics, MonotonicClock } from '@app/core';
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
// The fold and the ingestion activity read time from MonotonicClock: here it moves only when a
// chunk is folded (CHUNK_MS) or the fold pauses (by the pause asked for), so the waits are exact
// whatever the machine's speed.

jest.setTimeout(300_000);

const HOUR = 3_600_000;
/** How long each chunk of the fold takes on the test's clock. */
const CHUNK_MS = 20;

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
  let clock: MonotonicClock;
  let time = 1_000_000;

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
    clock = t.app.get(MonotonicClock);
    await folder.idle();
    jest.spyOn(clock, 'now').mockImplementation(() => time);
    // Each chunk takes CHUNK_MS; each wait the folder makes moves the clock by what it asked for.
    const foldChunk = folder.foldChunk.bind(folder);
    jest.spyOn(folder, 'foldChunk').mockImplementation(async (...args) => {
      const more = await foldChunk(...args);
      time += CHUNK_MS;
      if (more) chunks.push(CHUNK_MS);
      return more;
    });
    const paused = folder as unknown as { pause(ms: number): Promise<void> };
    const pause = paused.pause.bind(folder);
    jest.spyOn(paused, 'pause').mockImplementation((ms: number) => {
      pauses.push(ms);
      time += ms;
      return pause(0);
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
    time += 10_000;
    expect(activity.busy()).toBe(false);
    const written = t.app
      .get(EventsService)
      .record(tenant.funnelId, parseEventBatch({ events: randomTraffic(3, 5) }));
    expect(activity.busy()).toBe(true);
    // However long the batch takes, it counts as ingesting until it is answered.
    time += 60_000;
    expect(activity.busy()).toBe(true);
    await written;
    expect(activity.busy()).toBe(true);
    time += 999;
    expect(activity.busy()).toBe(true);
    time += 1;
    expect(activity.busy()).toBe(false);
    // A batch that fails (a funnel that does not exist) ends its activity too.
    await expect(
      t.app
        .get(EventsService)
        .record('00000000-0000-4000-8000-000000000000', parseEventBatch({ events: randomTraffic(4, 2) })),
    ).rejects.toThrow('Funnel not found');
    time += 1_000;
    expect(activity.busy()).toBe(false);
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
    // After each chunk, 1 / share − 1 times as long as it took, in pauses of 100 ms at most; the
    // counter has the seconds waited.
    const wait = CHUNK_MS * (1 / SHARE_WHILE_INGESTING - 1);
    expect(pauses.length).toBe(4 * Math.ceil(wait / 100));
    expect(Math.max(...pauses)).toBe(100);
    expect(pauses.reduce((sum, ms) => sum + ms, 0)).toBeCloseTo(4 * wait, 6);
    expect(yielded * 1000).toBeCloseTo(4 * wait, 6);

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
        drains.push(clock.now());
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
        const answered = clock.now();
        folder.start(60_000);
        await folder.idle();
        expect(drains.length).toBe(1);
        // Ingestion counts as busy for a second after its last batch (the test above): the round
        // waits that second in pauses of 100 ms, then folds without waiting.
        expect(drains[0] - answered).toBe(1_000);
        expect(pauses).toEqual(Array(10).fill(100));
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
        drains.push(clock.now());
        void folder.stop();
        return Promise.resolve();
      });
      const yieldedBefore = await counter('segment_fold_yield_seconds_total');
      const started = clock.now();
      folder.start(400);
      await folder.idle();
      expect(drains.length).toBe(1);
      // The interval, in steps of 100 ms; the wait counts as yielded to ingestion.
      expect(drains[0] - started).toBe(400);
      expect(pauses).toEqual([100, 100, 100, 100]);
      expect((await counter('segment_fold_yield_seconds_total')) - yieldedBefore).toBeCloseTo(0.4, 6);
    });
  });
});
