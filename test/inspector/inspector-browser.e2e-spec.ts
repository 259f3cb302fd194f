import { ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { createTestDatabase } from '../support/database';
import { Inspector, launchChromium, startInspector, stopProcess } from '../support/inspector';
import { freePort, ROOT, runAdmin, waitForHttp } from '../support/processes';

jest.setTimeout(240_000);

const STEP_MS = 30_000;
const ARTIFACTS = join(ROOT, '.test-artifacts');

/**
 * The README's MCP Inspector steps in a real browser: `npm start` with its development defaults
 * (issuer mode, the development identity provider), today's MCP Inspector 2.x, Debian's Chromium.
 * Add the server, connect, pass the OAuth flow, list the tools and run list_workspaces.
 */
describe('MCP Inspector 2.x in Chromium against npm start', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let home: string;
  let server: ChildProcess | undefined;
  let inspector: Inspector | undefined;
  let browser: BrowserContext | undefined;
  let port: number;
  let workspaceId: string;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'inspector-e2e-'));
    db = await createTestDatabase();
    port = await freePort();
    const env = { DATABASE_URL: db.url, LOG_LEVEL: 'error' };
    const company = await runAdmin(['company', 'create', '--name', 'Acme'], env);
    const workspace = await runAdmin(
      ['workspace', 'create', '--company', String(company.json.id), '--name', 'Inspector workspace'],
      env,
    );
    workspaceId = String(workspace.json.id);
    // `npm start` in development: no OAUTH_MODE, IDP_URL or MCP_ALLOWED_ORIGINS, only its own ports.
    server = spawn(process.execPath, [join(ROOT, 'scripts', 'start.js')], {
      cwd: ROOT,
      env: { ...process.env, ...env, NODE_ENV: 'development', PORT: String(port), DEV_IDP_PORT: '0' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await waitForHttp(`http://127.0.0.1:${port}/health`);
    inspector = await startInspector(home);
    browser = await launchChromium(join(home, 'chromium-profile'));
  });
  afterAll(async () => {
    await browser?.close();
    await inspector?.close();
    await stopProcess(server);
    await db?.drop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  /** Runs the steps; on failure saves a screenshot and names it in the error. */
  async function withScreenshot(page: Page, steps: () => Promise<void>): Promise<void> {
    try {
      await steps();
    } catch (error) {
      await mkdir(ARTIFACTS, { recursive: true });
      const file = join(ARTIFACTS, `inspector-failure-${Date.now()}.png`);
      await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      (error as Error).message += `\nscreenshot: ${file}`;
      throw error;
    }
  }

  it('adds the server, signs in through OAuth, lists the tools and runs list_workspaces', async () => {
    const page = await browser!.newPage();
    page.setDefaultTimeout(STEP_MS);
    await withScreenshot(page, async () => {
      await page.goto(inspector!.url);

      await page.getByRole('button', { name: 'Add Servers' }).click();
      await page.getByRole('menuitem', { name: '+ Add manually' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByPlaceholder('my-server').fill('funnel-crm');
      await dialog.getByRole('textbox', { name: 'Transport' }).click();
      await page.getByRole('option', { name: 'streamable-http' }).click();
      await dialog.getByPlaceholder('https://example.com/mcp').fill(`http://localhost:${port}/mcp`);
      await dialog.getByRole('button', { name: 'Add' }).click();
      await dialog.waitFor({ state: 'hidden' });

      // The switch's label is what a user clicks; the input itself is hidden by the UI library.
      const toggle = page.getByRole('switch', { name: 'Connect or disconnect "funnel-crm"' });
      await page.locator(`label[for="${await toggle.getAttribute('id')}"]`).click();
      await page.locator('#approve').click({ timeout: 3 * STEP_MS });
      // 401, discovery, registration, the identity provider, then this service's consent page for
      // the newly registered Inspector, where the user allows it, and back, all in this browser
      // tab. The Inspector reports it once it has also listed the tools, prompts, resources and templates:
      // four more requests, slow on a loaded machine, hence the longer wait.
      await page.getByText('Authorization complete').waitFor({ timeout: 3 * STEP_MS });
      await page.getByText('Connected', { exact: true }).waitFor();

      await page.getByText('Tools', { exact: true }).first().click();
      for (const tool of ['list_workspaces', 'list_contacts', 'create_contact', 'get_kpi_metrics'])
        await page.getByRole('button', { name: new RegExp(`\\b${tool}\\b`) }).waitFor();

      await page.getByRole('button', { name: /\blist_workspaces\b/ }).click();
      await page.getByRole('button', { name: 'Execute Tool' }).click();
      // The result panel shows the tool's answer (however the Inspector formats it): our workspace.
      await page.getByText(workspaceId).first().waitFor();
      await page.getByText('Inspector workspace').first().waitFor();
    });
  });
});
