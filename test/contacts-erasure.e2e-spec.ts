import { DataSource } from 'typeorm';
import { AutomationsService } from '@app/automations';
import { startTestApp, TestApp } from './support/app';
import { insertMessage } from './support/contacts';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import type { Contact } from '@app/contacts';

describe('DELETE /v1/funnels/{funnelId}/contacts/{contactId}', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let api: ReturnType<typeof httpClient>;
  let path: string;
  let db: DataSource;
  const from = new Date(Date.now() - 3_600_000).toISOString();
  const period = () => `from=${from}&to=${new Date(Date.now() + 60_000).toISOString()}`;
  const count = async (sql: string, params: unknown[]) =>
    Number((await db.query(`SELECT count(*) AS n FROM ${sql}`, params))[0].n);
  const kpi = async (subtype: string) =>
    (await api.get(`/v1/funnels/${acme.funnelId}/metrics/kpis/${subtype}?${period()}`)).body.data.value;

  beforeAll(async () => {
    // Runs stay in the outbox, so what erasure does to them can be read.
    t = await startTestApp({ AUTOMATION_WORKER_ENABLED: 'false' });
    db = t.app.get(DataSource);
    acme = await createTenant(t.app);
    api = httpClient(t.baseUrl, acme.key);
    path = `/v1/funnels/${acme.funnelId}/contacts`;
    const automations = t.app.get(AutomationsService);
    for (const on of ['contact.created', 'contact.deleted'])
      await automations.create({ funnelId: acme.funnelId, on, webhook: 'https://hooks.example.com/crm' });
  });
  afterAll(() => t.close());

  /** A contact with history, a message, an idempotent creation, a pending run and a conversion. */
  async function richContact(email: string): Promise<string> {
    const created = await api.post(path, { email, firstName: 'Erin' }, { 'Idempotency-Key': `key-${email}` });
    const id: string = created.body.data.id;
    await api.put(`${path}/${id}/values`, { fieldName: 'lastName', value: 'Example' });
    await insertMessage(t.app, { id, funnelId: acme.funnelId } as Contact, { content: `Hello ${email}` });
    const at = new Date().toISOString();
    const events = await api.post(`/v1/funnels/${acme.funnelId}/events`, {
      events: [
        { type: 'session_start', sessionId: `s-${email}`, occurredAt: at, visitorId: 'v', device: 'mobile' },
        { type: 'conversion', sessionId: `s-${email}`, occurredAt: at, contactId: id },
      ],
    });
    expect(events.status).toBe(202);
    return id;
  }

  it('erases the contact and everything holding its data in one go, keeping the anonymous counts', async () => {
    const keep = await richContact('keep@example.com');
    const id = await richContact('erin@example.com');
    const before = {
      total: (await api.get(path)).body.meta.total,
      newContacts: await kpi('kpi_new_contacts'),
      sent: await kpi('kpi_messages_sent'),
      conversion: await kpi('kpi_conversion_rate'),
    };
    expect(await count('automation_runs WHERE contact_id = $1', [id])).toBe(1);

    const res = await api.send('DELETE', `${path}/${id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();

    expect((await api.get(`${path}/${id}`)).status).toBe(404);
    expect(await count('contacts WHERE id = $1', [id])).toBe(0);
    expect(await count('contact_field_values WHERE contact_id = $1', [id])).toBe(0);
    expect(await count('contact_messages WHERE contact_id = $1', [id])).toBe(0);
    expect(await count(`idempotency_keys WHERE key = 'key-erin@example.com'`, [])).toBe(0);
    expect(await count(`metric_events WHERE payload::text LIKE '%' || $1 || '%'`, [id])).toBe(0);
    // Nothing anywhere still holds the email address.
    for (const table of ['contacts', 'automation_runs', 'idempotency_keys', 'contact_messages']) {
      expect(await count(`${table} t WHERE t::text LIKE '%erin@example.com%'`, [])).toBe(0);
    }
    // The only run left is contact.deleted, with ids only.
    const runs: { payload: unknown; status: string }[] = await db.query(
      'SELECT payload, status FROM automation_runs WHERE contact_id = $1',
      [id],
    );
    expect(runs).toEqual([
      {
        status: 'pending',
        payload: {
          event: 'contact.deleted',
          funnelId: acme.funnelId,
          contact: { id },
          change: null,
          occurredAt: expect.stringMatching(/^\d{4}-/),
        },
      },
    ]);

    expect((await api.get(path)).body.meta.total).toBe(before.total - 1);
    expect(await kpi('kpi_new_contacts')).toBe(before.newContacts);
    expect(await kpi('kpi_messages_sent')).toBe(before.sent);
    expect(await kpi('kpi_conversion_rate')).toBe(before.conversion);
    // The other contact is untouched.
    expect((await api.get(`${path}/${keep}`)).body.data.email).toBe('keep@example.com');
    expect(await count(`metric_events WHERE payload::text LIKE '%' || $1 || '%'`, [keep])).toBe(1);
  });

  it('answers 404 the second time', async () => {
    const id = (await api.post(path, { email: 'twice@example.com' })).body.data.id;
    expect((await api.send('DELETE', `${path}/${id}`)).status).toBe(204);
    const again = await api.send('DELETE', `${path}/${id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'Contact not found', status: 404 });
  });

  it("answers 404 for another company's contact and leaves it", async () => {
    const other = await createTenant(t.app);
    const otherApi = httpClient(t.baseUrl, other.key);
    const theirs = (await otherApi.post(`/v1/funnels/${other.funnelId}/contacts`, { email: 'x@example.com' }))
      .body.data.id;
    expect((await api.send('DELETE', `/v1/funnels/${other.funnelId}/contacts/${theirs}`)).status).toBe(404);
    expect((await api.send('DELETE', `${path}/${theirs}`)).status).toBe(404);
    expect((await otherApi.get(`/v1/funnels/${other.funnelId}/contacts/${theirs}`)).status).toBe(200);
  });

  it('needs crm:write', async () => {
    const id = (await api.post(path, { email: 'guarded@example.com' })).body.data.id;
    const reader = httpClient(t.baseUrl, await acme.keyFor('crm:read'));
    const res = await reader.send('DELETE', `${path}/${id}`);
    expect(res.status).toBe(403);
    expect((await api.get(`${path}/${id}`)).status).toBe(200);
  });

  it('answers 400 for an id that is not a UUID', async () => {
    const res = await api.send('DELETE', `${path}/42`);
    expect(res).toMatchObject({ status: 400, body: { error: 'contactId must be a UUID' } });
  });
});
