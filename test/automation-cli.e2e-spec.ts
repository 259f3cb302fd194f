import { DataSource } from 'typeorm';
import { Automation, AutomationsService } from '@app/automations';
import type { ContactChange } from '@app/contacts';
import { Contact } from '@app/contacts';
import { runAdmin } from './support/processes';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { eventually, WebhookReceiver } from './support/webhook-receiver';

// Each admin CLI call is a process that boots the application context: about 10 s on a 2-core machine
// shared with CPU-bound work, so the budget counts a minute per call.
jest.setTimeout(400_000);

const SECRET = 'cli-signing-secret-0123456789';

describe('admin automation commands', () => {
  let t: TestApp;
  let tenant: TenantFixture;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await startTestApp({
      AUTOMATION_POLL_INTERVAL_MS: '20',
      AUTOMATION_RETRY_BASE_MS: '20',
      AUTOMATION_RETRY_MAX_MS: '40',
      AUTOMATION_MAX_ATTEMPTS: '2',
    });
    tenant = await createTenant(t.app, { contactStatuses: ['new', 'won'] });
    receiver = await WebhookReceiver.start(() => 500);
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  const admin = (...args: string[]) => runAdmin(['automation', ...args], { DATABASE_URL: t.databaseUrl });
  const automationCount = () => t.app.get(DataSource).getRepository(Automation).count();

  it.each([
    [
      [
        '--funnel',
        '00000000-0000-4000-8000-000000000000',
        '--on',
        'contact.created',
        '--webhook',
        'https://x.example',
      ],
      'Funnel not found',
    ],
    [
      ['--on', 'status:lead', '--webhook', 'https://x.example'],
      '--on status:lead is not a status of this funnel (new, won)',
    ],
    [
      ['--on', 'contact.created', '--webhook', 'https://x.example', '--message', 'sms', '--template', 'hi'],
      'exactly one action is required: --webhook URL or --message email|sms',
    ],
    [
      ['--on', 'contact.created', '--webhook', 'javascript:alert(1)'],
      '--webhook must be an http:// or https:// URL',
    ],
    [
      ['--on', 'field:__proto__', '--webhook', 'https://x.example'],
      '--on field:__proto__ names a read-only field that never changes through the API',
    ],
  ])('refuses %j with an error on stderr and creates nothing', async (args, error) => {
    const funnelArgs = args.includes('--funnel') ? [] : ['--funnel', tenant.funnelId];
    const result = await admin('create', ...funnelArgs, ...args);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toMatchObject({ error });
    expect(await automationCount()).toBe(0);
  });

  it('creates a signed webhook, stores the secret encrypted and lists its failed run without secrets', async () => {
    const created = await admin(
      'create',
      '--funnel',
      tenant.funnelId,
      '--on',
      'contact.created',
      '--webhook',
      receiver.url,
      '--secret',
      SECRET,
      '--name',
      'CRM sync',
    );
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(Object.keys(created.json)).toEqual(['id']);
    const stored = await t.app
      .get(DataSource)
      .getRepository(Automation)
      .findOneByOrFail({ id: String(created.json.id) });
    expect(stored).toMatchObject({
      name: 'CRM sync',
      trigger: 'contact.created',
      action: 'webhook',
      webhookUrl: receiver.url,
    });
    expect(JSON.stringify(stored)).not.toContain(SECRET);

    const contactId = await t.app.get(DataSource).transaction(async (manager) => {
      const contact = await manager.save(
        manager.create(Contact, {
          funnelId: tenant.funnelId,
          companyId: tenant.companyId,
          status: 'new',
          email: 'a@b.co',
        }),
      );
      const change: ContactChange = {
        kind: 'contact.created',
        companyId: tenant.companyId,
        funnelId: tenant.funnelId,
        contactId: contact.id,
        occurredAt: new Date(),
      };
      await t.app.get(AutomationsService).record(manager, [change]);
      return contact.id;
    });
    await receiver.waitFor(2);

    // Wait on the database, then look through the operator's eyes once.
    await eventually(
      async () => (await t.app.get(AutomationsService).listRuns(tenant.funnelId))[0]?.status === 'failed',
    );
    const runs = await admin('runs', '--funnel', tenant.funnelId);
    expect(runs.code).toBe(0);
    expect(runs.json).toEqual({
      data: [
        {
          id: expect.any(String),
          automationId: created.json.id,
          automationName: 'CRM sync',
          trigger: 'contact.created',
          action: 'webhook',
          contactId,
          event: 'contact.created',
          status: 'failed',
          attempts: 2,
          lastError: 'HTTP 500: receiver error',
          nextAttemptAt: null,
          createdAt: expect.any(String),
          completedAt: expect.any(String),
        },
      ],
    });
    expect(runs.stdout).not.toContain(SECRET);
    expect(runs.stdout).not.toContain(stored.webhookSecretEncrypted);

    const filtered = await admin('runs', '--funnel', tenant.funnelId, '--status', 'succeeded');
    expect(filtered.json).toEqual({ data: [] });
  });

  it('refuses runs of an unknown funnel', async () => {
    const result = await admin('runs', '--funnel', 'not-a-uuid');
    expect(result.code).not.toBe(0);
    expect(JSON.parse(result.stderr)).toEqual({ error: 'Funnel not found' });
  });
});
