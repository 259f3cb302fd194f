import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient, Reply } from './support/http-client';

const expectLimitHeaders = (res: Reply, limit: number, remaining: number) => {
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe(String(remaining));
  const reset = Number(res.headers.get('ratelimit-reset'));
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(60);
};

describe('Rate limits (in-process counts)', () => {
  let t: TestApp;
  let acme: TenantFixture;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '3' });
    acme = await createTenant(t.app);
  });
  afterAll(() => t.close());

  it('counts per API key across all /v1 routes, then answers 429', async () => {
    const api = httpClient(t.baseUrl, acme.key);
    const contacts = `/v1/funnels/${acme.funnelId}/contacts`;
    const first = await api.get('/v1/workspaces');
    expect(first.status).toBe(200);
    expectLimitHeaders(first, 3, 2);
    const second = await api.post(contacts, { email: 'ada@example.com' });
    expect(second.status).toBe(201);
    expectLimitHeaders(second, 3, 1);
    const third = await api.get(contacts);
    expect(third.status).toBe(200);
    expectLimitHeaders(third, 3, 0);

    const refused = await api.get(`${contacts}/${second.body.data.id}`);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: 'Rate limit exceeded',
      status: 429,
      retryAfter: expect.any(Number),
    });
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.retryAfter));
    expect(refused.body.retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused.body.retryAfter).toBeLessThanOrEqual(60);
    expectLimitHeaders(refused, 3, 0);
  });

  it('counts the spellings Express routes to the same handler as one route', async () => {
    const api = httpClient(t.baseUrl, await acme.keyFor('crm:read'));
    const statuses = [];
    for (const path of ['/V1/workspaces', '/v1/workspaces/', '/v1/WorkSpaces/', '/v1/workspaces'])
      statuses.push((await api.get(path)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('gives every key its own count', async () => {
    const other = httpClient(t.baseUrl, await acme.keyFor('crm:read'));
    expect((await other.get('/v1/workspaces')).status).toBe(200);
  });

  it('counts requests with a wrong key too, and refuses them before looking the key up', async () => {
    const wrong = httpClient(t.baseUrl, 'fcrm_000000000000_not-a-real-key');
    for (let i = 0; i < 3; i++) expect((await wrong.get('/v1/workspaces')).status).toBe(401);
    const res = await wrong.get('/v1/workspaces');
    expect(res.status).toBe(429);
    expect(res.body.error).toBe('Rate limit exceeded');
  });

  it('counts requests without a key by client address', async () => {
    const anonymous = httpClient(t.baseUrl);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await anonymous.get('/v1/workspaces')).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('limits unauthenticated routes per client address, separately from API keys', async () => {
    const anonymous = httpClient(t.baseUrl);
    const statuses: number[] = [];
    let last: Reply | undefined;
    for (let i = 0; i < 61; i++) {
      last = await anonymous.get('/.well-known/oauth-protected-resource');
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
    expect(last!.body).toEqual({ error: 'Rate limit exceeded', status: 429, retryAfter: expect.any(Number) });
    expect(last!.headers.get('ratelimit-limit')).toBe('60');
    expect(last!.headers.get('retry-after')).toBe(String(last!.body.retryAfter));
  });

  it('counts /mcp requests per bearer token, before the token is checked', async () => {
    const post = (token: string, path = '/mcp') =>
      fetch(`${t.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const statuses: number[] = [];
    for (const path of ['/mcp', '/MCP', '/mcp/', '/Mcp/'])
      statuses.push((await post('not-a-jwt', path)).status);
    // This app has no identity provider configured (503), which does not matter to the count.
    expect(statuses).toEqual([503, 503, 503, 429]);
    const refused = await post('not-a-jwt');
    expect(await refused.json()).toEqual({
      error: 'Rate limit exceeded',
      status: 429,
      retryAfter: expect.any(Number),
    });
    expect(refused.headers.get('ratelimit-limit')).toBe('3');
    // Another token has its own count, and API keys are not charged for MCP traffic.
    expect((await post('another-token')).status).toBe(503);
    expect((await httpClient(t.baseUrl, await acme.keyFor('crm:read')).get('/v1/workspaces')).status).toBe(
      200,
    );
  });

  it('never counts the health probes', async () => {
    const probe = httpClient(t.baseUrl);
    const replies: Reply[] = [];
    for (let i = 0; i < 61; i++) replies.push(await probe.get(i % 2 ? '/health' : '/health/live'));
    expect(replies.map((r) => r.status)).toEqual(Array(61).fill(200));
    expect(replies.map((r) => r.headers.get('ratelimit-limit'))).toEqual(Array(61).fill(null));
  });

  it('leaves unknown routes and the API docs alone', async () => {
    const api = httpClient(t.baseUrl, acme.key);
    const res = await api.get('/v1/no-such-route');
    expect(res.status).toBe(404);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
    expect((await api.get('/docs-json')).status).toBe(200);
  });
});
