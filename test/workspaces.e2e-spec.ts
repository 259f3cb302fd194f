import { ApiKeysService } from '@app/auth';
import { FunnelsService } from '@app/workspaces';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';

describe('GET /v1/workspaces', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let globex: TenantFixture;

  beforeAll(async () => {
    t = await startTestApp();
    acme = await createTenant(t.app);
    globex = await createTenant(t.app);
    await t.app
      .get(FunnelsService)
      .create({ workspaceId: acme.workspaceId, name: 'Second funnel', status: 'offline' });
  });
  afterAll(() => t.close());

  const list = (key?: string) =>
    fetch(`${t.baseUrl}/v1/workspaces`, { headers: key ? { 'x-service-api-key': key } : {} });

  it("returns the key's company workspaces with their campaigns", async () => {
    const res = await list(acme.key);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      data: [
        {
          id: acme.workspaceId,
          name: 'Main workspace',
          campaigns: [
            { id: acme.funnelId, name: 'Main funnel', status: 'online' },
            { id: expect.any(String), name: 'Second funnel', status: 'offline' },
          ],
        },
      ],
    });
  });

  it("never shows another company's workspaces", async () => {
    const body = (await (await list(globex.key)).json()) as { data: { id: string }[] };
    expect(body.data.map((w) => w.id)).toEqual([globex.workspaceId]);
  });

  it('returns 401 when the key is missing', async () => {
    const res = await list();
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'API key is required', status: 401 });
  });

  it('returns 401 for an unknown key', async () => {
    const res = await list(`fcrm_000000000000_${'A'.repeat(43)}`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'Invalid or unauthorized API key', status: 401 });
  });

  it('returns 401 for a tampered key whose prefix exists', async () => {
    const tampered = acme.key.slice(0, -1) + (acme.key.endsWith('A') ? 'B' : 'A');
    expect((await list(tampered)).status).toBe(401);
  });

  it('returns 401 once the key is revoked', async () => {
    const key = await acme.keyFor('crm:read');
    expect((await list(key)).status).toBe(200);
    const [summary] = (await t.app.get(ApiKeysService).list(acme.companyId)).slice(-1);
    await t.app.get(ApiKeysService).revoke(summary.id);
    expect((await list(key)).status).toBe(401);
  });

  it('returns 403 when the key lacks crm:read', async () => {
    const res = await list(await acme.keyFor('metrics:read'));
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: 'API key lacks the required permission: crm:read',
      status: 403,
    });
  });
});
