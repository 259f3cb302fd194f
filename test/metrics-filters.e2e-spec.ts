import { DataSource } from 'typeorm';
import { EventsService, parseEventBatch } from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { seedMetricsFixture } from './support/metrics-fixture';
import { randomTraffic, SPAN, T0 } from './support/random-traffic';

// See test/support/metrics-fixture.ts: over these two UTC days S1 (mobile, facebook/cpc, original,
// converted, completed after 900 s), S2 (desktop, google, variant, converted), S3 (tablet, nothing
// else, completed after 1800 s) and S4 (mobile, facebook, original) started; S5 never did.
const TWO_DAYS = 'from=2026-01-31&to=2026-02-01';

describe('metric filters, breakdowns and comparisons', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let globex: TenantFixture;
  let random: TenantFixture;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '10000' });
    acme = await createTenant(t.app);
    globex = await createTenant(t.app);
    random = await createTenant(t.app);
    db = t.app.get(DataSource);
    await seedMetricsFixture(t, acme, globex);
    const raw = randomTraffic(29, 400);
    for (let i = 0; i < raw.length; i += 1000)
      await t.app
        .get(EventsService)
        .record(random.funnelId, parseEventBatch({ events: raw.slice(i, i + 1000) }));
  });
  afterAll(() => t.close());

  const get = (path: string, key = acme.key) => httpClient(t.baseUrl, key).get(path);
  const kpi = async (subtype: string, query: string, tenant = acme) => {
    const res = await get(`/v1/funnels/${tenant.funnelId}/metrics/kpis/${subtype}?${query}`, tenant.key);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const chart = async (subtype: string, query: string) => {
    const res = await get(`/v1/funnels/${acme.funnelId}/metrics/charts/${subtype}?${query}`);
    expect(res.status).toBe(200);
    return res.body.data;
  };

  describe('filters', () => {
    it('narrows the session KPIs to the sessions that match', async () => {
      const q = `${TWO_DAYS}&device=mobile`;
      expect(await kpi('kpi_total_sessions', q)).toEqual({ type: 'kpiTotalSessions', value: 2 });
      expect(await kpi('kpi_conversion_rate', q)).toEqual({ type: 'kpiConversionRate', value: 50, count: 2 });
      expect(await kpi('kpi_completion_rate', q)).toEqual({ type: 'kpiCompletionRate', value: 50, count: 2 });
      expect(await kpi('kpi_time_to_completion', q)).toEqual({
        type: 'kpiTimeToCompletion',
        value: 900,
        count: 1,
      });
      // S1's 4000 + 6000 and S4's 3000 + 5000.
      expect(await kpi('kpi_average_time_on_page', q)).toEqual({
        type: 'kpiAverageTimeOnPage',
        value: 4.5,
        count: 4,
      });
    });

    it('takes a repeated parameter as "any of" and combines parameters with "and"', async () => {
      expect((await kpi('kpi_total_sessions', `${TWO_DAYS}&device=mobile&device=tablet`)).value).toBe(3);
      expect((await kpi('kpi_total_sessions', `${TWO_DAYS}&utmMedium=cpc`)).value).toBe(1);
      expect(
        (await kpi('kpi_total_sessions', `${TWO_DAYS}&utmSource=facebook&abVariant=original`)).value,
      ).toBe(2);
      expect(
        (await kpi('kpi_total_sessions', `${TWO_DAYS}&utmSource=facebook&abVariant=variant`)).value,
      ).toBe(0);
    });

    it('matches nothing with an unknown value', async () => {
      expect(await kpi('kpi_conversion_rate', `${TWO_DAYS}&device=fridge`)).toEqual({
        type: 'kpiConversionRate',
        value: 0,
        count: 0,
      });
      expect(await chart('chart_button_clicks', `${TWO_DAYS}&utmCampaign=nope`)).toEqual([]);
    });

    it('narrows session charts, event-time charts and insights', async () => {
      const q = `${TWO_DAYS}&device=mobile`;
      expect(await chart('chart_page_to_page_conversion_rate', q)).toEqual([
        { key: 'start', name: 'Start', value: 2, relativeValue: 1 },
        { key: 'details', name: 'Details', value: 2, relativeValue: 1 },
        { key: 'done', name: 'Done', value: 1, relativeValue: 0.5 },
      ]);
      expect(await chart('chart_visitor_devices', `${TWO_DAYS}&utmSource=facebook&utmSource=google`)).toEqual(
        [
          { key: 'mobile', value: 2, relativeValue: 0.6667 },
          { key: 'desktop', value: 1, relativeValue: 0.3333 },
          { key: 'tablet', value: 0, relativeValue: 0 },
          { key: 'other', value: 0, relativeValue: 0 },
        ],
      );
      expect(await chart('chart_top_utm_sources', `${TWO_DAYS}&abVariant=variant`)).toEqual([
        { key: 'google', value: 1, relativeValue: 1 },
      ]);
      // S1's cta-next "Next", S4's unlabelled cta-next and cta-back "Back"; not S5's.
      expect(await chart('chart_button_clicks', q)).toEqual([
        { key: 'cta-next', name: 'Next', value: 2 },
        { key: 'cta-back', name: 'Back', value: 1 },
      ]);
      expect(await chart('chart_time_on_page', q)).toEqual([
        { key: 'start', name: 'Start', value: 3.5 },
        { key: 'details', name: 'Details', value: 5.5 },
        { key: 'done', name: 'Done', value: 0 },
      ]);
      const activity = await chart('chart_activity_by_daytime', q);
      expect(activity).toHaveLength(168);
      // S1's three page views on Saturday 21:00, S4's two on Sunday 05:00 (UTC).
      expect(activity.filter((p: { value: number }) => p.value > 0)).toEqual([
        { key: '6-21', name: 'Saturday 21:00', value: 3 },
        { key: '7-05', name: 'Sunday 05:00', value: 2 },
      ]);
      const insight = await get(
        `/v1/funnels/${acme.funnelId}/metrics/insights/question_1?${TWO_DAYS}&device=desktop`,
      );
      expect(insight.status).toBe(200);
      expect(insight.body.data).toEqual({
        title: 'What is your goal?',
        answers: { Sales: 1 },
        groupedAnswers: { Sales: 1 },
      });
    });

    it('keeps the abTest filter beside the others', async () => {
      expect(
        await chart('chart_page_to_page_conversion_rate', `${TWO_DAYS}&abTest=original&device=desktop`),
      ).toEqual([
        { key: 'start', name: 'Start', value: 0, relativeValue: 1 },
        { key: 'details', name: 'Details', value: 0, relativeValue: 0 },
        { key: 'done', name: 'Done', value: 0, relativeValue: 0 },
      ]);
    });

    it.each([
      [
        'kpis/kpi_new_contacts',
        'device',
        'device is not supported by kpi_new_contacts: it does not count sessions',
      ],
      [
        'kpis/kpi_messages_sent',
        'utmSource',
        'utmSource is not supported by kpi_messages_sent: it does not count sessions',
      ],
      [
        'kpis/kpi_messages_open_rate',
        'abVariant',
        'abVariant is not supported by kpi_messages_open_rate: it does not count sessions',
      ],
      [
        'charts/chart_contacts_over_time',
        'utmCampaign',
        'utmCampaign is not supported by chart_contacts_over_time: it does not count sessions',
      ],
    ])('refuses a filter on %s with a 400 naming it (%s)', async (path, filter, message) => {
      const res = await get(`/v1/funnels/${acme.funnelId}/metrics/${path}?${TWO_DAYS}&${filter}=x`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(message);
    });

    it('equals the figures counted by hand from the raw events', async () => {
      // Each session's earliest session_start (ties by event id) gives its attributes.
      const sessions: { device: string; source: string | null; converted: boolean; completed: boolean }[] =
        await db.query(
          `SELECT s.payload ->> 'device' AS device, s.payload -> 'utm' ->> 'source' AS source,
                  EXISTS (SELECT 1 FROM metric_events c WHERE c.funnel_id = $1 AND c.type = 'conversion'
                          AND c.session_id = s.session_id) AS converted,
                  EXISTS (SELECT 1 FROM metric_events c WHERE c.funnel_id = $1 AND c.type = 'completion'
                          AND c.session_id = s.session_id) AS completed
           FROM (SELECT DISTINCT ON (e.session_id) e.session_id, e.payload::jsonb AS payload, e.occurred_at
                 FROM metric_events e WHERE e.funnel_id = $1 AND e.type = 'session_start'
                 ORDER BY e.session_id, e.occurred_at, e.event_id) AS s
           WHERE s.occurred_at >= $2 AND s.occurred_at < $3`,
          [random.funnelId, new Date(T0 + 12_345), new Date(T0 + SPAN - 4_321)],
        );
      const window = `from=${new Date(T0 + 12_345).toISOString()}&to=${new Date(T0 + SPAN - 4_322).toISOString()}`;
      for (const device of ['mobile', 'tablet']) {
        const mine = sessions.filter(
          (s) => s.device === device && ['google', 'facebook'].includes(s.source ?? ''),
        );
        const converted = mine.filter((s) => s.converted).length;
        expect(mine.length).toBeGreaterThan(5);
        expect(
          await kpi(
            'kpi_conversion_rate',
            `${window}&device=${device}&utmSource=google&utmSource=facebook`,
            random,
          ),
        ).toEqual({
          type: 'kpiConversionRate',
          value: Math.round((converted / mine.length) * 10_000) / 100,
          count: mine.length,
        });
      }
    });
  });

  describe('breakdowns', () => {
    it('answers a rate per device, counts adding up to the KPI count', async () => {
      expect(await kpi('kpi_conversion_rate', `${TWO_DAYS}&breakdown=device`)).toEqual({
        type: 'kpiConversionRate',
        value: 50,
        count: 4,
        breakdown: [
          { key: 'mobile', value: 50, count: 2 },
          { key: 'desktop', value: 100, count: 1 },
          { key: 'tablet', value: 0, count: 1 },
        ],
      });
    });

    it('lists sessions without the attribute as (none)', async () => {
      expect((await kpi('kpi_total_sessions', `${TWO_DAYS}&breakdown=utmSource`)).breakdown).toEqual([
        { key: 'facebook', value: 2, count: 2 },
        { key: 'google', value: 1, count: 1 },
        { key: '(none)', value: 1, count: 1 },
      ]);
    });

    it('breaks down page views by their session, unstarted sessions as (none)', async () => {
      expect(await kpi('kpi_average_time_on_page', `${TWO_DAYS}&breakdown=device`)).toEqual({
        type: 'kpiAverageTimeOnPage',
        value: 4,
        count: 7,
        breakdown: [
          { key: 'mobile', value: 4.5, count: 4 },
          { key: 'desktop', value: 2, count: 1 },
          { key: 'tablet', value: 1, count: 1 },
          { key: '(none)', value: 7, count: 1 },
        ],
      });
    });

    it('applies the filters to a breakdown', async () => {
      expect(
        (await kpi('kpi_completion_rate', `${TWO_DAYS}&breakdown=abVariant&device=mobile`)).breakdown,
      ).toEqual([{ key: 'original', value: 50, count: 2 }]);
    });

    it('sums the keys past the twentieth as (other), every count adding up', async () => {
      const data = await kpi('kpi_total_sessions', 'from=2026-03-01&to=2026-03-31&breakdown=utmSource');
      // S6 (newsletter) and M01..M11: twelve sources, all listed.
      expect(data.breakdown).toHaveLength(12);
      expect(data.breakdown.reduce((s: number, e: { count: number }) => s + e.count, 0)).toBe(data.value);
      const all = await kpi('kpi_conversion_rate', `from=2026-05-10&to=2026-05-11&breakdown=device`, random);
      expect(all.breakdown.reduce((s: number, e: { count: number }) => s + e.count, 0)).toBe(all.count);
    });

    it('lists twenty keys, then the rest summed as (other)', async () => {
      const events = Array.from({ length: 25 }, (_, i) => ({
        type: 'session_start',
        sessionId: `many-${i}`,
        occurredAt: `2026-04-01T10:${String(i).padStart(2, '0')}:00Z`,
        visitorId: `many-${i}`,
        device: 'desktop',
        // Source s-00 has three sessions, s-01 two, the others one each.
        utm: { source: `s-${String(i < 3 ? 0 : i < 5 ? 1 : i).padStart(2, '0')}` },
      }));
      const res = await httpClient(t.baseUrl, globex.key).post(`/v1/funnels/${globex.funnelId}/events`, {
        events,
      });
      expect(res.status).toBe(202);
      const data = await kpi(
        'kpi_total_sessions',
        'from=2026-04-01&to=2026-04-01&breakdown=utmSource',
        globex,
      );
      expect(data.value).toBe(25);
      expect(data.breakdown.slice(0, 3)).toEqual([
        { key: 's-00', value: 3, count: 3 },
        { key: 's-01', value: 2, count: 2 },
        { key: 's-05', value: 1, count: 1 },
      ]);
      expect(data.breakdown).toHaveLength(21);
      // 20 keys hold 3 + 2 + 18 sessions (s-05 to s-22); s-23 and s-24 are the rest.
      expect(data.breakdown[20]).toEqual({ key: '(other)', value: 2, count: 2 });
    });

    it.each([
      ['kpis/kpi_new_contacts', 'breakdown is not supported by kpi_new_contacts'],
      ['charts/chart_visitor_devices', 'breakdown is not supported by chart_visitor_devices'],
      ['insights/question_1', 'breakdown is not supported by insights'],
    ])('refuses a breakdown on %s', async (path, message) => {
      const res = await get(`/v1/funnels/${acme.funnelId}/metrics/${path}?${TWO_DAYS}&breakdown=device`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(message);
    });

    it('refuses an unknown breakdown', async () => {
      const res = await get(
        `/v1/funnels/${acme.funnelId}/metrics/kpis/kpi_total_sessions?${TWO_DAYS}&breakdown=os`,
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(
        'breakdown must be one of device, utmSource, abVariant, utmMedium, utmCampaign',
      );
    });
  });

  describe('comparison with the previous period', () => {
    it('adds the previous day to a KPI', async () => {
      // Sunday: S3, S4; Saturday: S1, S2 (S1 converted, S2 converted).
      expect(
        await kpi('kpi_conversion_rate', 'from=2026-02-01&to=2026-02-01&compare=previous_period'),
      ).toEqual({ type: 'kpiConversionRate', value: 0, count: 2, previousValue: 100 });
    });

    it('adds previous values by key to chart points', async () => {
      expect(
        await chart('chart_visitor_devices', 'from=2026-02-01&to=2026-02-01&compare=previous_period'),
      ).toEqual([
        { key: 'mobile', value: 1, relativeValue: 0.5, previousValue: 1, previousRelativeValue: 0.5 },
        { key: 'desktop', value: 0, relativeValue: 0, previousValue: 1, previousRelativeValue: 0.5 },
        { key: 'tablet', value: 1, relativeValue: 0.5, previousValue: 0, previousRelativeValue: 0 },
        { key: 'other', value: 0, relativeValue: 0, previousValue: 0, previousRelativeValue: 0 },
      ]);
      const clicks = await chart(
        'chart_button_clicks',
        'from=2026-02-01&to=2026-02-01&compare=previous_period',
      );
      expect(clicks).toEqual([
        { key: 'cta-next', name: 'Next', value: 2, previousValue: 2 },
        { key: 'cta-back', name: 'Back', value: 1, previousValue: 0 },
      ]);
    });

    it('takes a daylight-saving day before as a whole local day', async () => {
      // Europe/Berlin: 2026-03-29 has 23 hours (2026-03-28T23:00Z to 2026-03-29T22:00Z).
      const events = [
        ['dst-in-day', '2026-03-29T23:30:00Z'], // 2026-03-30 01:30 local: the day asked
        ['dst-prev', '2026-03-28T23:30:00Z'], // 2026-03-29 00:30 local: the day before
        ['dst-before', '2026-03-28T22:30:00Z'], // 2026-03-28 23:30 local: neither (in a 24-hour one)
      ].map(([sessionId, occurredAt]) => ({
        type: 'session_start',
        sessionId,
        occurredAt,
        visitorId: sessionId,
        device: 'mobile',
      }));
      const res = await httpClient(t.baseUrl, globex.key).post(`/v1/funnels/${globex.funnelId}/events`, {
        events,
      });
      expect(res.status).toBe(202);
      const q = 'from=2026-03-30&to=2026-03-30&timezone=Europe/Berlin&compare=previous_period';
      expect(await kpi('kpi_total_sessions', q, globex)).toEqual({
        type: 'kpiTotalSessions',
        value: 1,
        previousValue: 1,
      });
      expect(await kpi('kpi_total_sessions', `${q}&device=mobile`, globex)).toEqual({
        type: 'kpiTotalSessions',
        value: 1,
        previousValue: 1,
      });
    });

    it('pairs daily points by position', async () => {
      const data = await chart(
        'chart_contacts_over_time',
        'from=2026-02-01&to=2026-02-02&compare=previous_period',
      );
      expect(data.map((p: { key: string }) => p.key)).toEqual(['2026-02-01', '2026-02-02']);
      expect(data.every((p: { previousValue: unknown }) => typeof p.previousValue === 'number')).toBe(true);
    });

    it('refuses an unknown comparison and a comparison of insights', async () => {
      const bad = await get(
        `/v1/funnels/${acme.funnelId}/metrics/kpis/kpi_total_sessions?${TWO_DAYS}&compare=last_year`,
      );
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('compare must be one of previous_period');
      const insight = await get(
        `/v1/funnels/${acme.funnelId}/metrics/insights/question_1?${TWO_DAYS}&compare=previous_period`,
      );
      expect(insight.status).toBe(400);
      expect(insight.body.error).toBe('compare is not supported by insights');
    });

    it('answers without the new members when none is asked', async () => {
      expect(await kpi('kpi_total_sessions', TWO_DAYS)).toEqual({ type: 'kpiTotalSessions', value: 4 });
    });
  });
});
