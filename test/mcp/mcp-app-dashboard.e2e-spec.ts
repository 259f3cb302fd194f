import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { BrowserContext, FrameLocator, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { Contact } from '@app/contacts';
import { createRandom } from '../../apps/admin/src/demo/demo-data';
import { demoTraffic } from '../../apps/admin/src/demo/demo-traffic';
import type { TestApp } from '../support/app';
import { createTenant, TenantFixture } from '../support/factories';
import { httpClient } from '../support/http-client';
import { launchChromium } from '../support/inspector';
import { AppHost, DEFAULT_APP_CSP, startAppHost } from '../support/mcp-app-host';
import { connectMcpClient, startMcpApp } from '../support/mcp-stack';
import { ROOT } from '../support/processes';
import type { TestTokenIssuer } from '../support/token-issuer';

// Ingesting a week of traffic and starting Chromium on a loaded machine.
jest.setTimeout(180_000);

const URI = 'ui://funnel-crm/dashboard.html';
const ARGS = { from: '2026-11-02', to: '2026-11-08', timezone: 'Europe/Berlin' };
// That week in Berlin (UTC+1), as instants.
const WEEK = { from: Date.parse('2026-11-01T23:00:00Z'), to: Date.parse('2026-11-08T23:00:00Z') };
const SCREENSHOT = join(ROOT, 'docs', 'images', 'mcp-app-dashboard.png');

interface Point {
  key: string;
  value: number;
  name?: string;
  relativeValue?: number;
}
interface Figure {
  type: string;
  value: number;
  count?: number;
}
interface Dashboard {
  funnel: { id: string; name: string };
  period: Record<string, string>;
  kpis: Record<string, Figure>;
  charts: Record<string, Point[]>;
}

/** The number a text shows: "1,234.5%" is 1234.5. */
const shown = (text: string | null) => Number((text ?? '').replace(/[^\d.-]/g, ''));

/**
 * The funnel dashboard as an MCP App: a real show_funnel_dashboard result from POST /mcp, the app's
 * HTML from resources/read, drawn in Chromium by a minimal host built on the ext-apps AppBridge.
 */
describe('MCP App: the funnel dashboard', () => {
  let issuer: TestTokenIssuer;
  let t: TestApp;
  let acme: TenantFixture;
  let client: Client;
  let tools: Tool[];
  let result: CallToolResult;
  let dashboard: Dashboard;
  let home: string;
  let host: AppHost;
  let browser: BrowserContext;

  const rest = (path: string) => httpClient(t.baseUrl, acme.key).get(`/v1/funnels/${acme.funnelId}${path}`);

  beforeAll(async () => {
    ({ issuer, t } = await startMcpApp());
    acme = await createTenant(t.app, { name: 'Autumn lead magnet' });
    const api = httpClient(t.baseUrl, acme.key);
    // Demo-like traffic over the week and a day on each side, through the real event pipeline.
    const random = createRandom(28);
    const pages = [
      { slug: 'start', title: 'Start' },
      { slug: 'details', title: 'Details' },
      { slug: 'done', title: 'Done' },
    ];
    let batch: unknown[] = [];
    const flush = async () => {
      const res = await api.post(`/v1/funnels/${acme.funnelId}/events`, { events: batch });
      expect(res.status).toBe(202);
      batch = [];
    };
    for (const events of demoTraffic({
      pages,
      from: WEEK.from - 86_400_000,
      to: WEEK.to + 86_400_000,
      sessions: 450,
      random,
    })) {
      batch.push(...events);
      if (batch.length > 900) await flush();
    }
    if (batch.length) await flush();
    // Contacts converted at random times of the same days.
    const contacts = t.app.get(DataSource).getRepository(Contact);
    for (let i = 0; i < 40; i++) {
      const convertedAt = new Date(WEEK.from - 86_400_000 + Math.floor(random() * 9 * 86_400_000));
      await contacts.save(
        contacts.create({
          funnelId: acme.funnelId,
          companyId: acme.companyId,
          status: 'lead',
          email: `lead-${i}@example.com`,
          convertedAt,
        }),
      );
    }

    // The client checks the structured result against the tool's outputSchema.
    ({ client, tools } = await connectMcpClient(t, issuer, acme.companyId, 'mcp-app-e2e'));
    result = (await client.callTool({
      name: 'show_funnel_dashboard',
      arguments: { funnelId: acme.funnelId, ...ARGS },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    dashboard = result.structuredContent as unknown as Dashboard;

    home = await mkdtemp(join(tmpdir(), 'mcp-app-e2e-'));
    host = await startAppHost();
    browser = await launchChromium(join(home, 'chromium-profile'));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await client?.close();
    await t?.close();
    await issuer?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('names its ui:// resource in the tool description, which resources/list and resources/read serve', async () => {
    const tool = tools.find((candidate) => candidate.name === 'show_funnel_dashboard')!;
    expect(tool._meta).toEqual({ ui: { resourceUri: URI }, 'ui/resourceUri': URI });
    expect(tool.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(client.getServerCapabilities()?.resources).toEqual({});
    const { resources } = await client.listResources();
    expect(resources.filter((resource) => resource.uri.startsWith('ui://'))).toEqual([
      expect.objectContaining({ uri: URI, name: 'funnel_dashboard', mimeType: 'text/html;profile=mcp-app' }),
    ]);
    const { contents } = await client.readResource({ uri: URI });
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri: URI, mimeType: 'text/html;profile=mcp-app' });
    const html = (contents[0] as { text: string }).text;
    expect(html).toMatch(/^<!doctype html>/i);
    // Self-contained: no external script, style sheet, frame or image (the browser test below
    // shows that nothing at all is requested).
    expect(html).not.toMatch(/<(script|link|img|iframe)\b[^>]*\b(src|href)=/i);
    expect(html).toContain('const McpExtApps = (() => {');
  });

  it('answers the figures of GET .../metrics for the same period, and the same JSON as text', async () => {
    expect(dashboard.funnel).toEqual({ id: acme.funnelId, name: 'Autumn lead magnet' });
    expect(dashboard.period).toEqual(ARGS);
    const query = new URLSearchParams(ARGS).toString();
    for (const [subtype, figure] of Object.entries(dashboard.kpis))
      expect([subtype, figure]).toEqual([
        subtype,
        (await rest(`/metrics/kpis/${subtype}?${query}`)).body.data,
      ]);
    for (const [subtype, points] of Object.entries(dashboard.charts))
      expect([subtype, points]).toEqual([
        subtype,
        (await rest(`/metrics/charts/${subtype}?${query}`)).body.data,
      ]);
    expect(Object.keys(dashboard.kpis)).toHaveLength(6);
    expect(Object.keys(dashboard.charts)).toHaveLength(4);
    // Demo-like traffic: every figure has something to show.
    expect(dashboard.kpis.kpi_total_sessions.value).toBeGreaterThan(200);
    expect(dashboard.kpis.kpi_new_contacts.value).toBeGreaterThan(10);
    expect(dashboard.charts.chart_contacts_over_time).toHaveLength(7);
    expect(dashboard.charts.chart_top_utm_sources.length).toBeGreaterThan(3);
    // Hosts without apps read the text: the whole result.
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(result.structuredContent) }]);
  });

  it('takes a preset period in the time zone, and refuses a half-given or doubly given period', async () => {
    const preset = (await client.callTool({
      name: 'show_funnel_dashboard',
      arguments: { funnelId: acme.funnelId, period: 'last_30_days', offset: '-60' },
    })) as CallToolResult;
    expect(preset.isError).toBeFalsy();
    const period = (preset.structuredContent as unknown as Dashboard).period;
    expect(period).toEqual({
      preset: 'last_30_days',
      offset: '-60',
      from: expect.any(String),
      to: expect.any(String),
    });
    expect((Date.parse(period.to) - Date.parse(period.from)) / 86_400_000).toBe(29);
    const errors = async (args: Record<string, unknown>) => {
      const answer = (await client.callTool({
        name: 'show_funnel_dashboard',
        arguments: { funnelId: acme.funnelId, ...args },
      })) as CallToolResult;
      expect(answer.isError).toBe(true);
      return (answer.content[0] as { text: string }).text;
    };
    expect(await errors({ from: '2026-11-02' })).toBe('from and to go together: give both');
    expect(await errors({ ...ARGS, period: 'today' })).toBe(
      'period and from/to are alternatives: give one of them',
    );
    expect(await errors({ period: 'today', timezone: 'Mars/Olympus' })).toBe(
      'timezone must be an IANA time zone name (e.g. Europe/Berlin)',
    );
    const other = await createTenant(t.app);
    expect(await errors({ ...ARGS, funnelId: other.funnelId })).toMatch(/not found/i);
  });

  /** The app's HTML from resources/read, shown with the real tool result by the test host. */
  async function openApp(csp: string | null) {
    const { contents } = await client.readResource({ uri: URI });
    const html = (contents[0] as { text: string }).text;
    const page = await browser.newPage();
    const requests: { url: string; fromApp: boolean }[] = [];
    page.on('request', (request) =>
      requests.push({ url: request.url(), fromApp: request.frame() !== page.mainFrame() }),
    );
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.setViewportSize({ width: 912, height: 900 });
    await page.goto(host.url);
    await page.waitForFunction(() => (globalThis as unknown as { hostReady?: boolean }).hostReady === true);
    await page.evaluate(
      ([appHtml, policy, args, toolResult]) =>
        (globalThis as unknown as { showApp: (...a: unknown[]) => Promise<void> }).showApp(
          appHtml,
          policy,
          args,
          toolResult,
        ),
      [html, csp, { funnelId: acme.funnelId, ...ARGS }, result] as const,
    );
    const app = page.frameLocator('#app');
    await app.locator('#dashboard').waitFor({ state: 'visible' });
    return { page, app, requests, errors };
  }

  it('draws the figures of the tool result under the default app policy, in a host built on AppBridge', async () => {
    const { page, app, errors } = await openApp(DEFAULT_APP_CSP);
    await expectDrawn(app, dashboard);
    expect(errors).toEqual([]);
    await screenshot(page);
    await page.close();
  });

  it('makes no request of its own, even when no policy would stop one', async () => {
    // Without a policy a request would reach the network, where the browser sees it.
    const { page, requests, errors } = await openApp(null);
    await page.waitForLoadState('networkidle');
    const origin = new URL(host.url).origin;
    // The host page's own requests (its page and modules) and nothing from the app.
    expect(requests.length).toBeGreaterThan(1);
    expect(requests.filter((r) => r.fromApp)).toEqual([]);
    expect(requests.filter((r) => new URL(r.url).origin !== origin)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});

async function expectDrawn(app: FrameLocator, dashboard: Dashboard): Promise<void> {
  expect(await app.locator('h1').textContent()).toBe(dashboard.funnel.name);
  expect(await app.locator('#period').textContent()).toBe('2026-11-02 – 2026-11-08 (Europe/Berlin)');

  for (const [subtype, { value, count }] of Object.entries(dashboard.kpis)) {
    const card = app.locator(`[data-kpi="${subtype}"]`);
    expect([subtype, shown(await card.locator('.value').textContent())]).toEqual([subtype, value]);
    if (count !== undefined)
      expect([subtype, shown(await card.locator('.detail').textContent())]).toEqual([subtype, count]);
  }
  expect(await app.locator('[data-kpi="kpi_conversion_rate"] .value').textContent()).toMatch(/%$/);

  const rows = (subtype: string, key: string) => app.locator(`[data-chart="${subtype}"] [data-key="${key}"]`);
  const pages = dashboard.charts.chart_page_to_page_conversion_rate;
  expect(pages.map((p) => p.key)).toEqual(['start', 'details', 'done']);
  for (const [i, point] of pages.entries()) {
    const row = rows('chart_page_to_page_conversion_rate', point.key);
    expect(await row.locator('.label').textContent()).toBe(point.name);
    expect(shown(await row.locator('.value').textContent())).toBe(point.value);
    if (i > 0)
      expect(shown(await row.locator('.share').textContent())).toBeCloseTo(point.relativeValue! * 100, 2);
  }
  for (const point of dashboard.charts.chart_contacts_over_time) {
    const column = rows('chart_contacts_over_time', point.key);
    expect(await column.locator('title').textContent()).toBe(`${point.key}: ${point.value} contacts`);
    expect(shown(await column.locator('.value').textContent())).toBe(point.value);
  }
  for (const subtype of ['chart_visitor_devices', 'chart_top_utm_sources']) {
    const points = dashboard.charts[subtype];
    expect(await app.locator(`[data-chart="${subtype}"] [data-key]`).count()).toBe(points.length);
    for (const point of points) {
      const row = rows(subtype, point.key);
      expect([point.key, shown(await row.locator('.value').textContent())]).toEqual([point.key, point.value]);
      expect(shown(await row.locator('.share').textContent())).toBeCloseTo(point.relativeValue! * 100, 2);
    }
  }
}

/** Kept under .test-artifacts; with DOCS_SCREENSHOT=1 also as the picture docs/MCP-AND-OAUTH.md shows. */
async function screenshot(page: Page): Promise<void> {
  const artifacts = join(ROOT, '.test-artifacts');
  await mkdir(artifacts, { recursive: true });
  const frame = page.locator('#app');
  await frame.screenshot({ path: join(artifacts, 'mcp-app-dashboard.png') });
  if (process.env.DOCS_SCREENSHOT === '1') await frame.screenshot({ path: SCREENSHOT });
}
