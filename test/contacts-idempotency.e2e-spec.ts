import { DataSource } from 'typeorm';
import { FunnelsService } from '@app/workspaces';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

describe('POST /v1/funnels/{funnelId}/contacts with Idempotency-Key', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let api: ReturnType<typeof httpClient>;
  let path: string;

  beforeAll(async () => {
    t = await startTestApp();
    acme = await createTenant(t.app);
    api = httpClient(t.baseUrl, acme.key);
    path = `/v1/funnels/${acme.funnelId}/contacts`;
  });
  afterAll(() => t.close());

  const total = async (tenant = acme) =>
    (await httpClient(t.baseUrl, tenant.key).get(`/v1/funnels/${tenant.funnelId}/contacts?limit=1`)).body.meta
      .total;
  const withKey = (key: string) => ({ 'Idempotency-Key': key });

  it('answers a retry with the first response and creates nothing', async () => {
    const before = await total();
    const first = await api.post(path, { email: 'retry@example.com', firstName: 'Ada' }, withKey('order-1'));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retry = await api.post(path, { firstName: 'Ada', email: 'retry@example.com' }, withKey('order-1'));
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('location')).toBe(`${path}/${first.body.data.id}`);
    expect(await total()).toBe(before + 1);
  });

  it('answers the first response even after the contact changed', async () => {
    const first = await api.post(path, { email: 'snapshot@example.com' }, withKey('order-2'));
    await api.put(`${path}/${first.body.data.id}/values`, { fieldName: 'firstName', value: 'Later' });
    const retry = await api.post(path, { email: 'snapshot@example.com' }, withKey('order-2'));
    expect(retry.body).toEqual(first.body);
  });

  it('answers 422 when the key is reused with a different body, and creates nothing', async () => {
    await api.post(path, { email: 'one@example.com' }, withKey('order-3'));
    const before = await total();
    const res = await api.post(path, { email: 'two@example.com' }, withKey('order-3'));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'Idempotency-Key was already used with a different request; send a new key for a new contact',
      status: 422,
    });
    expect(await total()).toBe(before);
  });

  it('answers 422 when the key is reused for another funnel', async () => {
    const second = await t.app.get(FunnelsService).create({ workspaceId: acme.workspaceId, name: 'Second' });
    await api.post(path, { email: 'same@example.com' }, withKey('order-4'));
    const res = await api.post(
      `/v1/funnels/${second.id}/contacts`,
      { email: 'same@example.com' },
      withKey('order-4'),
    );
    expect(res.status).toBe(422);
  });

  it('scopes keys per company', async () => {
    const globex = await createTenant(t.app);
    const mine = await api.post(path, { email: 'shared@example.com' }, withKey('order-5'));
    const theirs = await httpClient(t.baseUrl, globex.key).post(
      `/v1/funnels/${globex.funnelId}/contacts`,
      { email: 'shared@example.com' },
      withKey('order-5'),
    );
    expect(theirs.status).toBe(201);
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
    expect(await total(globex)).toBe(1);
  });

  it('creates one contact for concurrent requests with the same key', async () => {
    const before = await total();
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => api.post(path, { email: 'race@example.com' }, withKey('order-6'))),
    );
    expect(replies.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(replies.map((r) => r.body.data.id)).size).toBe(1);
    expect(replies.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(4);
    expect(await total()).toBe(before + 1);
  });

  it('lets a rejected request be retried with the same key', async () => {
    expect((await api.post(path, { email: 'broken' }, withKey('order-7'))).status).toBe(400);
    const fixed = await api.post(path, { email: 'fixed@example.com' }, withKey('order-7'));
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('forgets a key after 24 hours', async () => {
    const first = await api.post(path, { email: 'old@example.com' }, withKey('order-8'));
    await t.app
      .get(DataSource)
      .query(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'order-8'`);
    const again = await api.post(path, { email: 'old@example.com' }, withKey('order-8'));
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(first.body.data.id);
  });

  it.each([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['not visible ASCII', 'order 9'],
  ])('answers 400 for a key %s', async (_, key) => {
    const before = await total();
    const res = await api.post(path, { email: 'bad-key@example.com' }, withKey(key));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Idempotency-Key must be 1 to 255 visible ASCII characters');
    expect(await total()).toBe(before);
  });
});
