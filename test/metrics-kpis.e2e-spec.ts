import { MetricsService } from '@app/metrics';
import { ValidationError } from '@app/core';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { seedMetricsFixture } from './support/metrics-fixture';

// See test/support/metrics-fixture.ts for the events and how these windows cut them.
const UTC_TWO_DAYS = 'from=2026-01-31&to=2026-02-01';
const SUNDAY_AT_UTC_PLUS_2 = 'from=2026-02-01&to=2026-02-01&offset=-120';
const EMPTY = 'from=2025-06-01T00:00:00Z&to=2025-06-02T00:00:00Z';

describe('GET /v1/funnels/{funnelId}/metrics/kpis/{subtype} and insights/{insightId}', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let globex: TenantFixture;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '10000' });
    acme = await createTenant(t.app);
    globex = await createTenant(t.app);
    await seedMetricsFixture(t, acme, globex);
  });
  afterAll(() => t.close());

  const get = (path: string, key = acme.key) => httpClient(t.baseUrl, key).get(path);
  const kpis = async (query: string) => {
    const result: Record<string, unknown> = {};
    for (const subtype of [
      'kpi_total_sessions',
      'kpi_new_contacts',
      'kpi_conversion_rate',
      'kpi_completion_rate',
      'kpi_average_time_on_page',
      'kpi_time_to_completion',
      'kpi_messages_sent',
      'kpi_messages_delivery_rate',
      'kpi_messages_open_rate',
    ]) {
      const res = await get(`/v1/funnels/${acme.funnelId}/metrics/kpis/${subtype}?${query}`);
      expect(res.status).toBe(200);
      result[subtype] = res.body.data;
    }
    return result;
  };

  it('computes every KPI over two UTC days', async () => {
    expect(await kpis(UTC_TWO_DAYS)).toEqual({
      kpi_total_sessions: { type: 'kpiTotalSessions', value: 4 },
      kpi_new_contacts: { type: 'kpiNewContacts', value: 4 },
      // S1 and S2 converted; S1 and S3 completed (900 s and 1800 s after their start).
      kpi_conversion_rate: { type: 'kpiConversionRate', value: 50, count: 4 },
      kpi_completion_rate: { type: 'kpiCompletionRate', value: 50, count: 4 },
      // 4000+2000+1000+3000+7000 (start) + 6000+5000 (details) over 7 reported views.
      kpi_average_time_on_page: { type: 'kpiAverageTimeOnPage', value: 4, count: 7 },
      kpi_time_to_completion: { type: 'kpiTimeToCompletion', value: 1350, count: 2 },
      // M1, M2, M3 sent; all delivered (M3 only reported opened); M1 and M3 opened.
      kpi_messages_sent: { type: 'kpiMessagesSent', value: 3 },
      kpi_messages_delivery_rate: { type: 'kpiMessagesDeliveryRate', value: 100, count: 3 },
      kpi_messages_open_rate: { type: 'kpiMessagesOpenRate', value: 66.67, count: 3 },
    });
  });

  it('computes every KPI over a local day at UTC+2', async () => {
    expect(await kpis(SUNDAY_AT_UTC_PLUS_2)).toEqual({
      kpi_total_sessions: { type: 'kpiTotalSessions', value: 3 },
      kpi_new_contacts: { type: 'kpiNewContacts', value: 2 },
      kpi_conversion_rate: { type: 'kpiConversionRate', value: 33.33, count: 3 },
      kpi_completion_rate: { type: 'kpiCompletionRate', value: 33.33, count: 3 },
      kpi_average_time_on_page: { type: 'kpiAverageTimeOnPage', value: 3.6, count: 5 },
      kpi_time_to_completion: { type: 'kpiTimeToCompletion', value: 1800, count: 1 },
      kpi_messages_sent: { type: 'kpiMessagesSent', value: 1 },
      kpi_messages_delivery_rate: { type: 'kpiMessagesDeliveryRate', value: 100, count: 1 },
      kpi_messages_open_rate: { type: 'kpiMessagesOpenRate', value: 100, count: 1 },
    });
  });

  it('answers zeros for an empty period', async () => {
    expect(await kpis(EMPTY)).toEqual({
      kpi_total_sessions: { type: 'kpiTotalSessions', value: 0 },
      kpi_new_contacts: { type: 'kpiNewContacts', value: 0 },
      kpi_conversion_rate: { type: 'kpiConversionRate', value: 0, count: 0 },
      kpi_completion_rate: { type: 'kpiCompletionRate', value: 0, count: 0 },
      kpi_average_time_on_page: { type: 'kpiAverageTimeOnPage', value: 0, count: 0 },
      kpi_time_to_completion: { type: 'kpiTimeToCompletion', value: 0, count: 0 },
      kpi_messages_sent: { type: 'kpiMessagesSent', value: 0 },
      kpi_messages_delivery_rate: { type: 'kpiMessagesDeliveryRate', value: 0, count: 0 },
      kpi_messages_open_rate: { type: 'kpiMessagesOpenRate', value: 0, count: 0 },
    });
  });

  it('counts messages sent within a fraction of a minute exactly', async () => {
    // Only M3 (sent 2026-02-01T10:00:00Z, opened without a reported delivery).
    const q = 'from=2026-02-01T09:59:59.500Z&to=2026-02-01T10:00:00.200Z';
    const rate = async (subtype: string) =>
      (await get(`/v1/funnels/${acme.funnelId}/metrics/kpis/${subtype}?${q}`)).body.data;
    expect(await rate('kpi_messages_sent')).toEqual({ type: 'kpiMessagesSent', value: 1 });
    expect(await rate('kpi_messages_delivery_rate')).toEqual({
      type: 'kpiMessagesDeliveryRate',
      value: 100,
      count: 1,
    });
    expect(await rate('kpi_messages_open_rate')).toEqual({
      type: 'kpiMessagesOpenRate',
      value: 100,
      count: 1,
    });
  });

  it('counts sessions over a quarter, including March', async () => {
    const res = await get(
      `/v1/funnels/${acme.funnelId}/metrics/kpis/kpi_total_sessions?from=2026-01-01&to=2026-03-31`,
    );
    expect(res.body).toEqual({ data: { type: 'kpiTotalSessions', value: 16 } });
  });

  it("answers each session's latest answer", async () => {
    const res = await get(`/v1/funnels/${acme.funnelId}/metrics/insights/question_1?${UTC_TWO_DAYS}`);
    expect(res.status).toBe(200);
    // S1 [Leads, Sales]; S2 [Sales] (its earlier [Leads, Sales] is replaced); S3 [Sales].
    expect(res.body).toEqual({
      data: {
        title: 'What is your goal?',
        answers: { Sales: 3, Leads: 1 },
        groupedAnswers: { Sales: 2, 'Leads; Sales': 1 },
      },
    });
    const sunday = await get(
      `/v1/funnels/${acme.funnelId}/metrics/insights/question_1?${SUNDAY_AT_UTC_PLUS_2}`,
    );
    expect(sunday.body.data).toEqual({
      title: 'What is your goal?',
      answers: { Sales: 2 },
      groupedAnswers: { Sales: 2 },
    });
    const empty = await get(`/v1/funnels/${acme.funnelId}/metrics/insights/question_1?${EMPTY}`);
    expect(empty.body.data).toEqual({ title: 'What is your goal?', answers: {}, groupedAnswers: {} });
  });

  it.each([
    ['kpis/kpi_unknown', UTC_TWO_DAYS, 'Unknown KPI subtype: kpi_unknown'],
    [
      'kpis/kpi_total_sessions',
      `${UTC_TWO_DAYS}&abTest=all`,
      'abTest is only supported by chart_page_to_page_conversion_rate',
    ],
    ['kpis/kpi_total_sessions', 'from=2026-02-01&to=2026-02-01T00:00:00Z', 'from must be before to'],
    [
      'kpis/kpi_total_sessions',
      `${UTC_TWO_DAYS}&offset=%2B841`,
      'offset must be a whole number of minutes from -840 to 840 (JavaScript getTimezoneOffset: -120 is UTC+2)',
    ],
    ['insights/question_1', 'to=2026-02-01', 'from is required'],
    ['insights/goal', UTC_TWO_DAYS, 'insightId must be a question id: question_<n>'],
    [
      'insights/question_1',
      `${UTC_TWO_DAYS}&abTest=variant`,
      'abTest is only supported by chart_page_to_page_conversion_rate',
    ],
  ])('answers 400 for %s?%s', async (path, query, error) => {
    const res = await get(`/v1/funnels/${acme.funnelId}/metrics/${path}?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error, status: 400 });
  });

  it('answers 404 for a question never answered', async () => {
    const res = await get(`/v1/funnels/${acme.funnelId}/metrics/insights/question_9?${UTC_TWO_DAYS}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Question question_9 not found', status: 404 });
  });

  it("answers 404 for another company's funnel and 403 without metrics:read", async () => {
    expect(
      (await get(`/v1/funnels/${globex.funnelId}/metrics/kpis/kpi_total_sessions?${UTC_TWO_DAYS}`)).status,
    ).toBe(404);
    expect(
      (await get(`/v1/funnels/${globex.funnelId}/metrics/insights/question_1?${UTC_TWO_DAYS}`)).status,
    ).toBe(404);
    const noRead = await acme.keyFor('crm:read', 'crm:write', 'events:write');
    const res = await get(
      `/v1/funnels/${acme.funnelId}/metrics/kpis/kpi_total_sessions?${UTC_TWO_DAYS}`,
      noRead,
    );
    expect(res.status).toBe(403);
    expect(
      (await get(`/v1/funnels/${acme.funnelId}/metrics/insights/question_1?${UTC_TWO_DAYS}`, noRead)).status,
    ).toBe(403);
  });

  it('gives MCP callers the same answers and errors through MetricsService', async () => {
    const metrics = t.app.get(MetricsService);
    expect(
      await metrics.kpi(acme.companyId, acme.funnelId, 'kpi_conversion_rate', {
        from: '2026-01-31',
        to: '2026-02-01',
      }),
    ).toEqual({
      type: 'kpiConversionRate',
      value: 50,
      count: 4,
    });
    await expect(
      metrics.chart(acme.companyId, acme.funnelId, 'chart_visitor_devices', {
        from: '2026-02-01',
        to: '2026-01-01',
      }),
    ).rejects.toThrow(ValidationError);
    await expect(
      metrics.insight(globex.companyId, acme.funnelId, 'question_1', {
        from: '2026-01-31',
        to: '2026-02-01',
      }),
    ).rejects.toThrow('Funnel not found');
  });
});
