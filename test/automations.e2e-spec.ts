import { createHmac, timingSafeEqual } from 'node:crypto';
import { AutomationsService } from '@app/automations';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { eventually, ReceivedRequest, WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(60_000);

const SECRET = 'contacts-webhook-secret-42';

/** Automations as a user sees them: contacts written over REST, webhooks and messages delivered. */
describe('Automations triggered through the contacts API', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let tenant: TenantFixture;

  beforeAll(async () => {
    t = await startTestApp({
      AUTOMATION_POLL_INTERVAL_MS: '20',
      AUTOMATION_RETRY_BASE_MS: '20',
      AUTOMATION_RETRY_MAX_MS: '40',
      RATE_LIMIT_PER_MINUTE: '10000',
    });
    receiver = await WebhookReceiver.start();
  });
  beforeEach(async () => {
    tenant = await createTenant(t.app, { contactStatuses: ['lead', 'qualified', 'converted'] });
    receiver.requests.length = 0;
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  const automation = (on: string, action: { webhook?: string; secret?: string } | object = {}) =>
    t.app.get(AutomationsService).create({
      funnelId: tenant.funnelId,
      on,
      ...(Object.keys(action).length ? action : { webhook: receiver.url }),
    });
  const call = async (method: string, path: string, body?: object) => {
    const res = await fetch(`${t.baseUrl}/v1/funnels/${tenant.funnelId}/contacts${path}`, {
      method,
      headers: { 'x-service-api-key': tenant.key, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
  };
  const createContact = (body: object) => call('POST', '', body);
  const setValue = (contactId: string, body: object) => call('PUT', `/${contactId}/values`, body);
  const runsOf = async (contactId: string) =>
    (await t.app.get(AutomationsService).listRuns(tenant.funnelId)).filter((r) => r.contactId === contactId);
  const delivered = (runId: string): Promise<ReceivedRequest> =>
    eventually(async () => receiver.requests.find((r) => r.headers['x-automation-run-id'] === runId));

  it('POSTs a signed contact.created event whose contact is the created Contact', async () => {
    await automation('contact.created', { webhook: receiver.url, secret: SECRET });
    const created = await createContact({ email: 'ada@example.com', firstName: 'Ada' });
    expect(created.status).toBe(201);
    const [run] = await runsOf(String(created.body.data.id));
    const request = await delivered(run.id);

    const signature = Buffer.from(String(request.headers['x-signature']).replace(/^sha256=/, ''), 'hex');
    const expected = createHmac('sha256', SECRET).update(request.rawBody).digest();
    expect(signature.length).toBe(expected.length);
    expect(timingSafeEqual(signature, expected)).toBe(true);
    expect(request.json).toEqual({
      event: 'contact.created',
      funnelId: tenant.funnelId,
      contact: created.body.data,
      change: null,
      occurredAt: expect.any(String),
    });
  });

  it('writes no run when skipAutomationTrigger is true on create, and one when it is false or absent', async () => {
    await automation('contact.created');
    const skipped = await createContact({ email: 'skip@example.com', skipAutomationTrigger: true });
    const explicit = await createContact({ email: 'run@example.com', skipAutomationTrigger: false });
    const absent = await createContact({ phone: '+4915100000000' });
    expect([skipped.status, explicit.status, absent.status]).toEqual([201, 201, 201]);

    // Runs are written with the contact, so the answer already tells the whole story.
    expect(await runsOf(String(skipped.body.data.id))).toEqual([]);
    expect(await runsOf(String(explicit.body.data.id))).toHaveLength(1);
    const [run] = await runsOf(String(absent.body.data.id));
    await delivered(run.id);
    await eventually(async () => (await runsOf(String(explicit.body.data.id)))[0].status === 'succeeded');
    expect(receiver.requests.map((r) => (r.json.contact as { id: string }).id)).not.toContain(
      skipped.body.data.id,
    );
  });

  it("runs status automations for the contact's initial status", async () => {
    await automation('status:qualified');
    const lead = await createContact({ email: 'lead@example.com' });
    const qualified = await createContact({ email: 'q@example.com', status: 'qualified' });
    expect(await runsOf(String(lead.body.data.id))).toEqual([]);
    expect(await runsOf(String(qualified.body.data.id))).toMatchObject([{ trigger: 'status:qualified' }]);
  });

  it('fires status:<s> and field:status when PUT .../values changes the status, unless skipped', async () => {
    await automation('status:converted');
    await automation('field:status');
    const contact = await createContact({ email: 'grace@example.com' });
    const id = String(contact.body.data.id);

    const skipped = await setValue(id, {
      fieldName: 'status',
      value: 'qualified',
      skipAutomationTrigger: true,
    });
    expect(skipped.status).toBe(200);
    expect(await runsOf(id)).toEqual([]);

    expect((await setValue(id, { fieldName: 'status', value: 'converted' })).status).toBe(200);
    const runs = await runsOf(id);
    expect(runs.map((r) => r.trigger).sort()).toEqual(['field:status', 'status:converted']);
    const requests = await Promise.all(runs.map((r) => delivered(r.id)));
    for (const request of requests) {
      expect(request.json).toMatchObject({
        event: 'contact.field_changed',
        contact: { id, status: 'converted' },
        change: { fieldName: 'status', previousValue: 'qualified', value: 'converted' },
      });
    }
  });

  it('fires field:<name> for a standard field and a custom property, and not for an unchanged value', async () => {
    await automation('field:email');
    await automation('field:plan');
    const contact = await createContact({ email: 'old@example.com' });
    const id = String(contact.body.data.id);

    await setValue(id, { fieldName: 'email', value: 'new@example.com' });
    await setValue(id, { fieldName: 'plan', value: 'pro' });
    await setValue(id, { fieldName: 'email', value: 'new@example.com' });
    await setValue(id, { fieldName: 'city', value: 'Berlin' });
    const runs = await runsOf(id);
    expect(runs.map((r) => r.trigger).sort()).toEqual(['field:email', 'field:plan']);
    const plan = await delivered(runs.find((r) => r.trigger === 'field:plan')!.id);
    expect(plan.json.change).toEqual({ fieldName: 'plan', previousValue: null, value: 'pro' });
    expect((plan.json.contact as { properties: object }).properties).toEqual({ plan: 'pro' });
  });

  it("records rendered messages in the contact's messages", async () => {
    await automation('contact.created', {
      message: 'email',
      subject: 'Welcome {{firstName}}',
      template: 'Hello {{firstName}} from {{address.city}}!',
      name: 'Welcome mail',
    });
    await automation('status:converted', {
      message: 'sms',
      template: 'Congrats {{ firstName }} {{lastName}}',
    });
    const created = await createContact({
      email: 'ada@example.com',
      firstName: 'Ada',
      address: { city: 'London' },
    });
    const id = String(created.body.data.id);
    await setValue(id, { fieldName: 'status', value: 'converted' });

    const contact = await eventually(async () => {
      const res = await call('GET', `/${id}`);
      return (res.body.data.messages as unknown[]).length === 2 ? res.body.data : undefined;
    });
    // Both runs may be delivered in the same batch, so the order of the two messages is not fixed.
    expect(contact.messages).toHaveLength(2);
    expect(contact.messages).toEqual(
      expect.arrayContaining([
        {
          id: expect.any(String),
          name: 'Welcome mail',
          type: 'email',
          subject: 'Welcome Ada',
          content: 'Hello Ada from London!',
          status: 'delivered',
          sentAt: expect.any(String),
          deliveredAt: expect.any(String),
          clicks: 0,
        },
        {
          id: expect.any(String),
          name: 'sms message on status:converted',
          type: 'sms',
          content: 'Congrats Ada ',
          status: 'recorded',
          clicks: 0,
        },
      ]),
    );
    expect((await runsOf(id)).map((r) => [r.status, r.attempts])).toEqual([
      ['succeeded', 1],
      ['succeeded', 1],
    ]);
    // No webhook was involved.
    expect(receiver.requests).toEqual([]);
  });
});
