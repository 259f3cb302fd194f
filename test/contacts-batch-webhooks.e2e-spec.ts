import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

// With the real automations: a batch queues a delivery per created contact and per changed one,
// as the single writes do.
describe('POST …/contacts/batch and webhook subscriptions', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let api: ReturnType<typeof httpClient>;

  beforeAll(async () => {
    t = await startTestApp();
    acme = await createTenant(t.app);
    api = httpClient(t.baseUrl, acme.key);
  });
  afterAll(() => t.close());

  it('queues one run per created contact and per changed field of an updated one', async () => {
    const batchPath = `/v1/funnels/${acme.funnelId}/contacts/batch`;
    const existing = await api.post(batchPath, {
      contacts: [{ email: 'known@example.com' }],
      skipAutomationTrigger: true,
    });
    expect(existing.status).toBe(200);
    const hook = await api.post(`/v1/funnels/${acme.funnelId}/webhooks`, {
      targetUrl: 'https://93.184.216.34/hooks',
      events: ['contact.created', 'contact.updated'],
    });
    expect(hook.status).toBe(201);

    const res = await api.post(batchPath, {
      upsertBy: 'email',
      contacts: [
        { email: 'known@example.com', firstName: 'Known' },
        { email: 'new1@example.com' },
        { email: 'new2@example.com' },
        { email: 'skipped@example.com', skipAutomationTrigger: true },
      ],
    });
    expect(res.status).toBe(200);
    const runs: { event: string; contact_id: string }[] = await t.app
      .get(DataSource)
      .query(
        'SELECT event, contact_id FROM automation_runs WHERE funnel_id = $1 ORDER BY event, contact_id',
        [acme.funnelId],
      );
    const ids = res.body.data.map((d: { data: { id: string } }) => d.data.id);
    expect(runs).toEqual(
      [
        { event: 'contact.created', contact_id: ids[1] },
        { event: 'contact.created', contact_id: ids[2] },
        { event: 'contact.field_changed', contact_id: ids[0] },
      ].sort((a, b) => (a.event + a.contact_id).localeCompare(b.event + b.contact_id)),
    );
  });
});
