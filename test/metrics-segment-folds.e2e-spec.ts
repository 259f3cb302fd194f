import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { EventsService, parseEventBatch, SegmentFolder } from '@app/metrics';
import { createRandom } from '../apps/admin/src/demo/demo-data';
import { FIVE_MINUTE_ROWS } from '../db/migrations/1796480000000-FiveMinuteSegments';
import { SEGMENT_TOTALS } from '../db/migrations/1796510000000-SegmentSessionTotals';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { randomTraffic, SPAN, T0 } from './support/random-traffic';

// Filtered figures over pages, answers and events read the segment rollups that the folder fills
// after ingestion, and raw rows for what it has not folded; unfiltered session figures read, at
// their edges, the session rollups' ten-second rows it writes. This suite sends random traffic out
// of order to two funnels, folds part of it (one funnel up to a minute, the other all), then sends
// the rest late (events of folded minutes, earlier session_starts that move sessions to another
// segment after their events were folded), and compares every such figure with the one computed
// from the stored sessions and events one by one: before the folder has caught up and after.

jest.setTimeout(600_000);

type SessionRow = {
  session_id: string;
  started_at: Date | null;
  device: string | null;
  utm_source: string | null;
  ab_variant: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  pages: string[];
  answers: Record<string, { answers: string[] }>;
  converted_at: Date | null;
  completed_at: Date | null;
};
type EventRow = {
  session_id: string;
  type: string;
  occurred_at: Date;
  key: string;
  time_on_page_ms: number | null;
  button_label: string | null;
};
type Filter = Partial<Record<'device' | 'utmSource' | 'abVariant' | 'utmMedium', string[]>>;

const COLUMN = {
  device: 'device',
  utmSource: 'utm_source',
  abVariant: 'ab_variant',
  utmMedium: 'utm_medium',
} as const;
const PAGES = ['start', 'details', 'done'];
const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals;
const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * The traffic in two parts, each shuffled: first everything before its last minute and half of the
 * rest; then the other half and, for sessions started in the last minute, an earlier
 * session_start of other attributes (a new segment for events already stored), so that the last
 * minute changes after it was folded and the first two do not.
 */
function outOfOrderTraffic(seed: number, sessions: number) {
  const random = createRandom(seed);
  const lastMinute = T0 + SPAN - 60_000;
  const shuffled = (list: Record<string, unknown>[]) => {
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [list[i], list[j]] = [list[j], list[i]];
    }
    return list;
  };
  const events = randomTraffic(seed, sessions).map((e): Record<string, unknown> => ({
    ...e,
    sessionId: `${seed}-${e.sessionId as string}`,
  }));
  const early: Record<string, unknown>[] = [];
  const late: Record<string, unknown>[] = [];
  for (const e of events) {
    const at = Date.parse(e.occurredAt as string);
    (at < lastMinute || random() < 0.5 ? early : late).push(e);
    if (e.type === 'session_start' && e.visitorId !== 'late' && at >= lastMinute + 2000 && random() < 0.5)
      late.push({
        ...e,
        occurredAt: new Date(at - 1000).toISOString(),
        device: random() < 0.5 ? 'tablet' : 'mobile',
        utm: { source: random() < 0.5 ? 'google' : 'bing', medium: 'cpc' },
        visitorId: 'earlier',
      });
  }
  const batches = (list: Record<string, unknown>[], size: number) =>
    Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));
  return { early: batches(shuffled(early), 97), late: batches(shuffled(late), 29) };
}

const FILTERS: Filter[] = [
  { device: ['mobile'] },
  { device: ['mobile', 'tablet'], utmSource: ['google', 'facebook'] },
  { abVariant: ['original'] },
  { utmMedium: ['cpc'] },
];
const query = (filter: Filter) =>
  Object.entries(filter)
    .flatMap(([name, values]) => values.map((v) => `${name}=${encodeURIComponent(v)}`))
    .join('&');

// Whole local days, minute and ten-second edges, and random windows around the traffic.
const WINDOWS: { from: number; to: number; offset: number }[] = [
  { from: Date.parse('2026-05-10T00:00:00Z'), to: Date.parse('2026-05-10T23:59:59.999Z'), offset: 0 },
  { from: T0 + 60_000, to: T0 + 120_000 - 1, offset: 0 },
  { from: T0 + 10_000, to: T0 + 140_000 - 1, offset: 120 },
  ...fc
    .sample(
      fc.tuple(
        fc.integer({ min: T0 - 5_000, max: T0 + SPAN + 5_000 }),
        fc.integer({ min: T0 - 5_000, max: T0 + SPAN + 5_000 }),
        fc.constantFrom(0, -330, 120),
      ),
      { seed: 29, numRuns: 3 },
    )
    .map(([a, b, offset]) => ({ from: Math.min(a, b), to: Math.max(a, b) + 1, offset })),
];

describe('filtered figures from folded segment rollups equal the raw computation', () => {
  let t: TestApp;
  let tenants: TenantFixture[];
  let db: DataSource;
  let folder: SegmentFolder;
  let late: Record<string, unknown>[][][];

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000', SEGMENT_FOLD_POLL_MS: '3600000' });
    db = t.app.get(DataSource);
    folder = t.app.get(SegmentFolder);
    tenants = [await createTenant(t.app), await createTenant(t.app)];
    const service = t.app.get(EventsService);
    late = [];
    for (const [i, tenant] of tenants.entries()) {
      const traffic = outOfOrderTraffic(7 + i, 250);
      for (const batch of traffic.early)
        await service.record(tenant.funnelId, parseEventBatch({ events: batch }));
      late.push(traffic.late);
    }
  });
  afterAll(() => t.close());

  const get = async (tenant: TenantFixture, path: string) => {
    const res = await httpClient(t.baseUrl, tenant.key).get(`/v1/funnels/${tenant.funnelId}/metrics/${path}`);
    expect(res.status).toBe(200);
    return res.body.data;
  };

  const matches = (s: SessionRow | undefined, filter: Filter) =>
    !!s &&
    s.started_at !== null &&
    Object.entries(filter).every(([name, values]) => {
      const value = s[COLUMN[name as keyof Filter]];
      return value !== null && values.includes(value);
    });

  /** Every filtered figure of a funnel, computed from its stored sessions and events one by one. */
  async function expectedOf(funnelId: string) {
    const sessions: SessionRow[] = await db.query(
      `SELECT session_id, started_at, device, utm_source, ab_variant, utm_medium, utm_campaign, pages, answers,
              converted_at, completed_at
       FROM metric_sessions WHERE funnel_id = $1`,
      [funnelId],
    );
    const events: EventRow[] = await db.query(
      `SELECT session_id, type, occurred_at, key, time_on_page_ms, button_label FROM metric_events
       WHERE funnel_id = $1 AND type IN ('page_view', 'button_click')`,
      [funnelId],
    );
    const byId = new Map(sessions.map((s) => [s.session_id, s]));
    return (from: number, to: number, offset: number, filter: Filter) => {
      const started = sessions.filter(
        (s) => matches(s, filter) && +s.started_at! >= from && +s.started_at! <= to,
      );
      const inWindow = events.filter(
        (e) =>
          +e.occurred_at >= from &&
          +e.occurred_at <= to &&
          (Object.keys(filter).length === 0 || matches(byId.get(e.session_id), filter)),
      );
      const views = inWindow.filter((e) => e.type === 'page_view');
      const clicks = inWindow.filter((e) => e.type === 'button_click');
      const pageToPage = (variant?: string) =>
        PAGES.map(
          (slug) =>
            started.filter((s) => s.pages.includes(slug) && (!variant || s.ab_variant === variant)).length,
        );
      const activity = new Array<number>(168).fill(0);
      for (const e of views) {
        const h = Math.floor((Math.floor(+e.occurred_at / 60_000) - offset) / 60);
        activity[((Math.floor(h / 24) + 3) % 7) * 24 + (h % 24)] += 1;
      }
      const timed = views.filter((e) => e.time_on_page_ms !== null);
      const timeOnPage = PAGES.map((slug) => {
        const mine = timed.filter((e) => e.key === slug);
        return mine.length
          ? round(mine.reduce((sum, e) => sum + e.time_on_page_ms!, 0) / mine.length / 1000, 2)
          : 0;
      });
      const buttons = new Map<string, { value: number; label: string | null; at: number }>();
      for (const e of clicks) {
        const b = buttons.get(e.key) ?? { value: 0, label: null, at: -1 };
        b.value += 1;
        if (
          e.button_label !== null &&
          (+e.occurred_at > b.at || (+e.occurred_at === b.at && bytes(e.button_label, b.label ?? '') > 0))
        ) {
          b.label = e.button_label;
          b.at = +e.occurred_at;
        }
        buttons.set(e.key, b);
      }
      const clicksChart = [...buttons.entries()]
        .map(([key, b]) => ({ key, name: b.label ?? key, value: b.value }))
        .sort((a, b) => b.value - a.value || (a.key < b.key ? -1 : 1));
      const totalMs = timed.reduce((sum, e) => sum + e.time_on_page_ms!, 0);
      const averageTime = {
        value: timed.length ? round(totalMs / timed.length / 1000, 2) : 0,
        count: timed.length,
      };
      const byDevice: Record<string, number> = {};
      for (const e of timed) {
        const s = byId.get(e.session_id);
        const key = s?.started_at ? (s.device ?? '(none)') : '(none)';
        byDevice[key] = (byDevice[key] ?? 0) + 1;
      }
      const insight = (question: string) => {
        const answers: Record<string, number> = {};
        const groupedAnswers: Record<string, number> = {};
        for (const s of started) {
          const latest = s.answers[question];
          if (!latest) continue;
          const distinct = [...new Set(latest.answers)];
          for (const a of distinct) answers[a] = (answers[a] ?? 0) + 1;
          const group = distinct.join('; ');
          groupedAnswers[group] = (groupedAnswers[group] ?? 0) + 1;
        }
        return { answers, groupedAnswers };
      };
      // The session KPIs' counters and the sessions per device, as the segments' outcomes sum them.
      const completed = started.filter((s) => s.completed_at !== null);
      const completionMs = completed.reduce(
        (sum, s) => sum + Math.max(0, +s.completed_at! - +s.started_at!),
        0,
      );
      const outcomes = {
        sessions: started.length,
        conversions: started.filter((s) => s.converted_at !== null).length,
        completions: completed.length,
        averageCompletion: completed.length ? round(completionMs / completed.length / 1000, 2) : 0,
      };
      const sessionsByDevice: Record<string, number> = {};
      for (const s of started)
        sessionsByDevice[s.device ?? '(none)'] = (sessionsByDevice[s.device ?? '(none)'] ?? 0) + 1;
      return {
        pageToPage,
        activity,
        timeOnPage,
        clicksChart,
        averageTime,
        byDevice,
        insight,
        outcomes,
        sessionsByDevice,
      };
    };
  }

  /** Every filtered figure over every window agrees with the raw computation, on both funnels. */
  async function agreeEverywhere() {
    for (const tenant of tenants) {
      const expected = await expectedOf(tenant.funnelId);
      for (const w of WINDOWS) {
        const period = `from=${new Date(w.from).toISOString()}&to=${new Date(w.to).toISOString()}&offset=${w.offset}`;
        for (const filter of [...FILTERS, {}]) {
          const q = `${period}&${query(filter)}`;
          const want = expected(w.from, w.to, w.offset, filter);
          const average = await get(tenant, `kpis/kpi_average_time_on_page?${q}&breakdown=device`);
          expect({ value: average.value, count: average.count }).toEqual(want.averageTime);
          expect(
            Object.fromEntries(
              average.breakdown.map((b: { key: string; count: number }) => [b.key, b.count]),
            ),
          ).toEqual(want.byDevice);
          const sessions = await get(tenant, `kpis/kpi_total_sessions?${q}&breakdown=device`);
          expect(sessions.value).toBe(want.outcomes.sessions);
          expect(
            Object.fromEntries(
              sessions.breakdown.map((b: { key: string; count: number }) => [b.key, b.count]),
            ),
          ).toEqual(want.sessionsByDevice);
          // Unfiltered, the session figures read the session rollups, at their edges the fold's
          // ten-second rows where they may be read.
          const conversion = await get(tenant, `kpis/kpi_conversion_rate?${q}`);
          expect(conversion.count).toBe(want.outcomes.sessions);
          expect(conversion.value).toBe(
            want.outcomes.sessions ? round((100 * want.outcomes.conversions) / want.outcomes.sessions, 2) : 0,
          );
          const completion = await get(tenant, `kpis/kpi_time_to_completion?${q}`);
          expect(completion).toMatchObject({
            value: want.outcomes.averageCompletion,
            count: want.outcomes.completions,
          });
          const pages = await get(tenant, `charts/chart_page_to_page_conversion_rate?${q}`);
          expect(pages.map((p: { value: number }) => p.value)).toEqual(want.pageToPage());
          const original = await get(
            tenant,
            `charts/chart_page_to_page_conversion_rate?${q}&abTest=original`,
          );
          expect(original.map((p: { value: number }) => p.value)).toEqual(want.pageToPage('original'));
          const activity = await get(tenant, `charts/chart_activity_by_daytime?${q}`);
          expect(activity.map((p: { value: number }) => p.value)).toEqual(want.activity);
          const timeOnPage = await get(tenant, `charts/chart_time_on_page?${q}`);
          expect(timeOnPage.map((p: { value: number }) => p.value)).toEqual(want.timeOnPage);
          expect(await get(tenant, `charts/chart_button_clicks?${q}`)).toEqual(want.clicksChart);
          for (const question of ['question_1', 'question_2']) {
            const insight = await get(tenant, `insights/${question}?${q}`);
            expect({ answers: insight.answers, groupedAnswers: insight.groupedAnswers }).toEqual(
              want.insight(question),
            );
          }
        }
      }
    }
  }

  const counts = async (funnelId: string) => {
    const [row]: { rollups: number; changes: number; folded_to: Date | null }[] = await db.query(
      `SELECT (SELECT count(*)::int FROM metric_segment_rollups WHERE funnel_id = $1) AS rollups,
              (SELECT count(*)::int FROM metric_segment_changes WHERE funnel_id = $1) AS changes,
              (SELECT folded_to FROM metric_segment_folds WHERE funnel_id = $1) AS folded_to`,
      [funnelId],
    );
    return row;
  };

  const GRAINS = [60, 300, 900, 3600, 86400];
  // A segment's key as segmentKey() writes it (`<length>:<value>` per filter attribute, `-` unset).
  const SEGMENT_KEY = ['device', 'utm_source', 'ab_variant', 'utm_medium', 'utm_campaign']
    .map((c) => `coalesce(length(m.${c}) || ':' || m.${c}, '-')`)
    .join(' || ');

  /**
   * Runs migrations' frozen statements as they ran at their turn, before the later migrations
   * added the totals columns without a default (the columns the statements do not write take the
   * values those migrations gave the rows already there) and dropped the folds' `finest_from`
   * (`infinity` then: no ten-second rows).
   */
  const atTheirTurn = (statements: string[]) =>
    db.transaction(async (manager) => {
      const columns = ['started', 'conversions', 'completions', 'completion_ms'];
      await manager.query(
        `ALTER TABLE metric_segment_rollups ${columns.map((c) => `ALTER ${c} SET DEFAULT 0`).join(', ')}`,
      );
      await manager.query(`ALTER TABLE metric_segment_folds ADD finest_from timestamptz DEFAULT 'infinity'`);
      for (const sql of statements) await manager.query(sql);
      await manager.query(`ALTER TABLE metric_segment_folds DROP COLUMN finest_from`);
      await manager.query(
        `ALTER TABLE metric_segment_rollups ${columns.map((c) => `ALTER ${c} DROP DEFAULT`).join(', ')}`,
      );
    });

  /**
   * A funnel's segment rollup totals per grain (non-zero ones), and the same counted from its
   * sessions one by one for the whole buckets before `folded_to`: what the fold must have written.
   */
  const segmentTotals = async (funnelId: string) => {
    const rows = (sql: string, grain: number) =>
      db.query(
        `SELECT bucket, segment, started::int, conversions::int, completions::int, completion_ms::bigint::text
         FROM (${sql}) AS x WHERE started <> 0 OR conversions <> 0 OR completions <> 0 OR completion_ms <> 0
         ORDER BY bucket, segment`,
        [funnelId, grain],
      );
    const result: Record<number, { stored: unknown[]; counted: unknown[] }> = {};
    for (const grain of GRAINS)
      result[grain] = {
        stored: await rows(
          `SELECT bucket, segment, started, conversions, completions, completion_ms FROM metric_segment_rollups
           WHERE funnel_id = $1 AND grain = $2`,
          grain,
        ),
        counted: await rows(
          `SELECT date_bin($2 * interval '1 second', m.started_at, 'epoch') AS bucket, ${SEGMENT_KEY} AS segment,
                  count(*) AS started, count(m.converted_at) AS conversions, count(m.completed_at) AS completions,
                  sum(greatest(0, extract(epoch FROM m.completed_at - m.started_at) * 1000)) AS completion_ms
           FROM metric_sessions m JOIN metric_segment_folds f ON f.funnel_id = m.funnel_id
           WHERE m.funnel_id = $1 AND m.started_at IS NOT NULL
             AND date_bin($2 * interval '1 second', m.started_at, 'epoch') + $2 * interval '1 second' <= f.folded_to
           GROUP BY 1, 2`,
          grain,
        ),
      };
    return result;
  };

  it('answers from raw rows while nothing is folded', async () => {
    for (const tenant of tenants) {
      expect((await counts(tenant.funnelId)).rollups).toBe(0);
      // Ingestion writes no segment totals: the fold does.
      const [session]: { n: number }[] = await db.query(
        `SELECT count(*)::int AS n FROM metric_session_rollups WHERE funnel_id = $1 AND dimension = 'segment'`,
        [tenant.funnelId],
      );
      expect(session.n).toBe(0);
    }
    await agreeEverywhere();
  });

  it('answers exactly with part folded and late events and session_starts not folded yet', async () => {
    await folder.drain(Date.now());
    // The first funnel is folded only up to its traffic's second minute, the second wholly.
    await db.query(
      `UPDATE metric_segment_folds SET sealed_to = NULL, folded_to = NULL WHERE funnel_id = $1`,
      [tenants[0].funnelId],
    );
    await db.query(`DELETE FROM metric_segment_rollups WHERE funnel_id = $1`, [tenants[0].funnelId]);
    await folder.foldFunnel(tenants[0].funnelId, T0 + 60_000);
    expect((await counts(tenants[0].funnelId)).folded_to).toEqual(new Date(T0 + 60_000));
    expect((await counts(tenants[1].funnelId)).rollups).toBeGreaterThan(0);
    const service = t.app.get(EventsService);
    for (const [i, tenant] of tenants.entries())
      for (const batch of late[i]) await service.record(tenant.funnelId, parseEventBatch({ events: batch }));
    // The second funnel's last minute changed after it was folded; its first minute did not.
    const [stale]: { minutes: Date[] }[] = await db.query(
      `SELECT array_agg(DISTINCT minute) AS minutes FROM metric_segment_changes WHERE funnel_id = $1`,
      [tenants[1].funnelId],
    );
    expect(stale.minutes.map(Number)).toContain(T0 + SPAN - 60_000);
    expect(stale.minutes.map(Number)).not.toContain(T0);
    const [sessions]: { n: number }[] = await db.query(
      `SELECT count(*)::int AS n FROM metric_segment_changes WHERE funnel_id = $1 AND session_id IS NOT NULL`,
      [tenants[1].funnelId],
    );
    expect(sessions.n).toBeGreaterThan(0);
    await agreeEverywhere();
  });

  it('answers exactly once the folder has caught up, from the rollups', async () => {
    await folder.drain(Date.now());
    for (const tenant of tenants) {
      const row = await counts(tenant.funnelId);
      expect(row.changes).toBe(0);
      // More rows than one JSON document of the fold's write holds (ROWS_PER_DOCUMENT, 250).
      expect(row.rollups).toBeGreaterThan(250);
      expect(+row.folded_to!).toBeGreaterThan(T0 + SPAN);
      // The fold counted the segments' sessions at every grain, late changes included.
      const totals = await segmentTotals(tenant.funnelId);
      for (const grain of GRAINS) {
        expect(totals[grain].counted.length).toBeGreaterThan(0);
        expect(totals[grain].stored).toEqual(totals[grain].counted);
      }
    }
    // Earlier session_starts moved sessions into the cpc segment after their events were folded.
    const [moved]: { n: number }[] = await db.query(
      `SELECT count(*)::int AS n FROM metric_sessions WHERE funnel_id = $1 AND utm_medium = 'cpc'`,
      [tenants[0].funnelId],
    );
    expect(moved.n).toBeGreaterThan(5);
    await agreeEverywhere();
  });

  it('folds chunks of at most the sessions it is given (a minute at least) into the same rows', async () => {
    const [tenant] = tenants;
    const rows = () =>
      db.query(
        `SELECT grain, bucket, segment, started, sessions, events FROM metric_segment_rollups
         WHERE funnel_id = $1 ORDER BY grain, bucket, segment`,
        [tenant.funnelId],
      );
    await folder.drain(Date.now());
    const whole = await rows();
    const perMinute: { minute: Date; n: number }[] = await db.query(
      `SELECT date_bin('1 minute', started_at, 'epoch') AS minute, count(*)::int AS n FROM metric_sessions
       WHERE funnel_id = $1 AND started_at IS NOT NULL GROUP BY 1 ORDER BY 1`,
      [tenant.funnelId],
    );
    expect(perMinute.length).toBeGreaterThanOrEqual(3);
    const sessionsIn = (from: number, to: number) =>
      perMinute.filter((m) => +m.minute >= from && +m.minute < to).reduce((n, m) => n + m.n, 0);
    // As many sessions as the first minute holds: each chunk ends before the next minute's first.
    const bound = perMinute[0].n;
    await db.query(
      `UPDATE metric_segment_folds SET sealed_to = NULL, folded_to = NULL WHERE funnel_id = $1`,
      [tenant.funnelId],
    );
    await db.query(`DELETE FROM metric_segment_rollups WHERE funnel_id = $1`, [tenant.funnelId]);
    const lastSeq = await folder.seal(tenant.funnelId, Math.floor(Date.now() / 60_000) * 60_000);
    const foldedTo = async () => +(await counts(tenant.funnelId)).folded_to!;
    const ends = [await foldedTo()];
    const size = { minutes: 60, boundary: 3600, sessions: bound, changes: 60 };
    while (await folder.foldChunk(tenant.funnelId, lastSeq!, size)) ends.push(await foldedTo());
    expect(ends[1]).toBe(+perMinute[1].minute);
    for (let i = 1; i < ends.length; i++) {
      const held = sessionsIn(ends[i - 1], ends[i]);
      expect(held <= bound || ends[i] - ends[i - 1] === 60_000).toBe(true);
    }
    expect(ends.length).toBeGreaterThan(perMinute.length);
    expect(await rows()).toEqual(whole);
    await agreeEverywhere();
  });

  it("rebuilds the five-minute rows from the minute rows as the fold writes them (the grain's migration)", async () => {
    const fiveMinuteRows = async () =>
      db.query(
        `SELECT funnel_id, bucket, segment, sessions, events FROM metric_segment_rollups
         WHERE grain = 300 AND funnel_id = ANY($1) ORDER BY funnel_id, bucket, segment`,
        [tenants.map((tenant) => tenant.funnelId)],
      );
    const folded = await fiveMinuteRows();
    expect(folded.length).toBeGreaterThan(tenants.length);
    await db.query(`DELETE FROM metric_segment_rollups WHERE grain = 300`);
    // Then the totals' migration, which came after it, fills their totals.
    await atTheirTurn([FIVE_MINUTE_ROWS, SEGMENT_TOTALS]);
    expect(await fiveMinuteRows()).toEqual(folded);
    await agreeEverywhere();
  });
  it("computes the folded rows' session totals from the sessions as the fold writes them (the totals' migration)", async () => {
    const funnels = tenants.map((tenant) => tenant.funnelId);
    const folded = await Promise.all(funnels.map(segmentTotals));
    // As the migration finds the rows: no totals yet (and a row of sessions alone missing).
    await db.query(
      `UPDATE metric_segment_rollups SET started = 0, conversions = 0, completions = 0, completion_ms = 0
       WHERE funnel_id = ANY($1)`,
      [funnels],
    );
    const [gone]: { n: number }[] = await db.query(
      `WITH d AS (DELETE FROM metric_segment_rollups
                  WHERE funnel_id = $1 AND grain = 60 AND events = '{}' AND bucket = (
                    SELECT min(bucket) FROM metric_segment_rollups WHERE funnel_id = $1 AND grain = 60 AND events = '{}')
                  RETURNING 1)
       SELECT count(*)::int AS n FROM d`,
      [funnels[1]],
    );
    expect(gone.n).toBeGreaterThan(0);
    await atTheirTurn([SEGMENT_TOTALS]);
    expect(await Promise.all(funnels.map(segmentTotals))).toEqual(folded);
    await agreeEverywhere();
  });

  it("refuses rows without session totals, as the previous release's fold writes them during a rollout", async () => {
    const [stored]: { funnel_id: string; grain: number; bucket: Date; segment: string }[] = await db.query(
      `SELECT funnel_id, grain, bucket, segment FROM metric_segment_rollups WHERE funnel_id = $1 LIMIT 1`,
      [tenants[0].funnelId],
    );
    // That fold's statement: its columns, new rows inserted, stored ones rewritten.
    const previousFold = (bucket: Date) =>
      db.query(
        `INSERT INTO metric_segment_rollups AS r (funnel_id, grain, bucket, segment, sessions, events)
         VALUES ($1, $2, $3, $4, '{}', '{}')
         ON CONFLICT (funnel_id, grain, bucket, segment) DO UPDATE SET sessions = EXCLUDED.sessions, events = EXCLUDED.events`,
        [stored.funnel_id, stored.grain, bucket, stored.segment],
      );
    await expect(previousFold(stored.bucket)).rejects.toThrow(/"started".*not-null/);
    await expect(previousFold(new Date(0))).rejects.toThrow(/"started".*not-null/);
  });
});
