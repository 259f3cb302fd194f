import { createHmac } from 'node:crypto';
import { AutomationsService } from '@app/automations';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { eventually, ReceivedRequest, WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(90_000);

const SECRET = 'gateway-secret-0123456789-abcdefghij';
const sign = (body: string, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** SMS through the operator's gateway: a real HTTP gateway the test runs, its status reports included. */
describe('SMS gateway', () => {
  let t: TestApp;
  let gateway: WebhookReceiver;
  let tenant: TenantFixture;

  beforeAll(async () => {
    gateway = await WebhookReceiver.start();
    t = await startTestApp({
      SMS_GATEWAY_URL: gateway.url,
      SMS_GATEWAY_SECRET: SECRET,
      AUTOMATION_POLL_INTERVAL_MS: '20',
      AUTOMATION_RETRY_BASE_MS: '20',
      AUTOMATION_RETRY_MAX_MS: '40',
    });
  });
  beforeEach(async () => {
    tenant = await createTenant(t.app);
    gateway.requests.length = 0;
    gateway.respond = () => 202;
    await t.app.get(AutomationsService).create({
      funnelId: tenant.funnelId,
      on: 'contact.created',
      message: 'sms',
      template: 'Hi {{firstName}}, your code is 1234',
    });
  });
  afterAll(async () => {
    await t.close();
    await gateway.close();
  });

  const createContact = async (body: object) => {
    const res = await fetch(`${t.baseUrl}/v1/funnels/${tenant.funnelId}/contacts`, {
      method: 'POST',
      headers: { 'x-service-api-key': tenant.key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { data: { id: string } }).data.id;
  };
  const messagesOf = async (contactId: string) => {
    const res = await fetch(`${t.baseUrl}/v1/funnels/${tenant.funnelId}/contacts/${contactId}`, {
      headers: { 'x-service-api-key': tenant.key },
    });
    return ((await res.json()) as { data: { messages: Record<string, unknown>[] } }).data.messages;
  };
  const runOf = (contactId: string) =>
    eventually(async () =>
      (await t.app.get(AutomationsService).listRuns(tenant.funnelId)).find(
        (r) => r.contactId === contactId && ['succeeded', 'failed', 'skipped'].includes(r.status),
      ),
    );
  /** The gateway's report, POSTed as the gateway would: signed over the exact bytes. */
  const report = (body: string, signature: string | null = sign(body)) =>
    fetch(`${t.baseUrl}/sms/status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(signature ? { 'x-signature': signature } : {}) },
      body,
    });
  const kpi = async (subtype: string) => {
    const day = new Date().toISOString().slice(0, 10);
    const res = await fetch(
      `${t.baseUrl}/v1/funnels/${tenant.funnelId}/metrics/kpis/${subtype}?from=${day}&to=${day}`,
      { headers: { 'x-service-api-key': tenant.key } },
    );
    return ((await res.json()) as { data: { value: number | null } }).data;
  };
  const verified = (request: ReceivedRequest) =>
    request.headers['x-signature'] === sign(request.rawBody.toString('utf8'));

  it('sends a signed request per message, retries a refusal with the same message id, and records the delivery the gateway reports', async () => {
    gateway.respond = (_request, index) => (index === 0 ? 503 : 202);
    const contactId = await createContact({ phone: '+4915112345678', firstName: 'Ada' });
    const [refused, accepted] = await gateway.waitFor(2);
    const run = await runOf(contactId);
    expect(run).toMatchObject({ status: 'succeeded', attempts: 2 });
    for (const request of [refused, accepted]) {
      expect(verified(request)).toBe(true);
      expect(request.headers['x-message-id']).toBe(run.id);
    }
    expect(accepted.json).toEqual({
      messageId: run.id,
      to: '+4915112345678',
      body: 'Hi Ada, your code is 1234',
      statusCallbackUrl: expect.stringMatching(/\/sms\/status$/),
    });
    const [sent] = await messagesOf(contactId);
    expect(sent).toMatchObject({ id: run.id, type: 'sms', status: 'sent', clicks: 0 });
    expect(sent).not.toHaveProperty('deliveredAt');

    const delivered = JSON.stringify({ messageId: run.id, status: 'delivered' });
    expect((await report(delivered)).status).toBe(204);
    const [message] = await messagesOf(contactId);
    expect(message).toMatchObject({ status: 'delivered', sentAt: sent.sentAt });
    expect(Date.parse(message.deliveredAt as string)).toBeGreaterThanOrEqual(
      Date.parse(sent.sentAt as string),
    );
    await eventually(async () => (await kpi('kpi_messages_delivery_rate')).value === 100);
    // The first report counts: a later failure report changes nothing.
    const late = JSON.stringify({ messageId: run.id, status: 'failed', error: 'late' });
    expect((await report(late)).status).toBe(204);
    expect(await messagesOf(contactId)).toEqual([message]);
  });

  it('refuses a report whose signature is missing, altered or made with another secret, and changes nothing', async () => {
    const contactId = await createContact({ phone: '+4915112345679', firstName: 'Grace' });
    const run = await runOf(contactId);
    const delivered = JSON.stringify({ messageId: run.id, status: 'delivered' });
    const signature = sign(delivered);
    for (const [body, header] of [
      [delivered, null],
      [delivered, sign(delivered, 'another-secret-0123456789-abcdefghij')],
      [delivered, `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`],
      // A body changed after signing: the signature no longer matches it.
      [JSON.stringify({ messageId: run.id, status: 'failed' }), signature],
    ] as const) {
      const res = await report(body, header);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        error: 'The X-Signature of this status report is missing or wrong',
        status: 401,
      });
    }
    const [message] = await messagesOf(contactId);
    expect(message).toMatchObject({ status: 'sent' });
    expect((await kpi('kpi_messages_delivery_rate')).value).toBe(0);
  });

  it('records a failure report with its reason; an unknown message is a 404 and a bad report a 400', async () => {
    const contactId = await createContact({ phone: '+4915112345670', firstName: 'Lin' });
    const run = await runOf(contactId);
    const failed = JSON.stringify({
      messageId: run.id,
      status: 'failed',
      error: '30003 Unreachable handset',
    });
    expect((await report(failed)).status).toBe(204);
    const [message] = await messagesOf(contactId);
    expect(message).toMatchObject({ status: 'failed', failure: '30003 Unreachable handset' });
    expect(message).not.toHaveProperty('deliveredAt');

    const unknown = JSON.stringify({
      messageId: '00000000-0000-4000-8000-000000000000',
      status: 'delivered',
    });
    expect((await report(unknown)).status).toBe(404);
    const bad = JSON.stringify({ messageId: run.id, status: 'read' });
    const res = await report(bad);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { details: string[] }).details).toEqual([
      'status must be delivered or failed',
    ]);
  });

  it('skips a contact without a phone number, sending nothing', async () => {
    const contactId = await createContact({ email: 'no-phone@example.com' });
    const run = await runOf(contactId);
    expect(run).toMatchObject({ status: 'skipped', lastError: 'skipped: the contact has no phone number' });
    expect(gateway.requests).toEqual([]);
    expect(await messagesOf(contactId)).toEqual([]);
  });
});
