import type { Permission } from '@app/auth';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

interface Route {
  name: string;
  permission: Permission;
  call(
    api: ReturnType<typeof httpClient>,
    funnelId: string,
    contactId: string,
  ): ReturnType<ReturnType<typeof httpClient>['get']>;
}

const ROUTES: Route[] = [
  { name: 'list', permission: 'crm:read', call: (api, f) => api.get(`/v1/funnels/${f}/contacts`) },
  { name: 'get', permission: 'crm:read', call: (api, f, c) => api.get(`/v1/funnels/${f}/contacts/${c}`) },
  {
    name: 'create',
    permission: 'crm:write',
    call: (api, f) => api.post(`/v1/funnels/${f}/contacts`, { email: 'intruder@example.com' }),
  },
  {
    name: 'update value',
    permission: 'crm:write',
    call: (api, f, c) =>
      api.put(`/v1/funnels/${f}/contacts/${c}/values`, { fieldName: 'status', value: 'converted' }),
  },
  {
    name: 'update fields',
    permission: 'crm:write',
    call: (api, f, c) => api.send('PATCH', `/v1/funnels/${f}/contacts/${c}`, { firstName: 'Mallory' }),
  },
  {
    name: 'batch',
    permission: 'crm:write',
    call: (api, f) =>
      api.post(`/v1/funnels/${f}/contacts/batch`, {
        contacts: [{ email: 'owner@example.com', firstName: 'Mallory' }],
        upsertBy: 'email',
      }),
  },
  {
    name: 'list properties',
    permission: 'crm:read',
    call: (api, f) => api.get(`/v1/funnels/${f}/properties`),
  },
  {
    name: 'define a property',
    permission: 'crm:write',
    call: (api, f) => api.post(`/v1/funnels/${f}/properties`, { name: `p${Date.now()}`, type: 'number' }),
  },
  // Last: succeeding erases the shared contact.
  {
    name: 'erase',
    permission: 'crm:write',
    call: (api, f, c) => api.send('DELETE', `/v1/funnels/${f}/contacts/${c}`),
  },
];

describe('Contacts access control', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let globex: TenantFixture;
  let acmeContact: string;
  let globexContact: string;

  beforeAll(async () => {
    t = await startTestApp();
    [acme, globex] = [await createTenant(t.app), await createTenant(t.app)];
    const create = (tenant: TenantFixture) =>
      httpClient(t.baseUrl, tenant.key).post(`/v1/funnels/${tenant.funnelId}/contacts`, {
        email: 'owner@example.com',
      });
    acmeContact = (await create(acme)).body.data.id;
    globexContact = (await create(globex)).body.data.id;
  });
  afterAll(() => t.close());

  describe.each(ROUTES)('$name', (route) => {
    it('answers 401 without an API key', async () => {
      const res = await route.call(httpClient(t.baseUrl), acme.funnelId, acmeContact);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'API key is required', status: 401 });
    });

    it('answers 401 for an invalid API key', async () => {
      const res = await route.call(httpClient(t.baseUrl, 'fcrm_nope'), acme.funnelId, acmeContact);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Invalid or unauthorized API key', status: 401 });
    });

    it(`answers 403 without ${route.permission}`, async () => {
      const others = (
        ['crm:read', 'crm:write', 'metrics:read', 'events:write', 'webhooks:write'] as Permission[]
      ).filter((p) => p !== route.permission);
      const res = await route.call(
        httpClient(t.baseUrl, await acme.keyFor(...others)),
        acme.funnelId,
        acmeContact,
      );
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: `API key lacks the required permission: ${route.permission}`,
        status: 403,
      });
    });

    it(`succeeds with ${route.permission} alone`, async () => {
      const res = await route.call(
        httpClient(t.baseUrl, await acme.keyFor(route.permission)),
        acme.funnelId,
        acmeContact,
      );
      expect(res.status).toBeLessThan(300);
    });

    it("answers 404 on another company's funnel and contact, and changes nothing", async () => {
      const before = await httpClient(t.baseUrl, globex.key).get(
        `/v1/funnels/${globex.funnelId}/contacts/${globexContact}`,
      );
      const res = await route.call(httpClient(t.baseUrl, acme.key), globex.funnelId, globexContact);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Funnel not found', status: 404 });
      const after = await httpClient(t.baseUrl, globex.key).get(
        `/v1/funnels/${globex.funnelId}/contacts/${globexContact}`,
      );
      expect(after.body).toEqual(before.body);
      expect(
        (await httpClient(t.baseUrl, globex.key).get(`/v1/funnels/${globex.funnelId}/contacts`)).body.meta
          .total,
      ).toBe(1);
    });
  });

  it.each(['get', 'update value', 'update fields', 'erase'])(
    "%s answers 404 for another company's contact under one's own funnel",
    async (name) => {
      const route = ROUTES.find((r) => r.name === name)!;
      const res = await route.call(httpClient(t.baseUrl, acme.key), acme.funnelId, globexContact);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Contact not found', status: 404 });
    },
  );

  it("never lists another company's contacts", async () => {
    const res = await httpClient(t.baseUrl, acme.key).get(`/v1/funnels/${acme.funnelId}/contacts?limit=100`);
    expect(res.body.data.map((c: { id: string }) => c.id)).not.toContain(globexContact);
  });
});
