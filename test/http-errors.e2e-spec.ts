import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

describe('HTTP error responses', () => {
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

  it.each([
    ['GET', '/v1/nothing-here'],
    ['GET', '/v2/workspaces'],
    ['DELETE', '/v1/funnels/6d1c0f5e-2a7b-4c84-9d0e-1f2a3b4c5d6e/contacts/x/values/y'],
  ])('answers 404 in the error shape for %s %s', async (method, route) => {
    const res = await api.send(method, route);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: `Cannot ${method} ${route}`, status: 404 });
  });

  it.each([
    ['PATCH', '/v1/funnels/6d1c0f5e-2a7b-4c84-9d0e-1f2a3b4c5d6e/contacts'],
    // PATCH on a contact updates it; POST is the method that contact path does not take.
    [
      'POST',
      '/v1/funnels/6d1c0f5e-2a7b-4c84-9d0e-1f2a3b4c5d6e/contacts/6d1c0f5e-2a7b-4c84-9d0e-1f2a3b4c5d6e',
    ],
  ])('answers 405 with Allow in the error shape for %s on the known path %s', async (method, route) => {
    const res = await api.send(method, route);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toMatch(/\bGET\b/);
    expect(res.body).toEqual({ error: `Method ${method} is not allowed on ${route}`, status: 405 });
  });

  it('answers 400 for a malformed JSON body', async () => {
    const res = await api.post(path, '{"email": "ada@example.com",');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Malformed JSON body', status: 400 });
  });

  it('answers 400 for a path with a broken percent-encoding', async () => {
    const res = await api.get('/v1/funnels/%E0%A4%A/contacts');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Malformed URL encoding', status: 400 });
  });

  it('answers 413 for a body over 100 kB, and accepts one just under', async () => {
    const big = await api.post(path, { email: 'big@example.com', firstName: 'x'.repeat(101 * 1024) });
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ error: 'Request body too large (limit 100 kB)', status: 413 });
    // Under the limit the body is read, and the field rules answer instead.
    const under = await api.post(path, { email: 'big@example.com', firstName: 'x'.repeat(99 * 1024) });
    expect(under.status).toBe(400);
    expect(under.body.error).toBe('firstName must be at most 200 characters');
  });

  it('answers a plain 500 that shows no internals', async () => {
    const broken = await startTestApp();
    try {
      const tenant = await createTenant(broken.app);
      await broken.app.get(DataSource).query('ALTER TABLE contacts RENAME TO contacts_gone');
      const res = await httpClient(broken.baseUrl, tenant.key).post(
        `/v1/funnels/${tenant.funnelId}/contacts`,
        {
          email: 'ada@example.com',
        },
      );
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'Internal server error', status: 500 });
    } finally {
      await broken.close();
    }
  });
});
