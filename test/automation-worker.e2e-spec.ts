import { createHmac, timingSafeEqual } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AutomationRun, AutomationsService, AutomationWorker, AutomationRunQueue } from '@app/automations';
import type { ContactChange } from '@app/contacts';
import { Contact } from '@app/contacts';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { eventually, WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(60_000);

// Workers are started by hand so each test decides when delivery begins.
const WORKER_ENV = {
  AUTOMATION_WORKER_ENABLED: 'false',
  AUTOMATION_POLL_INTERVAL_MS: '20',
  AUTOMATION_CONCURRENCY: '8',
  AUTOMATION_RETRY_BASE_MS: '20',
  AUTOMATION_RETRY_MAX_MS: '80',
  AUTOMATION_MAX_ATTEMPTS: '3',
  AUTOMATION_WEBHOOK_TIMEOUT_MS: '2000',
  AUTOMATION_LEASE_MS: '5000',
};

describe(AutomationWorker.name, () => {
  let a: TestApp;
  let b: TestApp;
  let tenant: TenantFixture;
  let receiver: WebhookReceiver;
  let dataSource: DataSource;

  beforeAll(async () => {
    a = await startTestApp(WORKER_ENV);
    b = await startTestApp(WORKER_ENV, a.databaseUrl);
    tenant = await createTenant(a.app);
    receiver = await WebhookReceiver.start();
    dataSource = a.app.get(DataSource);
  });
  afterAll(async () => {
    await receiver.close();
    await b.app.close();
    await a.close();
  });
  afterEach(async () => {
    await Promise.all([a.app.get(AutomationWorker).stop(), b.app.get(AutomationWorker).stop()]);
    receiver.respond = () => 200;
    receiver.requests.length = 0;
    await dataSource.query('DELETE FROM automations');
  });

  const webhook = (secret?: string) =>
    a.app
      .get(AutomationsService)
      .create({ funnelId: tenant.funnelId, on: 'contact.created', webhook: receiver.url, secret });

  /** Creates contacts and records their contact.created changes in one transaction, as the contacts service does. */
  const createContacts = (count: number, fail = false) =>
    dataSource.transaction(async (manager) => {
      const contacts = await manager.save(
        Array.from({ length: count }, (_, i) =>
          manager.create(Contact, {
            funnelId: tenant.funnelId,
            companyId: tenant.companyId,
            status: 'lead',
            email: `person${i}@example.com`,
            firstName: `Person ${i}`,
          }),
        ),
      );
      const changes: ContactChange[] = contacts.map((contact) => ({
        kind: 'contact.created',
        companyId: tenant.companyId,
        funnelId: tenant.funnelId,
        contactId: contact.id,
        occurredAt: new Date(),
      }));
      await a.app.get(AutomationsService).record(manager, changes);
      if (fail) throw new Error('the contact write fails after recording');
      return contacts;
    });

  const runs = () => dataSource.getRepository(AutomationRun).find({ order: { createdAt: 'ASC' } });

  it('writes runs only when the change commits', async () => {
    await webhook();
    await expect(createContacts(2, true)).rejects.toThrow('fails after recording');
    expect(await runs()).toEqual([]);
    await createContacts(2);
    expect((await runs()).map((r) => r.status)).toEqual(['pending', 'pending']);
  });

  it('delivers the frozen event with an HMAC signature of the exact raw body', async () => {
    const { id: automationId } = await webhook('a-very-secret-signing-key');
    const [contact] = await createContacts(1);
    // The payload is frozen at trigger time: a later edit does not change what is delivered.
    await dataSource.getRepository(Contact).update({ id: contact.id }, { firstName: 'Renamed later' });
    a.app.get(AutomationWorker).start();
    const [request] = await receiver.waitFor(1);

    const expected = createHmac('sha256', 'a-very-secret-signing-key').update(request.rawBody).digest();
    const signature = String(request.headers['x-signature']);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(timingSafeEqual(Buffer.from(signature.slice(7), 'hex'), expected)).toBe(true);
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    const [run] = await runs();
    expect(request.headers['x-automation-run-id']).toBe(run.id);
    expect(request.headers['x-automation-id']).toBe(automationId);
    expect(Object.keys(request.json)).toEqual(['event', 'funnelId', 'contact', 'change', 'occurredAt']);
    expect(request.json).toEqual({
      event: 'contact.created',
      funnelId: tenant.funnelId,
      contact: {
        id: contact.id,
        status: 'lead',
        email: 'person0@example.com',
        firstName: 'Person 0',
        createdAt: contact.createdAt.toISOString(),
        updatedAt: contact.createdAt.toISOString(),
        messages: [],
      },
      change: null,
      occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const done = await eventually(async () => (await runs()).find((r) => r.status === 'succeeded'));
    expect(done).toMatchObject({
      attempts: 1,
      lastError: null,
      lockedBy: null,
      completedAt: expect.any(Date),
    });
  });

  it('sends no signature header when the automation has no secret', async () => {
    await webhook();
    await createContacts(1);
    a.app.get(AutomationWorker).start();
    const [request] = await receiver.waitFor(1);
    expect(request.headers['x-signature']).toBeUndefined();
  });

  it('retries a failing receiver with backoff and succeeds once it answers 2xx', async () => {
    receiver.respond = (_, index) => (index < 2 ? 500 : 204);
    await webhook();
    await createContacts(1);
    a.app.get(AutomationWorker).start();
    await receiver.waitFor(3);
    const run = await eventually(async () => (await runs()).find((r) => r.status === 'succeeded'));
    expect(run).toMatchObject({ attempts: 3, lastError: 'HTTP 500: receiver error' });
    const ids = receiver.requests.map((r) => r.headers['x-automation-run-id']);
    expect(new Set(ids)).toEqual(new Set([run.id]));
    expect(receiver.requests.map((r) => r.headers['x-automation-attempt'])).toEqual(['1', '2', '3']);
  });

  it('keeps the run as failed after the last attempt', async () => {
    receiver.respond = () => 503;
    await webhook();
    await createContacts(1);
    a.app.get(AutomationWorker).start();
    const run = await eventually(async () => (await runs()).find((r) => r.status === 'failed'));
    expect(run).toMatchObject({
      attempts: 3,
      lastError: 'HTTP 503: receiver error',
      completedAt: expect.any(Date),
    });
    expect(receiver.requests).toHaveLength(3);
  });

  it('records a connection failure without exposing the URL', async () => {
    const closed = await WebhookReceiver.start();
    await closed.close();
    await a.app
      .get(AutomationsService)
      .create({ funnelId: tenant.funnelId, on: 'contact.created', webhook: closed.url });
    await createContacts(1);
    a.app.get(AutomationWorker).start();
    const run = await eventually(async () => (await runs()).find((r) => r.status === 'failed'));
    expect(run.lastError).toBe('connection failed (ECONNREFUSED)');
  });

  it('delivers each of many runs exactly once with two workers racing', async () => {
    // A little latency per request keeps both workers busy at the same time.
    receiver.respond = () => new Promise((resolve) => setTimeout(() => resolve(200), Math.random() * 15));
    await webhook();
    await createContacts(150);
    // Spies call through: they only count which worker recorded each success.
    const recordedBy = [a, b].map((app) => jest.spyOn(app.app.get(AutomationRunQueue), 'succeed'));
    a.app.get(AutomationWorker).start();
    b.app.get(AutomationWorker).start();
    await receiver.waitFor(150);
    await eventually(async () => (await runs()).every((r) => r.status === 'succeeded'));
    // Nothing more arrives after every run succeeded: stopped, the workers have nothing in flight.
    await Promise.all([a, b].map((app) => app.app.get(AutomationWorker).stop()));

    const ids = receiver.requests.map((r) => String(r.headers['x-automation-run-id']));
    expect(ids).toHaveLength(150);
    expect(new Set(ids).size).toBe(150);
    const all = await runs();
    expect(all.every((r) => r.attempts === 1)).toBe(true);
    expect(new Set(all.map((r) => r.id))).toEqual(new Set(ids));
    // Both workers took part, so the test raced them for real.
    const successes = await Promise.all(
      recordedBy.map(
        async (spy) => (await Promise.all(spy.mock.results.map((r) => r.value))).filter(Boolean).length,
      ),
    );
    expect(successes[0]).toBeGreaterThan(0);
    expect(successes[1]).toBeGreaterThan(0);
    expect(successes[0] + successes[1]).toBe(150);
    recordedBy.forEach((spy) => spy.mockRestore());
  });

  it('finishes the deliveries in flight when it stops, and claims nothing afterwards', async () => {
    receiver.respond = () => new Promise((resolve) => setTimeout(() => resolve(200), 300));
    await webhook();
    await createContacts(3);
    const worker = a.app.get(AutomationWorker);
    worker.start();
    await receiver.waitFor(3);
    await worker.stop();
    expect((await runs()).map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);

    // A run due after the stop: the other process's worker delivers it, the stopped one never claims.
    const claims = jest.spyOn(a.app.get(AutomationRunQueue), 'claim');
    await createContacts(1);
    b.app.get(AutomationWorker).start();
    await receiver.waitFor(4);
    expect(claims).not.toHaveBeenCalled();
    claims.mockRestore();
  });

  it('takes over a run whose worker died mid-delivery once its lease expires', async () => {
    await webhook();
    await createContacts(1);
    const [run] = await runs();
    await dataSource.query(
      `UPDATE automation_runs SET status = 'running', attempts = 1, locked_by = 'dead-worker', next_attempt_at = now() - interval '1 second' WHERE id = $1`,
      [run.id],
    );
    a.app.get(AutomationWorker).start();
    await receiver.waitFor(1);
    const done = await eventually(async () => (await runs()).find((r) => r.status === 'succeeded'));
    expect(done.attempts).toBe(2);
    expect(receiver.requests[0].headers['x-automation-attempt']).toBe('2');
  });

  it('gives up on a run whose last allowed attempt was interrupted', async () => {
    await webhook();
    await createContacts(1);
    await dataSource.query(
      `UPDATE automation_runs SET status = 'running', attempts = 3, locked_by = 'dead-worker', next_attempt_at = now() - interval '1 second'`,
    );
    a.app.get(AutomationWorker).start();
    const run = await eventually(async () => (await runs()).find((r) => r.status === 'failed'));
    expect(run).toMatchObject({
      attempts: 4,
      lastError: 'the last attempt was interrupted before it finished',
    });
    expect(receiver.requests).toHaveLength(0);
  });

  it("ignores a stale worker's outcome once another worker took the run over", async () => {
    await webhook();
    await createContacts(1);
    const queue = a.app.get(AutomationRunQueue);
    const [stale] = await queue.claim('worker-a', 10, 1000);
    await dataSource.query(`UPDATE automation_runs SET next_attempt_at = now() - interval '1 second'`);
    const [current] = await queue.claim('worker-b', 10, 60_000);
    expect(current).toMatchObject({ id: stale.id, attempts: 2 });
    expect(await queue.claim('worker-c', 10, 60_000)).toEqual([]);

    expect(await queue.succeed(stale)).toBe(false);
    expect(await queue.retry(stale, 'late failure', 10)).toBe(false);
    expect((await runs())[0]).toMatchObject({ status: 'running', lockedBy: 'worker-b' });
    expect(await queue.fail(current, 'HTTP 500')).toBe(true);
    expect((await runs())[0]).toMatchObject({ status: 'failed', lockedBy: null, lastError: 'HTTP 500' });
  });

  it('logs a database outage once, not on every poll, and claims again when the database answers', async () => {
    await webhook();
    const worker = a.app.get(AutomationWorker);
    const queue = a.app.get(AutomationRunQueue);
    const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const claim = jest.spyOn(queue, 'claim').mockRejectedValue(outage);
    const warn = jest.spyOn(worker['logger'], 'warn').mockImplementation(() => undefined);
    const error = jest.spyOn(worker['logger'], 'error').mockImplementation(() => undefined);
    const log = jest.spyOn(worker['logger'], 'log').mockImplementation(() => undefined);
    try {
      worker.start();
      await eventually(async () => claim.mock.calls.length >= 10);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0][0]).toMatch(/paused: the database is unavailable .*retrying every 20 ms/);
      expect(error).not.toHaveBeenCalled();
      claim.mockRestore();
      await eventually(async () =>
        log.mock.calls.some(
          ([message]) => message === 'claiming automation runs again: the database answers',
        ),
      );
      await createContacts(1);
      await eventually(async () => receiver.requests.length === 1);
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      claim.mockRestore();
      warn.mockRestore();
      error.mockRestore();
      log.mockRestore();
    }
  });
});
