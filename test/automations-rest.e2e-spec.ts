import { AutomationsService } from '@app/automations';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';

jest.setTimeout(60_000);

/** Message automations listed, created, disabled and deleted by an integration over REST. */
describe('Automations REST API', () => {
  let t: TestApp;
  let tenant: TenantFixture;
  let other: TenantFixture;

  beforeAll(async () => {
    t = await startTestApp({ AUTOMATION_WORKER_ENABLED: 'false' });
    tenant = await createTenant(t.app, { contactStatuses: ['lead', 'won'] });
    other = await createTenant(t.app);
  });
  afterAll(() => t.close());

  const call = async (
    method: string,
    path: string,
    body?: unknown,
    key = tenant.key,
    funnelId = tenant.funnelId,
  ) => {
    const res = await fetch(`${t.baseUrl}/v1/funnels/${funnelId}/automations${path}`, {
      method,
      headers: { 'x-service-api-key': key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      location: res.headers.get('location'),
      body: text ? JSON.parse(text) : null,
    };
  };

  it('creates, lists, disables and deletes a message automation', async () => {
    const created = await call('POST', '', {
      on: 'status:won',
      message: 'email',
      subject: 'Congrats {{firstName}}',
      template: 'Well done {{firstName}}',
      tracking: false,
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect(created.location).toBe(`/v1/funnels/${tenant.funnelId}/automations/${id}`);
    expect(created.body.data).toMatchObject({
      name: 'email message on status:won',
      trigger: 'status:won',
      enabled: true,
      action: 'message',
      messageChannel: 'email',
      tracking: false,
    });
    expect((await call('GET', '')).body.data.map((a: { id: string }) => a.id)).toContain(id);

    const disabled = await call('PATCH', `/${id}`, { enabled: false });
    expect([disabled.status, disabled.body.data.enabled]).toEqual([200, false]);
    expect((await call('PATCH', `/${id}`, { enabled: 'no' })).body).toMatchObject({
      error: 'enabled must be true or false',
    });

    expect((await call('DELETE', `/${id}`)).status).toBe(204);
    expect((await call('DELETE', `/${id}`)).status).toBe(404);
  });

  it('answers a funnel id spelled in capitals as the same funnel, after creating and for each later call', async () => {
    const upper = tenant.funnelId.toUpperCase();
    const created = await call(
      'POST',
      '',
      { on: 'contact.created', message: 'email', template: 'Hi' },
      tenant.key,
      upper,
    );
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect((await call('PATCH', `/${id}`, { enabled: false }, tenant.key, upper)).status).toBe(200);
    expect((await call('DELETE', `/${id}`, undefined, tenant.key, upper)).status).toBe(204);
    expect((await call('GET', '')).body.data.map((a: { id: string }) => a.id)).not.toContain(id);
  });

  it('applies the checks of the admin CLI and refuses webhooks, which have their own routes', async () => {
    const refused = [
      [{ on: 'status:unknown', message: 'sms', template: 'x' }, 'is not a status of this funnel'],
      [{ on: 'contact.created', message: 'email', template: 'Hi {{firstname}}' }, 'unknown contact field'],
      [
        { on: 'contact.created', message: 'sms', subject: 'x', template: 'x' },
        '--subject is only for --message email',
      ],
      [{ on: 'contact.created', message: 'fax', template: 'x' }, '--message must be email or sms'],
    ] as const;
    for (const [body, error] of refused) {
      const res = await call('POST', '', body);
      expect([res.status, res.body.error]).toEqual([400, expect.stringContaining(error)]);
    }
    const webhook = await call('POST', '', { on: 'contact.created', webhook: 'http://127.0.0.1/x' });
    expect(webhook.status).toBe(400);
    // An operator's webhook automation is listed but not changed here.
    const { id } = await t.app
      .get(AutomationsService)
      .create({ funnelId: tenant.funnelId, on: 'contact.created', webhook: 'https://hooks.example/x' });
    const listed = (await call('GET', '')).body.data.find((a: { id: string }) => a.id === id);
    expect(listed).toMatchObject({ action: 'webhook', signed: false });
    expect((await call('DELETE', `/${id}`)).body.error).toMatch(/^only message automations are managed here/);
    expect((await call('GET', '')).body.data.map((a: { id: string }) => a.id)).toContain(id);
  });

  it("never reaches another company's funnel or automations, and needs crm:write", async () => {
    const { body } = await call('POST', '', { on: 'contact.created', message: 'sms', template: 'Hi' });
    const id = body.data.id as string;
    expect((await call('GET', '', undefined, other.key)).status).toBe(404);
    expect((await call('DELETE', `/${id}`, undefined, other.key, other.funnelId)).status).toBe(404);
    expect((await call('PATCH', `/${id}`, { enabled: false }, other.key, other.funnelId)).status).toBe(404);
    const reader = await tenant.keyFor('crm:read');
    expect((await call('GET', '', undefined, reader)).status).toBe(403);
    expect(
      (await call('POST', '', { on: 'contact.created', message: 'sms', template: 'x' }, reader)).status,
    ).toBe(403);
    expect((await call('GET', '')).body.data.find((a: { id: string }) => a.id === id).enabled).toBe(true);
  });
});
