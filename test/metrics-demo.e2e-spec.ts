import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MetricsService } from '@app/metrics';
import { AdminModule } from '../apps/admin/src/admin.module';
import { DemoSeedService } from '../apps/admin/src/demo/demo-seed.service';
import { createTestDatabase } from './support/database';

// Seeding ingests 30 days of traffic through the real event pipeline.
jest.setTimeout(60_000);

describe('demo seed traffic', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let app: INestApplicationContext;

  beforeAll(async () => {
    db = await createTestDatabase();
    app = await NestFactory.createApplicationContext(AdminModule.forRoot({ databaseUrl: db.url }), {
      logger: false,
    });
  });
  afterAll(async () => {
    await app.close();
    await db.drop();
  });

  it('gives every chart, KPI and insight of the demo funnel sensible figures', async () => {
    const now = new Date('2026-11-20T12:00:00Z');
    const seed = await app.get(DemoSeedService).seed(now);
    const metrics = app.get(MetricsService);
    const [funnelId] = seed.funnelIds;
    const q = { from: '2026-10-21T12:00:00Z', to: '2026-11-20T12:00:00Z', offset: '-60' };

    expect(await metrics.kpi(seed.companyId, funnelId, 'kpi_total_sessions', q)).toEqual({
      type: 'kpiTotalSessions',
      value: 1500,
    });
    expect(await metrics.kpi(seed.companyId, funnelId, 'kpi_new_contacts', q)).toEqual({
      type: 'kpiNewContacts',
      value: 180,
    });
    const pages = await metrics.chart(seed.companyId, funnelId, 'chart_page_to_page_conversion_rate', q);
    expect(pages.map((p) => p.key)).toEqual(['start', 'goals', 'budget', 'contact', 'thank-you']);
    expect(pages[0].value).toBe(1500);
    // A funnel: every page keeps a share of the previous one.
    for (const p of pages.slice(1)) expect(p.relativeValue).toBeGreaterThan(0.5);
    for (const p of pages.slice(1)) expect(p.relativeValue).toBeLessThan(0.9);
    const conversion = await metrics.kpi(seed.companyId, funnelId, 'kpi_conversion_rate', q);
    const completion = await metrics.kpi(seed.companyId, funnelId, 'kpi_completion_rate', q);
    expect(conversion.value).toBeGreaterThan(completion.value);
    expect(completion.value).toBeGreaterThan(0);
    const devices = await metrics.chart(seed.companyId, funnelId, 'chart_visitor_devices', q);
    expect(devices.map((d) => d.key)).toEqual(['mobile', 'desktop', 'tablet', 'other']);
    expect(devices[0].value).toBeGreaterThan(devices[1].value);
    expect((await metrics.chart(seed.companyId, funnelId, 'chart_top_utm_sources', q)).length).toBe(6);
    const activity = await metrics.chart(seed.companyId, funnelId, 'chart_activity_by_daytime', q);
    expect(activity.reduce((sum, p) => sum + p.value, 0)).toBeGreaterThan(3000);
    const insight = await metrics.insight(seed.companyId, funnelId, 'question_1', q);
    expect(insight.title).toBe('What is your main goal?');
    expect(Object.keys(insight.answers).sort()).toEqual([
      'Better conversion',
      'Brand awareness',
      'More leads',
      'More sales',
    ]);
  });
});
