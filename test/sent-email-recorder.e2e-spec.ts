import { DataSource } from 'typeorm';
import { AutomationRunQueue, AutomationsService, SentEmailRecorder } from '@app/automations';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';

jest.setTimeout(60_000);

/** The claim and the group commit of sent email, the worker held still so the test drives them. */
describe('Email runs: the claim and the recording of accepted emails', () => {
  let t: TestApp;
  let tenant: TenantFixture;
  let queue: AutomationRunQueue;

  beforeAll(async () => {
    t = await startTestApp({ AUTOMATION_WORKER_ENABLED: 'false' });
    queue = t.app.get(AutomationRunQueue);
  });
  beforeEach(async () => {
    tenant = await createTenant(t.app);
    await t.app.get(AutomationsService).create({
      funnelId: tenant.funnelId,
      on: 'contact.created',
      message: 'email',
      subject: 'Welcome',
      template: 'Hello {{firstName}}',
    });
  });
  afterAll(() => t.close());

  const api = (method: string, path: string, body?: object) =>
    fetch(`${t.baseUrl}/v1/funnels/${tenant.funnelId}/contacts${path}`, {
      method,
      headers: { 'x-service-api-key': tenant.key, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
  const createContact = async (email: string) =>
    ((await (await api('POST', '', { email, firstName: 'Ada' })).json()) as { data: { id: string } }).data.id;
  const claimAll = async () =>
    (await queue.claim(`test-${tenant.funnelId}`, 100, 60_000)).filter(
      (run) => run.funnelId === tenant.funnelId,
    );
  const message = (run: Awaited<ReturnType<typeof claimAll>>[number]) => ({
    id: run.id,
    contactId: run.contactId,
    funnelId: run.funnelId,
    name: run.automation.name,
    type: 'email' as const,
    subject: 'Welcome',
    content: 'Hello Ada',
    status: 'delivered' as const,
    sentAt: new Date(),
    deliveredAt: new Date(),
  });

  it('records each accepted email with its run in one transaction, only where the lease is still held', async () => {
    const [kept, lost] = [await createContact('kept@example.com'), await createContact('lost@example.com')];
    const runs = await claimAll();
    expect(runs).toHaveLength(2);
    const keptRun = runs.find((run) => run.contactId === kept)!;
    const lostRun = runs.find((run) => run.contactId === lost)!;
    // Another worker took the second run over (its lease expired): this worker's outcome must not count.
    await t.app
      .get(DataSource)
      .query(
        `UPDATE automation_runs SET locked_by = 'another-worker', attempts = attempts + 1 WHERE id = $1`,
        [lostRun.id],
      );
    const recorder = t.app.get(SentEmailRecorder);
    expect(
      await Promise.all([
        recorder.record(keptRun, message(keptRun)),
        recorder.record(lostRun, message(lostRun)),
      ]),
    ).toEqual([true, false]);
    const messagesOf = async (id: string) =>
      (
        (await (await api('GET', `/${id}`)).json()) as {
          data: { messages: { id: string; status: string }[] };
        }
      ).data.messages;
    expect(await messagesOf(kept)).toEqual([
      expect.objectContaining({ id: keptRun.id, status: 'delivered' }),
    ]);
    expect(await messagesOf(lost)).toEqual([]);
    const statuses = (await t.app.get(AutomationsService).listRuns(tenant.funnelId)).map((r) => [
      r.contactId,
      r.status,
    ]);
    expect(statuses).toEqual(
      expect.arrayContaining([
        [kept, 'succeeded'],
        [lost, 'running'],
      ]),
    );
  });

  it('reads the recipient’s subscription when it claims, not when the change happened', async () => {
    const [subscribed, unsubscribed, erased] = [
      await createContact('stays@example.com'),
      await createContact('leaves@example.com'),
      await createContact('erased@example.com'),
    ];
    const put = await api('PUT', `/${unsubscribed}/email-subscription`, { subscribed: false });
    expect(put.status).toBe(200);
    // Gone between the change and the claim (erasure through the API takes its runs with it).
    await t.app.get(DataSource).query('DELETE FROM contacts WHERE id = $1', [erased]);
    const recipients = Object.fromEntries((await claimAll()).map((run) => [run.contactId, run.recipient]));
    expect(recipients).toEqual({
      [subscribed]: { unsubscribed: false },
      [unsubscribed]: { unsubscribed: true },
      [erased]: null,
    });
  });
});
