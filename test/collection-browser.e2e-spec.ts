import type { Server } from 'node:http';
import { Browser, chromium, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { AutomationsService } from '@app/automations';
import { DEMO_PAGES, startDemoFunnel } from '@app/demo-funnel';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { eventually, WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(240_000);

// Headless Chromium says HeadlessChrome, which the bot filter drops: a visitor's browser says Chrome.
const VISITOR_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const TODAY = () => new Date().toISOString().slice(0, 10);

/** A visitor in a real browser goes through the demo funnel, served from its own origin, and becomes a contact. */
describe('The demo funnel in Chromium', () => {
  let t: TestApp;
  let tenant: TenantFixture;
  let browser: Browser;
  let receiver: WebhookReceiver;
  let demo: { server: Server; origin: string };
  let elsewhere: { server: Server; origin: string };
  let api: ReturnType<typeof httpClient>;

  beforeAll(async () => {
    t = await startTestApp({
      SUBMIT_MIN_SECONDS: '1',
      AUTOMATION_POLL_INTERVAL_MS: '20',
      AUTOMATION_RETRY_BASE_MS: '20',
      AUTOMATION_RETRY_MAX_MS: '40',
    });
    tenant = await createTenant(t.app, { pages: [...DEMO_PAGES] });
    api = httpClient(t.baseUrl, tenant.key);
    demo = await startDemoFunnel({ apiBase: t.baseUrl, port: 0 });
    elsewhere = await startDemoFunnel({ apiBase: t.baseUrl, port: 0 });
    const allowed = await api.send('PATCH', `/v1/funnels/${tenant.funnelId}`, {
      collection: { enabled: true, allowedOrigins: [demo.origin] },
    });
    expect(allowed.status).toBe(200);
    receiver = await WebhookReceiver.start();
    await t.app
      .get(AutomationsService)
      .create({ funnelId: tenant.funnelId, on: 'contact.created', webhook: receiver.url });
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    demo?.server.close();
    elsewhere?.server.close();
    await t?.close();
  });

  const visit = async (origin: string, userAgent = VISITOR_UA): Promise<Page> => {
    const page = await (await browser.newContext({ userAgent })).newPage();
    await page.goto(`${origin}/${tenant.funnelId}/start.html?utm_source=newsletter&utm_campaign=spring`);
    await page.waitForFunction(() => 'crm' in globalThis);
    return page;
  };
  const metric = async (path: string) =>
    (await api.get(`/v1/funnels/${tenant.funnelId}/metrics/${path}?from=${TODAY()}&to=${TODAY()}`)).body.data;
  const contacts = async () => (await api.get(`/v1/funnels/${tenant.funnelId}/contacts`)).body.data;

  it('turns a visit into a contact with its meta, UTM, answers, charts and a contact.created webhook', async () => {
    const page = await visit(demo.origin);
    // The session began before the tracker was ready: no later than this.
    const begun = Date.now();
    const sessionId = await page.evaluate(
      () => (globalThis as unknown as { crm: { sessionId: string } }).crm.sessionId,
    );
    await page.click('[data-crm-button="start-cta"]');
    await page.waitForURL(/goals\.html/);
    await page.check('input[value="More leads"]');
    await page.check('input[value="Save time"]');
    await page.click('[data-crm-button="goals-next"]');
    await page.waitForURL(/budget\.html/);
    await page.check('input[value="1000 to 5000"]');
    await page.click('[data-crm-button="budget-next"]');
    await page.waitForURL(/contact\.html/);
    await page.fill('input[name="firstName"]', 'Grace');
    await page.fill('input[name="lastName"]', 'Hopper');
    await page.fill('input[name="email"]', 'grace@example.com');
    // The spam check wants the service to know the session, and the session a second old
    // (SUBMIT_MIN_SECONDS): a fast browser gets here sooner.
    await eventually(async () => (await metric('kpis/kpi_total_sessions')).value === 1, 60_000);
    await eventually(async () => Date.now() - begun > 1_000);
    await page.click('[data-crm-button="submit-lead"]');
    await page.waitForURL(/thank-you\.html/);
    await page.click('[data-crm-complete]');
    await page.evaluate(() => (globalThis as unknown as { crm: { flush: () => Promise<void> } }).crm.flush());

    const [contact] = await eventually(async () => {
      const list = await contacts();
      return list.length ? list : undefined;
    }, 60_000);
    expect(contact).toMatchObject({
      email: 'grace@example.com',
      firstName: 'Grace',
      lastName: 'Hopper',
      utmParams: { utm_source: 'newsletter', utm_campaign: 'spring' },
      properties: { question_1: 'More leads, Save time', question_2: '1000 to 5000' },
      meta: {
        ps_source: 'funnel',
        ps_start_slug: 'start',
        ps_start_page: 'Welcome',
        ps_end_slug: 'contact',
        ps_result_page: 'Contact details',
        ps_embed: false,
        ps_timezone: expect.any(String),
        ps_first_seen_at: expect.any(String),
        ps_last_seen_at: expect.any(String),
        ps_converted_at: expect.any(String),
      },
    });

    const hook = await eventually(
      async () => receiver.requests.find((r) => r.json.event === 'contact.created'),
      60_000,
    );
    expect((hook.json.contact as { id: string }).id).toBe(contact.id);

    await eventually(async () => (await metric('kpis/kpi_completion_rate')).value === 100, 60_000);
    expect(await metric('kpis/kpi_total_sessions')).toMatchObject({ value: 1 });
    expect(await metric('kpis/kpi_conversion_rate')).toMatchObject({ value: 100 });
    expect(await metric('charts/chart_top_utm_sources')).toEqual([
      expect.objectContaining({ key: 'newsletter', value: 1 }),
    ]);
    expect(await metric('charts/chart_button_clicks')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: 'start-cta', name: "Let's start", value: 1 }),
        expect.objectContaining({ key: 'submit-lead', value: 1 }),
      ]),
    );
    expect((await metric('insights/question_1')).answers).toEqual({ 'More leads': 1, 'Save time': 1 });
    expect((await metric('insights/question_2')).answers).toEqual({ '1000 to 5000': 1 });
    const conversions = await t.app
      .get(DataSource)
      .query(
        `SELECT payload->>'contactId' AS contact FROM metric_events WHERE session_id = $1 AND type = 'conversion'`,
        [sessionId],
      );
    expect(conversions).toEqual([{ contact: contact.id }]);
  });

  it('delivers the time on a page as its tab closes, with no later page to send it', async () => {
    const page = await visit(demo.origin);
    const opened = Date.now();
    const sessionId = await page.evaluate(
      () => (globalThis as unknown as { crm: { sessionId: string } }).crm.sessionId,
    );
    const db = t.app.get(DataSource);
    const events = (type: string) =>
      db.query(`SELECT payload FROM metric_events WHERE session_id = $1 AND type = $2`, [sessionId, type]);
    // The start went out while the page was open; its view waits for the page to be left.
    await eventually(async () => (await events('session_start')).length === 1, 60_000);
    expect(await events('page_view')).toEqual([]);
    const shownFor = Date.now() - opened;
    // The visitor closes the tab: the browser runs the page's unload and delivers its beacon.
    await page.close({ runBeforeUnload: true });
    const [view] = await eventually(async () => {
      const rows = await events('page_view');
      return rows.length ? rows : undefined;
    }, 60_000);
    expect(view.payload).toMatchObject({ pageSlug: 'start', timeOnPageMs: expect.any(Number) });
    expect(view.payload.timeOnPageMs).toBeGreaterThanOrEqual(shownFor);
    await page.context().close();
    // The KPIs count this session too (the first test's and this one) before the next test reads them.
    await eventually(async () => (await metric('kpis/kpi_total_sessions')).value === 2, 60_000);
  });

  it('changes nothing from an origin the funnel does not allow, or from a headless browser', async () => {
    const before = await metric('kpis/kpi_total_sessions');
    for (const [origin, ua] of [
      [elsewhere.origin, VISITOR_UA],
      [
        demo.origin,
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
      ],
    ]) {
      const page = await visit(origin, ua);
      await page.click('[data-crm-button="start-cta"]');
      await page.waitForURL(/goals\.html/);
      await page.goto(`${origin}/${tenant.funnelId}/contact.html`);
      await page.waitForFunction(() => 'crm' in globalThis);
      await page.fill('input[name="email"]', 'intruder@example.com');
      // The page sends the form; the service's answer (403 or 202) is all that comes back.
      const [sent] = await Promise.all([
        page.waitForRequest((r) => r.url().endsWith('/submissions')),
        page.click('[data-crm-button="submit-lead"]'),
      ]);
      await sent.response().catch(() => null);
      await page.context().close();
    }
    expect(await metric('kpis/kpi_total_sessions')).toEqual(before);
    expect((await contacts()).map((c: { email: string }) => c.email)).toEqual(['grace@example.com']);
  });
});
