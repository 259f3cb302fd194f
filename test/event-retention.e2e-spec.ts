import { ConfigService } from '@nestjs/config';
import { DataSource } from 'typeorm';
import {
  CHART_SUBTYPES,
  EventPartitions,
  EventRetention,
  EventsService,
  FILTERED_CHARTS,
  FILTERED_KPIS,
  KPI_SUBTYPES,
  parseEventBatch,
  SegmentFolder,
} from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { seedMetricsFixture } from './support/metrics-fixture';

// Sessions on mobile (January) and on a tablet (February): the filtered figures read the segment
// rollups folded from their raw events.
const FILTER = 'device=mobile&device=tablet';
// Windows over the fixture's months (January to March 2026), whole days and minutes, several zones.
const WINDOWS = [
  'from=2026-01-31&to=2026-02-01',
  'from=2026-02-01&to=2026-02-01&offset=-120',
  'from=2026-01-31&to=2026-01-31&offset=%2B330',
  'from=2026-01-01&to=2026-03-31',
  'from=2026-03-15&to=2026-03-16&timezone=Europe%2FBerlin',
  'from=2026-01-31T21:30:00Z&to=2026-02-01T05:20:59.999Z',
];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('EVENT_RETENTION_MONTHS', () => {
  let t: TestApp;
  let kept: TestApp;
  let acme: TenantFixture;
  let before: Record<string, unknown>;

  const partitions = async (app: TestApp) =>
    (
      await app.app.get(DataSource).query<{ name: string }[]>(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
           WHERE i.inhparent = 'metric_events'::regclass ORDER BY 1`,
      )
    ).map((r) => r.name);
  /** Every chart, KPI and insight of acme's funnel, and step funnels, over every window. */
  const everyAnswer = async (app: TestApp) => {
    const api = httpClient(app.baseUrl, acme.key);
    const base = `/v1/funnels/${acme.funnelId}/metrics`;
    const answers: Record<string, unknown> = {};
    for (const window of WINDOWS) {
      const paths = [
        ...CHART_SUBTYPES.map((s) => `${base}/charts/${s}?${window}`),
        ...KPI_SUBTYPES.map((s) => `${base}/kpis/${s}?${window}`),
        `${base}/insights/question_1?${window}`,
        // Step funnels read the sessions' step summaries, which are kept with the sessions.
        `${base}/funnel?${window}&steps=page:start,page:details,conversion`,
        `${base}/funnel?${window}&steps=click:cta-next,answer:question_1,completion&within=PT30M`,
        ...FILTERED_CHARTS.map((s) => `${base}/charts/${s}?${window}&${FILTER}`),
        ...FILTERED_KPIS.map((s) => `${base}/kpis/${s}?${window}&${FILTER}`),
        ...FILTERED_KPIS.map((s) => `${base}/kpis/${s}?${window}&breakdown=device`),
        `${base}/insights/question_1?${window}&${FILTER}`,
      ];
      for (const path of paths) {
        const res = await api.get(path);
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
        answers[path] = res.body;
      }
    }
    return answers;
  };
  const currentMonth = () => {
    const now = new Date();
    return `metric_events_p${now.getUTCFullYear()}_${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
  };

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
    acme = await createTenant(t.app);
    const globex = await createTenant(t.app);
    await seedMetricsFixture(t, acme, globex);
    const now = await httpClient(t.baseUrl, acme.key).post(`/v1/funnels/${acme.funnelId}/events`, {
      events: [
        { type: 'page_view', sessionId: 'today', occurredAt: new Date().toISOString(), pageSlug: 'start' },
      ],
    });
    expect(now.status).toBe(202);
  }, 120_000);
  afterAll(async () => {
    await kept?.close();
    await t?.close();
  });

  it('keeps a month the segment folds still need, and drops it once they have read it', async () => {
    const db = t.app.get(DataSource);
    const folder = t.app.get(SegmentFolder);
    // Everything folded (the round that start runs), then the job held still.
    await folder.stop();
    folder.start(60_000);
    await folder.idle();
    await folder.stop();
    before = await everyAnswer(t);
    expect(Object.keys(before)).toHaveLength(
      WINDOWS.length *
        (CHART_SUBTYPES.length + KPI_SUBTYPES.length + 4 + FILTERED_CHARTS.length + 2 * FILTERED_KPIS.length),
    );
    expect(await partitions(t)).toEqual(
      expect.arrayContaining(['metric_events_p2026_01', 'metric_events_p2026_02', 'metric_events_p2026_03']),
    );
    const retention = new EventRetention(
      db,
      t.app.get(EventPartitions),
      new ConfigService({ EVENT_RETENTION_MONTHS: 1 }),
    );

    // A late batch recorded a change of the tablet session's February minute, not folded yet: the
    // fold reads that minute whole from its raw events again.
    await db.query(
      `INSERT INTO metric_segment_changes (funnel_id, minute) VALUES ($1, '2026-02-01T03:00:00Z')`,
      [acme.funnelId],
    );
    expect(await retention.dropExpired()).toEqual(['metric_events_p2026_01']);
    expect(await partitions(t)).toEqual(
      expect.arrayContaining(['metric_events_p2026_02', 'metric_events_p2026_03']),
    );

    // Folds behind (folded to March 1) hold the months of the events they have not read (March's).
    await db.query(`DELETE FROM metric_segment_changes WHERE funnel_id = $1`, [acme.funnelId]);
    await db.query(
      `UPDATE metric_segment_folds SET folded_to = '2026-03-01T00:00:00Z' WHERE funnel_id = $1`,
      [acme.funnelId],
    );
    expect(await retention.dropExpired()).toEqual(['metric_events_p2026_02']);
    expect(await partitions(t)).toEqual(expect.arrayContaining(['metric_events_p2026_03']));

    folder.start(60_000);
    await folder.idle();
    expect(await retention.dropExpired()).toEqual(['metric_events_p2026_03']);
    expect(await partitions(t)).toEqual([currentMonth()]);
    expect(await everyAnswer(t)).toEqual(before);
  });

  it('drops the old months at start; every chart, KPI, insight and step funnel over them answers as before', async () => {
    // A second process of the service, on the same database, with the retention on.
    kept = await startTestApp(
      { RATE_LIMIT_PER_MINUTE: '100000', EVENT_RETENTION_MONTHS: '1' },
      t.databaseUrl,
    );
    for (
      const deadline = Date.now() + 60_000;
      (await partitions(kept)).some((p) => p.startsWith('metric_events_p2026_0')) && Date.now() < deadline;
    ) {
      await sleep(100);
    }
    expect(await partitions(kept)).toEqual([currentMonth()]);
    expect(await everyAnswer(kept)).toEqual(before);
    expect(await everyAnswer(t)).toEqual(before);
  });

  it("keeps a dropped month's events in the filtered figures when a minute of it is folded again", async () => {
    const db = t.app.get(DataSource);
    // The process with the retention folds; the other holds still (its settings keep every month).
    await t.app.get(SegmentFolder).stop();
    const folder = kept.app.get(SegmentFolder);
    await folder.stop();
    const janFirst = `${WINDOWS[0]}&${FILTER}`;
    const base = `/v1/funnels/${acme.funnelId}/metrics`;
    const eventTime = ['chart_activity_by_daytime', 'chart_time_on_page', 'chart_button_clicks'];
    const read = async () => {
      const api = httpClient(t.baseUrl, acme.key);
      return Promise.all(eventTime.map(async (s) => (await api.get(`${base}/charts/${s}?${janFirst}`)).body));
    };
    const before = await read();
    expect(JSON.stringify(before)).toMatch(/"value":[1-9]/);
    // S1 (mobile) started 2026-01-31T21:30:00Z, a month whose raw events are gone. Its answer of
    // today changes it, which records its start minute to be folded again.
    const late = await httpClient(t.baseUrl, acme.key).post(`/v1/funnels/${acme.funnelId}/events`, {
      events: [
        {
          type: 'answer',
          sessionId: 'S1',
          occurredAt: new Date().toISOString(),
          questionId: 'question_9',
          questionTitle: 'Anything else?',
          answers: ['No'],
        },
      ],
    });
    expect(late.status).toBe(202);
    expect(
      await db.query(`SELECT minute FROM metric_segment_changes WHERE funnel_id = $1`, [acme.funnelId]),
    ).toEqual([{ minute: new Date('2026-01-31T21:30:00Z') }]);
    folder.start(60_000);
    await folder.idle();
    const [{ left }] = await db.query<{ left: number }[]>(
      `SELECT count(*)::int AS left FROM metric_segment_changes WHERE funnel_id = $1`,
      [acme.funnelId],
    );
    expect(left).toBe(0);
    expect(await read()).toEqual(before);
  });

  it('answers the same when a process without the setting folds a dropped month again, and refuses its events', async () => {
    const db = t.app.get(DataSource);
    // The process with the retention holds still; the one without it (t) folds.
    await kept.app.get(SegmentFolder).stop();
    const folder = t.app.get(SegmentFolder);
    await folder.stop();
    const answers = await everyAnswer(t);
    const mobile = `/v1/funnels/${acme.funnelId}/metrics/kpis/kpi_average_time_on_page?${WINDOWS[0]}&device=mobile`;
    const mobileTime = (await httpClient(t.baseUrl, acme.key).get(mobile)).body;
    expect(mobileTime.data.count).toBeGreaterThan(0);
    // S1 (mobile, started in January, whose raw events are gone) answers again, the same answer
    // later: nothing any figure counts changes, but its start minute is folded again.
    const late = await httpClient(t.baseUrl, acme.key).post(`/v1/funnels/${acme.funnelId}/events`, {
      events: [
        {
          type: 'answer',
          sessionId: 'S1',
          occurredAt: new Date().toISOString(),
          questionId: 'question_9',
          questionTitle: 'Anything else?',
          answers: ['No'],
        },
      ],
    });
    expect(late.status).toBe(202);
    expect(
      await db.query(`SELECT minute FROM metric_segment_changes WHERE funnel_id = $1`, [acme.funnelId]),
    ).toEqual([{ minute: new Date('2026-01-31T21:30:00Z') }]);
    folder.start(60_000);
    await folder.idle();
    await folder.stop();
    const [{ left }] = await db.query<{ left: number }[]>(
      `SELECT count(*)::int AS left FROM metric_segment_changes WHERE funnel_id = $1`,
      [acme.funnelId],
    );
    expect(left).toBe(0);
    expect((await httpClient(t.baseUrl, acme.key).get(mobile)).body).toEqual(mobileTime);
    // The setting off (t) and on (kept): the same answers.
    expect(await everyAnswer(t)).toEqual(answers);
    expect(await everyAnswer(kept)).toEqual(answers);

    // An event of a dropped month, sent to the process without the setting: refused, per event,
    // and no partition of that month is created again.
    const path = `/v1/funnels/${acme.funnelId}/events`;
    const old = await httpClient(t.baseUrl, acme.key).post(path, {
      events: [
        { type: 'page_view', sessionId: 'now', occurredAt: new Date().toISOString(), pageSlug: 'start' },
        { type: 'page_view', sessionId: 'S1', occurredAt: '2026-01-31T21:31:00Z', pageSlug: 'start' },
      ],
    });
    expect(old.status).toBe(400);
    expect(old.body.details).toEqual([
      'events[1].occurredAt is in 2026-01, a month whose raw events were dropped',
    ]);
    // A trusted caller past the API's check (the demo seed's door) is refused where partitions
    // are created.
    await expect(
      t.app.get(EventsService).record(
        acme.funnelId,
        parseEventBatch({
          events: [
            { type: 'page_view', sessionId: 'S1', occurredAt: '2026-02-10T00:00:00Z', pageSlug: 'start' },
          ],
        }),
      ),
    ).rejects.toThrow(/raw events were dropped/);
    expect(await partitions(t)).toEqual([currentMonth()]);
    expect(await everyAnswer(t)).toEqual(answers);
  });

  it('drops nothing more when run again, from any process at once', async () => {
    const retention = kept.app.get(EventRetention);
    expect(await Promise.all([retention.dropExpired(), retention.dropExpired()])).toEqual([[], []]);
    expect(await partitions(kept)).toEqual([currentMonth()]);
  });

  it('refuses an event from before the kept months with 400, and still takes current ones', async () => {
    const api = httpClient(kept.baseUrl, acme.key);
    const path = `/v1/funnels/${acme.funnelId}/events`;
    const old = await api.post(path, {
      events: [
        { type: 'page_view', sessionId: 'late', occurredAt: '2026-01-31T21:30:00Z', pageSlug: 'start' },
      ],
    });
    expect(old.status).toBe(400);
    expect(old.body.details).toEqual([expect.stringMatching(/^events\[0\]\.occurredAt is before /)]);
    const current = await api.post(path, {
      events: [
        { type: 'page_view', sessionId: 'now', occurredAt: new Date().toISOString(), pageSlug: 'start' },
      ],
    });
    expect(current.status).toBe(202);
  });
});
