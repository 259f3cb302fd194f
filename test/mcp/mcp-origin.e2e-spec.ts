import { startTestApp, TestApp } from '../support/app';
import { createTenant, TenantFixture } from '../support/factories';
import { startTokenIssuer, TestTokenIssuer } from '../support/token-issuer';

// Booting real apps on a loaded machine can take longer than jest's default 5 s.
jest.setTimeout(60_000);

const AUDIENCE = 'https://api.funnel.example';
const NAMESPACE = 'https://funnel.example';

const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };

/** The transport spec's Origin rule (DNS rebinding): a browser origin must be allowed to reach /mcp. */
describe('POST /mcp Origin check', () => {
  let issuer: TestTokenIssuer;
  let dev: TestApp;
  let listed: TestApp;
  let acme: TenantFixture;
  let token: string;

  beforeAll(async () => {
    issuer = await startTokenIssuer({ audience: AUDIENCE });
    const env = {
      IDP_URL: issuer.url,
      OAUTH_CLIENT_ID: 'c',
      OAUTH_AUDIENCE: AUDIENCE,
      OAUTH_CLAIM_NAMESPACE: NAMESPACE,
    };
    dev = await startTestApp(env);
    listed = await startTestApp({ ...env, MCP_ALLOWED_ORIGINS: 'https://app.example.com' });
    acme = await createTenant(dev.app);
    token = await issuer.sign({
      [`${NAMESPACE}/user_metadata`]: { companyId: acme.companyId, subscriptionId: 's' },
    });
  });
  afterAll(async () => {
    await Promise.all([dev, listed].map((t) => t?.close()));
    await issuer?.close();
  });

  const post = (t: TestApp, headers: Record<string, string>) =>
    fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(PING),
    });

  it('answers 403 in the error shape to a foreign origin, even with a valid token', async () => {
    const res = await post(dev, { origin: 'http://evil.example.com', host: 'evil.example.com' });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'Origin not allowed', status: 403 });
  });

  it('refuses the CORS preflight of a foreign origin', async () => {
    const res = await fetch(`${dev.baseUrl}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example.com', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets requests without Origin (non-browser clients) and, outside production, loopback origins through', async () => {
    expect((await post(dev, {})).status).toBe(200);
    expect((await post(dev, { origin: 'http://localhost:6274' })).status).toBe(200);
    expect((await post(dev, { origin: dev.baseUrl })).status).toBe(200);
  });

  it('allows exactly MCP_ALLOWED_ORIGINS when set', async () => {
    expect((await post(listed, { origin: 'https://app.example.com' })).status).toBe(401); // another database: unknown company
    expect((await post(listed, { origin: 'http://localhost:6274' })).status).toBe(403);
    expect((await post(listed, { origin: 'null' })).status).toBe(403);
  });
});
