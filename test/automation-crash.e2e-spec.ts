import { DataSource } from 'typeorm';
import { AutomationRun, AutomationsService } from '@app/automations';
import { startTestApp, TestApp } from './support/app';
import { createTestDatabase } from './support/database';
import { createTenant, TenantFixture } from './support/factories';
import { ServerProcess, startServerProcess } from './support/processes';
import { eventually, WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(240_000);

/** The real server as a separate process, killed with SIGKILL: nothing gets to clean up. */
describe('Automation runs survive a killed server', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let fixtures: TestApp;
  let tenant: TenantFixture;
  let receiver: WebhookReceiver;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    // Used for fixtures and to read the database; its own worker stays off.
    fixtures = await startTestApp({ AUTOMATION_WORKER_ENABLED: 'false' }, db.url);
    tenant = await createTenant(fixtures.app);
    receiver = await WebhookReceiver.start();
    await fixtures.app
      .get(AutomationsService)
      .create({ funnelId: tenant.funnelId, on: 'contact.created', webhook: receiver.url });
  });
  afterEach(() => kill());
  afterAll(async () => {
    await receiver.close();
    await fixtures.app.close();
    await db.drop();
  });

  async function start(env: Record<string, string>): Promise<void> {
    server = await startServerProcess({ DATABASE_URL: db.url, AUTOMATION_POLL_INTERVAL_MS: '50', ...env });
  }

  async function kill(): Promise<void> {
    const running = server;
    server = undefined;
    await running?.kill();
  }

  const createContact = async (email: string): Promise<string> => {
    const res = await fetch(`${server!.baseUrl}/v1/funnels/${tenant.funnelId}/contacts`, {
      method: 'POST',
      headers: { 'x-service-api-key': tenant.key, 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { data: { id: string } }).data.id;
  };
  const runOf = (contactId: string) =>
    fixtures.app.get(DataSource).getRepository(AutomationRun).findOneByOrFail({ contactId });

  it('delivers after a restart a run committed just before the server was killed', async () => {
    receiver.requests.length = 0;
    // With the worker off, the process dies after the commit and before any delivery.
    await start({ AUTOMATION_WORKER_ENABLED: 'false' });
    const contactId = await createContact('committed@example.com');
    await kill();
    expect(await runOf(contactId)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(receiver.requests).toEqual([]);

    await start({});
    const [request] = await receiver.waitFor(1, 60_000);
    expect((request.json.contact as { id: string }).id).toBe(contactId);
    await eventually(async () => (await runOf(contactId)).status === 'succeeded', 30_000);
    expect(await runOf(contactId)).toMatchObject({ attempts: 1 });
  });

  it('delivers again, after the lease expires, a run whose server was killed mid-delivery', async () => {
    receiver.requests.length = 0;
    // The receiver holds the first request open, so the server dies while delivering.
    receiver.respond = (_, index) => (index === 0 ? new Promise<number>(() => undefined) : 200);
    // The timeout leaves time to kill the server mid-request; the restart takes longer than the lease.
    const lease = { AUTOMATION_LEASE_MS: '4000', AUTOMATION_WEBHOOK_TIMEOUT_MS: '3000' };
    await start(lease);
    const contactId = await createContact('in-flight@example.com');
    const [first] = await receiver.waitFor(1, 60_000);
    await kill();
    expect(await runOf(contactId)).toMatchObject({ status: 'running', attempts: 1 });

    await start(lease);
    const requests = await receiver.waitFor(2, 60_000);
    // At-least-once: the receiver sees the same run id again and can deduplicate on it.
    expect(requests[1].headers['x-automation-run-id']).toBe(first.headers['x-automation-run-id']);
    expect(requests[1].headers['x-automation-attempt']).toBe('2');
    await eventually(async () => (await runOf(contactId)).status === 'succeeded', 30_000);
    expect(await runOf(contactId)).toMatchObject({ attempts: 2, lockedBy: null });
  });
});
