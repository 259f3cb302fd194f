import { startTestApp, TestApp } from '../support/app';

// Booting real apps on a loaded machine can take longer than jest's default 5 s.
jest.setTimeout(60_000);

// The spec's documents: proxy mode (issuer mode has its own suites).
const IDP = {
  OAUTH_MODE: 'proxy',
  IDP_URL: 'https://tenant.idp.example',
  OAUTH_CLIENT_ID: 'shared-client-id',
  OAUTH_AUDIENCE: 'https://api.funnel.example',
  OAUTH_CLAIM_NAMESPACE: 'https://funnel.example',
};

const getJson = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers });
  return { status: res.status, body: (await res.json()) as unknown, type: res.headers.get('content-type') };
};

describe('OAuth discovery documents', () => {
  let derived: TestApp;
  let proxied: TestApp;
  let configured: TestApp;

  beforeAll(async () => {
    derived = await startTestApp(IDP);
    proxied = await startTestApp({ ...IDP, TRUST_PROXY: 'true' });
    configured = await startTestApp({
      ...IDP,
      IDP_URL: 'https://tenant.idp.example//',
      BASE_URL: 'https://crm.example.com/',
    });
  });
  afterAll(async () => {
    await Promise.all([derived, proxied, configured].map((t) => t?.close()));
  });

  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'public.example.org' };

  it('describes the protected resource with the base URL derived from the request', async () => {
    const res = await getJson(`${derived.baseUrl}/.well-known/oauth-protected-resource`);
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      resource: derived.baseUrl,
      authorization_servers: [derived.baseUrl],
      scopes_supported: ['offline_access'],
      bearer_methods_supported: ['header'],
    });
  });

  it('describes the authorization server: authorize and register here, token and keys at the IdP', async () => {
    const res = await getJson(`${derived.baseUrl}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      issuer: 'https://tenant.idp.example/',
      authorization_endpoint: `${derived.baseUrl}/oauth/authorize`,
      token_endpoint: 'https://tenant.idp.example/oauth/token',
      jwks_uri: 'https://tenant.idp.example/.well-known/jwks.json',
      registration_endpoint: `${derived.baseUrl}/oauth/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['offline_access'],
    });
  });

  it('ignores X-Forwarded-* headers unless TRUST_PROXY=true', async () => {
    const res = await getJson(`${derived.baseUrl}/.well-known/oauth-protected-resource`, forwarded);
    expect(res.body).toMatchObject({ resource: derived.baseUrl });
  });

  it('honours X-Forwarded-Proto and X-Forwarded-Host with TRUST_PROXY=true', async () => {
    const prm = await getJson(`${proxied.baseUrl}/.well-known/oauth-protected-resource`, forwarded);
    expect(prm.body).toMatchObject({
      resource: 'https://public.example.org',
      authorization_servers: ['https://public.example.org'],
    });
    const as = await getJson(`${proxied.baseUrl}/.well-known/oauth-authorization-server`, forwarded);
    expect(as.body).toMatchObject({
      authorization_endpoint: 'https://public.example.org/oauth/authorize',
      registration_endpoint: 'https://public.example.org/oauth/register',
    });
  });

  it('uses BASE_URL over the request, and one trailing slash on the issuer', async () => {
    const prm = await getJson(`${configured.baseUrl}/.well-known/oauth-protected-resource`, forwarded);
    expect(prm.body).toMatchObject({
      resource: 'https://crm.example.com',
      authorization_servers: ['https://crm.example.com'],
    });
    const as = await getJson(`${configured.baseUrl}/.well-known/oauth-authorization-server`);
    expect(as.body).toMatchObject({
      issuer: 'https://tenant.idp.example/',
      authorization_endpoint: 'https://crm.example.com/oauth/authorize',
      token_endpoint: 'https://tenant.idp.example/oauth/token',
    });
  });

  it('is unversioned and needs no API key', async () => {
    expect((await fetch(`${derived.baseUrl}/v1/.well-known/oauth-protected-resource`)).status).toBe(404);
  });

  it('lets browser-based MCP clients read the documents (CORS)', async () => {
    const res = await fetch(`${derived.baseUrl}/.well-known/oauth-authorization-server`, {
      headers: { origin: 'http://localhost:6274' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it.each(['oauth-protected-resource', 'oauth-authorization-server'])(
    'answers the CORS preflight for %s (clients send MCP-Protocol-Version)',
    async (document) => {
      const res = await fetch(`${derived.baseUrl}/.well-known/${document}`, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://localhost:6274',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'mcp-protocol-version',
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-headers')).toMatch(/Mcp-Protocol-Version/);
    },
  );
});

describe('OAuth discovery without an identity provider', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      IDP_URL: '',
      OAUTH_CLIENT_ID: '',
      OAUTH_AUDIENCE: '',
      OAUTH_CLAIM_NAMESPACE: '',
    });
  });
  afterAll(() => t.close());

  it('still publishes the protected-resource metadata', async () => {
    expect((await fetch(`${t.baseUrl}/.well-known/oauth-protected-resource`)).status).toBe(200);
  });

  it.each([
    ['GET', '/.well-known/oauth-authorization-server'],
    ['GET', '/oauth/authorize?client_id=x'],
    ['POST', '/oauth/register'],
  ])('answers 503 to %s %s', async (method, path) => {
    const res = await fetch(`${t.baseUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: { 'content-type': 'application/json' },
      body: method === 'POST' ? JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'] }) : undefined,
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: 'OAuth is not configured on this server', status: 503 });
  });
});
