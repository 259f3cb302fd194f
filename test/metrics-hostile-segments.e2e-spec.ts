import { DataSource } from 'typeorm';
import { SegmentFolder } from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

// Sessions whose utm values are as long as validation allows and made of the characters that
// weigh most in a segment key: emoji (4 bytes in UTF-8), quotes and backslashes, control
// characters. They are ingested, counted and found by exact filter and breakdown like any other.
const LIMIT = 200;
const fill = (unit: string) => unit.repeat(LIMIT / unit.length);
const EMOJI = fill('😀');
const QUOTES = fill('"\\');
const CONTROL = fill('\u0001');
const CJK = fill('語');
const DAY = 'from=2026-01-31&to=2026-01-31';

const start = (sessionId: string, at: string, utm: Record<string, string>, abVariant = 'original') => ({
  type: 'session_start',
  sessionId,
  occurredAt: at,
  visitorId: `v-${sessionId}`,
  device: 'mobile',
  utm,
  abVariant,
});

describe('segments of sessions with the largest utm values', () => {
  let t: TestApp;
  let tenant: TenantFixture;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '10000' });
    tenant = await createTenant(t.app);
  });
  afterAll(() => t.close());

  const api = () => httpClient(t.baseUrl, tenant.key);
  const send = (events: unknown[]) => api().post(`/v1/funnels/${tenant.funnelId}/events`, { events });
  const kpi = async (subtype: string, query: string) => {
    const res = await api().get(`/v1/funnels/${tenant.funnelId}/metrics/kpis/${subtype}?${query}`);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const q = (name: string, value: string) => `${name}=${encodeURIComponent(value)}`;

  it('ingests them, counts them and keeps every other figure', async () => {
    const ordinary = [
      start('O1', '2026-01-31T10:00:00Z', { source: 'facebook', medium: 'cpc', campaign: 'spring' }),
      { type: 'conversion', sessionId: 'O1', occurredAt: '2026-01-31T10:05:00Z' },
    ];
    expect((await send(ordinary)).status).toBe(202);
    const before = await kpi('kpi_conversion_rate', DAY);
    expect(before).toEqual({ type: 'kpiConversionRate', value: 100, count: 1 });

    const hostile = [
      start('H1', '2026-01-31T11:00:00Z', { source: CONTROL, medium: CONTROL, campaign: CONTROL }),
      start('H2', '2026-01-31T11:01:00Z', { source: EMOJI, medium: EMOJI, campaign: EMOJI }, 'variant'),
      start('H3', '2026-01-31T11:02:00Z', { source: QUOTES, medium: QUOTES, campaign: QUOTES }),
      start('H4', '2026-01-31T11:03:00Z', { source: CJK, medium: CONTROL, campaign: EMOJI }),
      { type: 'conversion', sessionId: 'H2', occurredAt: '2026-01-31T11:05:00Z' },
    ];
    // One at a time, and then all again as repeats: each is accepted, none counts twice.
    for (const event of hostile) {
      const res = await send([event]);
      expect(res.status).toBe(202);
    }
    expect((await send(hostile)).status).toBe(202);

    // The unfiltered KPIs: the ordinary session and the four others, nothing lost.
    expect(await kpi('kpi_total_sessions', DAY)).toEqual({ type: 'kpiTotalSessions', value: 5 });
    expect(await kpi('kpi_conversion_rate', DAY)).toEqual({ type: 'kpiConversionRate', value: 40, count: 5 });

    // Exact filters on the ordinary and on the hostile values.
    expect((await kpi('kpi_total_sessions', `${DAY}&${q('utmSource', 'facebook')}`)).value).toBe(1);
    expect((await kpi('kpi_total_sessions', `${DAY}&${q('utmSource', CONTROL)}`)).value).toBe(1);
    expect((await kpi('kpi_total_sessions', `${DAY}&${q('utmMedium', CONTROL)}`)).value).toBe(2);
    expect((await kpi('kpi_total_sessions', `${DAY}&${q('utmCampaign', EMOJI)}`)).value).toBe(2);
    expect(await kpi('kpi_conversion_rate', `${DAY}&${q('utmCampaign', EMOJI)}&abVariant=variant`)).toEqual({
      type: 'kpiConversionRate',
      value: 100,
      count: 1,
    });
    expect((await kpi('kpi_total_sessions', `${DAY}&${q('utmMedium', QUOTES)}`)).value).toBe(1);
    // A prefix of a long value is another value.
    expect((await kpi('kpi_total_sessions', `${DAY}&${q('utmSource', EMOJI.slice(0, 198))}`)).value).toBe(0);

    // Breakdowns list the values as they were sent, every count adding up.
    const bySource = await kpi('kpi_total_sessions', `${DAY}&device=mobile&breakdown=utmSource`);
    expect(bySource.value).toBe(5);
    expect(new Map(bySource.breakdown.map((e: { key: string; count: number }) => [e.key, e.count]))).toEqual(
      new Map([
        ['facebook', 1],
        [CONTROL, 1],
        [EMOJI, 1],
        [QUOTES, 1],
        [CJK, 1],
      ]),
    );
    const byCampaign = await kpi(
      'kpi_conversion_rate',
      `${DAY}&${q('utmMedium', CONTROL)}&breakdown=utmCampaign`,
    );
    expect(byCampaign.count).toBe(2);
    expect(byCampaign.breakdown).toEqual(
      expect.arrayContaining([
        { key: CONTROL, value: 0, count: 1 },
        { key: EMOJI, value: 0, count: 1 },
      ]),
    );
    expect(byCampaign.breakdown).toHaveLength(2);
  });

  it('reads the same keys from the raw sessions at the edges of a window', async () => {
    // H1 (11:00:00) lies in a whole minute, read from the rollups; H3 (11:02:00) in the raw edge
    // after it; H4 (11:03:00) in a window shorter than a minute, read from the raw sessions only.
    const edges = 'from=2026-01-31T10:59:50Z&to=2026-01-31T11:02:10Z';
    const bySource = await kpi('kpi_total_sessions', `${edges}&device=mobile&breakdown=utmSource`);
    expect(new Map(bySource.breakdown.map((e: { key: string; count: number }) => [e.key, e.count]))).toEqual(
      new Map([
        [CONTROL, 1],
        [EMOJI, 1],
        [QUOTES, 1],
      ]),
    );
    expect((await kpi('kpi_total_sessions', `${edges}&${q('utmCampaign', QUOTES)}`)).value).toBe(1);
    const inside = 'from=2026-01-31T11:02:50Z&to=2026-01-31T11:03:10Z';
    expect((await kpi('kpi_total_sessions', `${inside}&${q('utmMedium', CONTROL)}`)).value).toBe(1);
    expect(
      (await kpi('kpi_total_sessions', `${inside}&device=mobile&breakdown=utmCampaign`)).breakdown,
    ).toEqual([{ key: EMOJI, value: 1, count: 1 }]);
  });

  it('folds their page views and clicks into segment rollups and reads them back exactly', async () => {
    const sessions = ['H1', 'H2', 'H3', 'H4'];
    const events = sessions.flatMap((sessionId, i) => [
      {
        type: 'page_view',
        sessionId,
        occurredAt: `2026-01-31T11:0${i}:30Z`,
        pageSlug: 'start',
        timeOnPageMs: 1000 * (i + 1),
      },
      {
        type: 'button_click',
        sessionId,
        occurredAt: `2026-01-31T11:0${i}:31Z`,
        pageSlug: 'start',
        buttonId: 'cta',
        buttonLabel: i === 1 ? EMOJI : QUOTES,
      },
    ]);
    expect((await send(events)).status).toBe(202);
    await t.app.get(SegmentFolder).drain();
    const [folded]: { n: number }[] = await t.app
      .get(DataSource)
      .query(
        `SELECT count(*)::int AS n FROM metric_segment_rollups WHERE funnel_id = $1 AND utm_source = $2`,
        [tenant.funnelId, EMOJI],
      );
    expect(folded.n).toBeGreaterThan(0);

    const clicks = await api().get(
      `/v1/funnels/${tenant.funnelId}/metrics/charts/chart_button_clicks?${DAY}&${q('utmSource', EMOJI)}`,
    );
    expect(clicks.body.data).toEqual([{ key: 'cta', name: EMOJI, value: 1 }]);
    expect(await kpi('kpi_average_time_on_page', `${DAY}&${q('utmMedium', CONTROL)}`)).toEqual({
      type: 'kpiAverageTimeOnPage',
      value: 2.5,
      count: 2,
    });
    const byCampaign = await kpi('kpi_average_time_on_page', `${DAY}&breakdown=utmCampaign`);
    expect(
      new Map(
        byCampaign.breakdown.map((e: { key: string; value: number; count: number }) => [e.key, e.value]),
      ),
    ).toEqual(
      new Map([
        [EMOJI, 3],
        [CONTROL, 1],
        [QUOTES, 3],
      ]),
    );
  });
});
