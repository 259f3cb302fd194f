import { createHmac } from 'node:crypto';
import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { WebhookReceiver } from './support/webhook-receiver';

const FAST_WORKER = {
  AUTOMATION_POLL_INTERVAL_MS: '20',
  AUTOMATION_RETRY_BASE_MS: '20',
  AUTOMATION_RETRY_MAX_MS: '40',
  AUTOMATION_MAX_ATTEMPTS: '2',
};
const eventually = async <T>(read: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

describe('/v1/funnels/{funnelId}/webhooks (REST hooks)', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let api: ReturnType<typeof httpClient>;
  let hooks: string;
  let contacts: string;
  let receiver: WebhookReceiver;
  const lastErrors = async (subscriptionId: string): Promise<string[]> =>
    (
      await t.app
        .get(DataSource)
        .query(
          'SELECT r.last_error FROM automation_runs r JOIN automations a ON a.id = r.automation_id WHERE a.subscription_id = $1',
          [subscriptionId],
        )
    ).map((r: { last_error: string | null }) => r.last_error);

  beforeAll(async () => {
    // Development allowance: a receiver on loopback may be subscribed and delivered to.
    t = await startTestApp({ ...FAST_WORKER, WEBHOOK_ALLOW_LOOPBACK_TARGETS: 'true' });
    acme = await createTenant(t.app);
    api = httpClient(t.baseUrl, acme.key);
    hooks = `/v1/funnels/${acme.funnelId}/webhooks`;
    contacts = `/v1/funnels/${acme.funnelId}/contacts`;
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.respond = () => 200;
  });

  it('subscribes, shows the secret once, lists and reads the subscription', async () => {
    const res = await api.post(hooks, { targetUrl: receiver.url, events: ['contact.created'] });
    expect(res.status).toBe(201);
    const { secret, ...subscription } = res.body.data;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(subscription).toEqual({
      id: expect.any(String),
      targetUrl: receiver.url,
      events: ['contact.created'],
      createdAt: expect.stringMatching(/^\d{4}-/),
    });
    expect(res.headers.get('location')).toBe(`${hooks}/${subscription.id}`);
    expect((await api.get(res.headers.get('location')!)).body).toEqual({ data: subscription });
    expect((await api.get(hooks)).body.data).toContainEqual(subscription);
    // Stored encrypted, never in clear.
    const stored: { s: string }[] = await t.app
      .get(DataSource)
      .query('SELECT webhook_secret_encrypted AS s FROM automations WHERE subscription_id = $1', [
        subscription.id,
      ]);
    expect(stored).toHaveLength(1);
    expect(stored[0].s).not.toContain(secret);
    expect((await api.send('DELETE', `${hooks}/${subscription.id}`)).status).toBe(204);
  });

  it('delivers the events, signed with the secret, once per change', async () => {
    const created = await api.post(hooks, {
      targetUrl: receiver.url,
      events: ['contact.created', 'contact.updated', 'status:converted'],
    });
    const { id, secret } = created.body.data;
    const contact = (await api.post(contacts, { email: 'hook@example.com' })).body.data;
    const [first] = await receiver.waitFor(1);
    expect(first.headers['x-signature']).toBe(
      `sha256=${createHmac('sha256', secret).update(first.rawBody).digest('hex')}`,
    );
    expect(first.headers['x-webhook-subscription-id']).toBe(id);
    expect(first.json).toMatchObject({ event: 'contact.created', contact: { id: contact.id } });

    // A status change matches contact.updated and status:converted: delivered once.
    await api.put(`${contacts}/${contact.id}/values`, { fieldName: 'status', value: 'converted' });
    const [, second] = await receiver.waitFor(2);
    expect(second.json).toMatchObject({
      event: 'contact.field_changed',
      change: { fieldName: 'status', previousValue: 'lead', value: 'converted' },
    });
    // Once every run of the subscription has succeeded, no delivery of it is left in flight.
    const statuses = await eventually(async () => {
      const rows: { status: string }[] = await t.app
        .get(DataSource)
        .query(
          'SELECT r.status FROM automation_runs r JOIN automations a ON a.id = r.automation_id WHERE a.subscription_id = $1',
          [id],
        );
      return rows.every((r) => r.status === 'succeeded') && rows.map((r) => r.status);
    });
    expect(statuses).toEqual(['succeeded', 'succeeded']);
    expect(receiver.requests).toHaveLength(2);
    await api.send('DELETE', `${hooks}/${id}`);
  });

  it('delivers contact.deleted with ids only', async () => {
    const { id } = (await api.post(hooks, { targetUrl: receiver.url, events: ['contact.deleted'] })).body
      .data;
    const contact = (await api.post(contacts, { email: 'gone@example.com' })).body.data;
    expect((await api.send('DELETE', `${contacts}/${contact.id}`)).status).toBe(204);
    const [request] = await receiver.waitFor(1);
    expect(request.json).toEqual({
      event: 'contact.deleted',
      funnelId: acme.funnelId,
      contact: { id: contact.id },
      change: null,
      occurredAt: expect.stringMatching(/^\d{4}-/),
    });
    await api.send('DELETE', `${hooks}/${id}`);
  });

  it('removes the subscription when the target answers 410', async () => {
    receiver.respond = () => 410;
    const { id } = (await api.post(hooks, { targetUrl: receiver.url, events: ['contact.created'] })).body
      .data;
    await api.post(contacts, { email: 'gone410@example.com' });
    await receiver.waitFor(1);
    await eventually(async () => (await api.get(`${hooks}/${id}`)).status === 404);
    const left = await t.app
      .get(DataSource)
      .query('SELECT 1 FROM automations WHERE subscription_id = $1', [id]);
    expect(left).toEqual([]);
  });

  it('does not follow a redirect', async () => {
    receiver.respond = () => 302;
    const { id } = (await api.post(hooks, { targetUrl: receiver.url, events: ['contact.created'] })).body
      .data;
    await api.post(contacts, { email: 'redirect@example.com' });
    await eventually(async () => (await lastErrors(id)).some((e) => e?.startsWith('HTTP 302')));
    await api.send('DELETE', `${hooks}/${id}`);
  });

  it('refuses a target again at delivery (DNS or data changed since subscribing)', async () => {
    const { id } = (await api.post(hooks, { targetUrl: receiver.url, events: ['contact.created'] })).body
      .data;
    await t.app
      .get(DataSource)
      .query(`UPDATE automations SET webhook_url = 'http://10.20.30.40/hooks' WHERE subscription_id = $1`, [
        id,
      ]);
    await api.post(contacts, { email: 'rebound@example.com' });
    await eventually(async () =>
      (await lastErrors(id)).includes('target refused: targetUrl resolves to a private address'),
    );
    expect(receiver.requests).toHaveLength(0);
    await api.send('DELETE', `${hooks}/${id}`);
  });

  it.each([
    ['http://10.0.0.1/h', 'targetUrl resolves to a private address'],
    ['http://172.16.5.4/h', 'targetUrl resolves to a private address'],
    ['http://192.168.1.1/h', 'targetUrl resolves to a private address'],
    ['http://[fd12::1]/h', 'targetUrl resolves to a private address'],
    ['http://[::ffff:10.0.0.1]/h', 'targetUrl resolves to a private address'],
    ['http://169.254.10.1/h', 'targetUrl resolves to a link-local address'],
    ['http://[fe80::1]/h', 'targetUrl resolves to a link-local address'],
    ['http://169.254.169.254/latest/meta-data/', 'targetUrl resolves to a cloud metadata address'],
    ['http://[fd00:ec2::254]/', 'targetUrl resolves to a cloud metadata address'],
    ['http://100.100.100.200/', 'targetUrl resolves to a cloud metadata address'],
    ['http://168.63.129.16/', 'targetUrl resolves to a cloud metadata address'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'targetUrl names a cloud metadata service'],
    ['http://0.0.0.0/h', 'targetUrl resolves to a non-public (unspecified) address'],
    // IPv6 carrying a refused IPv4 address: mapped, compatible, SIIT, NAT64, 6to4; Teredo outright.
    ['http://[::169.254.169.254]/latest/meta-data/', 'targetUrl resolves to a cloud metadata address'],
    ['http://[::a9fe:a9fe]/', 'targetUrl resolves to a cloud metadata address'],
    ['http://[::10.0.0.1]/h', 'targetUrl resolves to a private address'],
    ['http://[::ffff:0:10.0.0.1]/h', 'targetUrl resolves to a private address'],
    ['http://[::ffff:169.254.169.254]/', 'targetUrl resolves to a cloud metadata address'],
    ['http://[64:ff9b::169.254.169.254]/', 'targetUrl resolves to a cloud metadata address'],
    ['http://[64:ff9b::c0a8:101]/h', 'targetUrl resolves to a private address'],
    ['http://[64:ff9b:1::5db8:d822]/h', 'targetUrl resolves to a private address'],
    ['http://[2002:a9fe:a9fe::]/', 'targetUrl resolves to a cloud metadata address'],
    ['http://[2002:ac10:504::1]/h', 'targetUrl resolves to a private address'],
    [
      'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/h',
      'targetUrl resolves to a non-public (teredo) address',
    ],
    ['ftp://93.184.216.34/h', 'targetUrl must be http(s)'],
    ['https://user:pw@93.184.216.34/h', 'targetUrl must not carry credentials'],
    ['https://no-such-host.invalid/h', 'targetUrl host does not resolve'],
  ])('refuses %s when subscribing', async (targetUrl, error) => {
    const res = await api.post(hooks, { targetUrl, events: ['contact.created'] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error, status: 400 });
  });

  it.each([
    [{ targetUrl: 'https://93.184.216.34/h' }, 'events must be a non-empty list'],
    [{ targetUrl: 'https://93.184.216.34/h', events: ['field:city'] }, 'events must be a non-empty list'],
    [
      { targetUrl: 'https://93.184.216.34/h', events: ['status:vip'] },
      'status:vip is not a status of this funnel',
    ],
    [{ events: ['contact.created'] }, 'targetUrl must be an http(s) URL'],
    [
      { targetUrl: 'https://93.184.216.34/h', events: ['contact.created'], secret: 'x' },
      'secret is not a recognised',
    ],
  ])('answers 400 for %j', async (body, error) => {
    const res = await api.post(hooks, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(error);
  });

  it('accepts a public https target and unsubscribes once', async () => {
    const res = await api.post(hooks, { targetUrl: 'https://93.184.216.34/hook', events: ['status:lead'] });
    expect(res.status).toBe(201);
    expect((await api.send('DELETE', `${hooks}/${res.body.data.id}`)).status).toBe(204);
    expect((await api.send('DELETE', `${hooks}/${res.body.data.id}`)).status).toBe(404);
  });

  it('needs webhooks:write for every route', async () => {
    const crm = httpClient(
      t.baseUrl,
      await acme.keyFor('crm:read', 'crm:write', 'metrics:read', 'events:write'),
    );
    const id = '00000000-0000-4000-8000-000000000000';
    for (const res of [
      await crm.post(hooks, { targetUrl: 'https://93.184.216.34/h', events: ['contact.created'] }),
      await crm.get(hooks),
      await crm.send('DELETE', `${hooks}/${id}`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: 'API key lacks the required permission: webhooks:write',
        status: 403,
      });
    }
  });

  it("answers 404 for another company's funnel or subscription", async () => {
    const other = await createTenant(t.app);
    const theirs = (
      await httpClient(t.baseUrl, other.key).post(`/v1/funnels/${other.funnelId}/webhooks`, {
        targetUrl: 'https://93.184.216.34/h',
        events: ['contact.created'],
      })
    ).body.data.id;
    expect((await api.get(`/v1/funnels/${other.funnelId}/webhooks`)).status).toBe(404);
    expect((await api.post(`/v1/funnels/${other.funnelId}/webhooks`, {})).status).toBe(404);
    expect((await api.get(`${hooks}/${theirs}`)).status).toBe(404);
    expect((await api.send('DELETE', `${hooks}/${theirs}`)).status).toBe(404);
    expect((await api.send('DELETE', `/v1/funnels/${other.funnelId}/webhooks/${theirs}`)).status).toBe(404);
  });
});

describe('/v1/funnels/{funnelId}/webhooks without the loopback allowance', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await startTestApp(FAST_WORKER);
    acme = await createTenant(t.app);
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it.each(['http://127.0.0.1:9/h', 'http://localhost:9/h', 'http://[::1]:9/h', 'http://127.1.2.3/h'])(
    'refuses the loopback target %s when subscribing',
    async (targetUrl) => {
      const res = await httpClient(t.baseUrl, acme.key).post(`/v1/funnels/${acme.funnelId}/webhooks`, {
        targetUrl,
        events: ['contact.created'],
      });
      expect(res.body).toEqual({ error: 'targetUrl resolves to a loopback address', status: 400 });
    },
  );

  it('refuses a loopback target at delivery', async () => {
    const db = t.app.get(DataSource);
    // As if the name had resolved to a public address when it subscribed.
    const [{ id }] = await db.query(
      `INSERT INTO webhook_subscriptions (id, funnel_id, company_id, target_url, events)
       VALUES (gen_random_uuid(), $1, $2, $3, '{contact.created}') RETURNING id`,
      [acme.funnelId, acme.companyId, receiver.url],
    );
    await db.query(
      `INSERT INTO automations (id, funnel_id, company_id, subscription_id, name, trigger, action, webhook_url)
       VALUES (gen_random_uuid(), $1, $2, $3, 'hook', 'contact.created', 'webhook', $4)`,
      [acme.funnelId, acme.companyId, id, receiver.url],
    );
    await httpClient(t.baseUrl, acme.key).post(`/v1/funnels/${acme.funnelId}/contacts`, {
      email: 'l@example.com',
    });
    const run = await eventually(async () => {
      const [row] = await db.query(
        `SELECT status, last_error FROM automation_runs r JOIN automations a ON a.id = r.automation_id
         WHERE a.subscription_id = $1 AND r.status = 'failed'`,
        [id],
      );
      return row as { status: string; last_error: string } | undefined;
    });
    expect(run.last_error).toBe('target refused: targetUrl resolves to a loopback address');
    expect(receiver.requests).toHaveLength(0);
  });
});
