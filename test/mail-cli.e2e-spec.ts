import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutomationsService } from '@app/automations';
import { runAdmin } from './support/processes';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { eventually } from './support/webhook-receiver';

// Each admin CLI call is a process that boots the application context: about 10 s on a 2-core machine
// shared with CPU-bound work, so the budget counts a minute per call.
jest.setTimeout(400_000);

/** Without SMTP_URL outside production, email goes to the catch-all mailbox the service starts itself. */
describe('development mailbox', () => {
  let t: TestApp;
  let tenant: TenantFixture;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'crm-mailbox-'));
    t = await startTestApp({ DATA_DIR: dataDir, AUTOMATION_POLL_INTERVAL_MS: '20' });
    tenant = await createTenant(t.app);
  });
  afterAll(async () => {
    await t.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const mail = (...args: string[]) =>
    runAdmin(['mail', ...args], { DATABASE_URL: t.databaseUrl, DATA_DIR: dataDir });

  it('keeps every sent email, readable with admin mail list and show', async () => {
    expect((await mail('list')).json).toEqual({ data: [] });
    await t.app.get(AutomationsService).create({
      funnelId: tenant.funnelId,
      on: 'contact.created',
      message: 'email',
      subject: 'Welcome {{firstName}}',
      template: 'Hello {{firstName}}',
    });
    const res = await fetch(`${t.baseUrl}/v1/funnels/${tenant.funnelId}/contacts`, {
      method: 'POST',
      headers: { 'x-service-api-key': tenant.key, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.com', firstName: 'Ada' }),
    });
    expect(res.status).toBe(201);

    const listed = await eventually(async () => {
      const { json } = await mail('list');
      return (json.data as unknown[] | undefined)?.length === 1 && (json.data as Record<string, string>[]);
    });
    expect(listed).toEqual([
      {
        id: expect.any(String),
        receivedAt: expect.stringMatching(/^\d{4}-/),
        from: '"Funnel CRM" <no-reply@localhost>',
        to: 'ada@example.com',
        subject: 'Welcome Ada',
        messageId: expect.stringMatching(/^<[0-9a-f-]{36}@localhost>$/),
      },
    ]);
    const shown = await mail('show', '--id', listed[0].id);
    expect(shown.code).toBe(0);
    expect(shown.json.data).toMatchObject({
      subject: 'Welcome Ada',
      text: expect.stringContaining('Hello Ada'),
      html: expect.stringContaining('Hello Ada'),
      listUnsubscribe: expect.stringContaining('/email/unsubscribe/'),
    });
    const missing = await mail('show', '--id', 'nope');
    expect([missing.code, missing.json]).toEqual([1, { error: 'Message not found' }]);
  });

  it('is not used once SMTP_URL is set', async () => {
    const result = await runAdmin(['mail', 'list'], {
      DATABASE_URL: t.databaseUrl,
      DATA_DIR: dataDir,
      SMTP_URL: 'smtp://127.0.0.1:2525',
    });
    expect(result.code).toBe(1);
    expect(result.json.error).toMatch(/development mailbox is used only outside production without SMTP_URL/);
  });
});
