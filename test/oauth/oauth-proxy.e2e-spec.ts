import { startTestApp, TestApp } from '../support/app';

// Booting real apps on a loaded machine can take longer than jest's default 5 s.
jest.setTimeout(60_000);

// The spec's proxy (issuer mode has its own suites).
const IDP = {
  OAUTH_MODE: 'proxy',
  IDP_URL: 'https://tenant.idp.example/',
  OAUTH_CLIENT_ID: 'shared-client-id',
  OAUTH_AUDIENCE: 'https://api.funnel.example',
  OAUTH_CLAIM_NAMESPACE: 'https://funnel.example',
};

describe('GET /oauth/authorize', () => {
  let t: TestApp;
  let withoutConnection: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ ...IDP, OAUTH_CONNECTION: 'google-oauth2' });
    withoutConnection = await startTestApp(IDP);
  });
  afterAll(async () => {
    await Promise.all([t, withoutConnection].map((app) => app?.close()));
  });

  const authorize = async (app: TestApp, query: string) => {
    const res = await fetch(`${app.baseUrl}/oauth/authorize?${query}`, { redirect: 'manual' });
    const location = res.headers.get('location') ?? '';
    return { status: res.status, location, url: new URL(location || 'http://none') };
  };

  const clientQuery = new URLSearchParams([
    ['client_id', 'shared-client-id'],
    ['redirect_uri', 'http://127.0.0.1:5555/callback?x=1&y=2'],
    ['response_type', 'code'],
    ['scope', 'offline_access'],
    ['state', 'a b+c/='],
    ['code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'],
    ['code_challenge_method', 'S256'],
    ['resource', 'http://127.0.0.1:3000'],
    ['ui_locales', 'de'],
    ['ui_locales', 'en'],
  ]).toString();

  it('redirects (302) to {idp_url}/authorize carrying every client parameter plus audience and connection', async () => {
    const res = await authorize(t, clientQuery);
    expect(res.status).toBe(302);
    expect(`${res.url.origin}${res.url.pathname}`).toBe('https://tenant.idp.example/authorize');
    expect([...res.url.searchParams]).toEqual([
      ...new URLSearchParams(clientQuery),
      ['audience', 'https://api.funnel.example'],
      ['connection', 'google-oauth2'],
    ]);
  });

  it('lets configuration win over audience and connection sent by the client', async () => {
    const res = await authorize(t, 'client_id=c&audience=https%3A%2F%2Fevil.example&connection=evil&state=s');
    expect(res.url.searchParams.getAll('audience')).toEqual(['https://api.funnel.example']);
    expect(res.url.searchParams.getAll('connection')).toEqual(['google-oauth2']);
    expect(res.url.searchParams.get('state')).toBe('s');
  });

  it('adds no connection when none is configured', async () => {
    const res = await authorize(withoutConnection, clientQuery);
    expect(res.status).toBe(302);
    expect(res.url.searchParams.has('connection')).toBe(false);
    expect(res.url.searchParams.get('audience')).toBe('https://api.funnel.example');
  });

  it('redirects even without parameters (the identity provider reports what is missing)', async () => {
    const res = await authorize(t, '');
    expect(res.status).toBe(302);
    expect(res.location).toBe(
      'https://tenant.idp.example/authorize?audience=https%3A%2F%2Fapi.funnel.example&connection=google-oauth2',
    );
  });
});

describe('POST /oauth/register', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(IDP);
  });
  afterAll(() => t.close());

  const register = async (body: string, contentType = 'application/json') => {
    const res = await fetch(`${t.baseUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });
    return { status: res.status, body: (await res.json()) as unknown, type: res.headers.get('content-type') };
  };

  it('answers 201 with the shared public client and echoes the redirect URIs', async () => {
    const redirectUris = ['http://localhost:6274/oauth/callback', 'http://127.0.0.1:9999/cb'];
    const res = await register(JSON.stringify({ redirect_uris: redirectUris, client_name: 'Inspector' }));
    expect(res.status).toBe(201);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      client_id: 'shared-client-id',
      client_name: 'Funnel CRM MCP client',
      redirect_uris: redirectUris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
  });

  it('hands every registration the same client id and no secret', async () => {
    const a = await register(JSON.stringify({ redirect_uris: ['http://127.0.0.1/a'] }));
    const b = await register(JSON.stringify({ redirect_uris: ['http://127.0.0.1/b'] }));
    expect((a.body as { client_id: string }).client_id).toBe((b.body as { client_id: string }).client_id);
    expect(a.body).not.toHaveProperty('client_secret');
  });

  it.each([
    ['redirect_uris is missing', JSON.stringify({ client_name: 'x' })],
    ['redirect_uris is empty', JSON.stringify({ redirect_uris: [] })],
    ['redirect_uris is a string', JSON.stringify({ redirect_uris: 'http://127.0.0.1/cb' })],
    ['redirect_uris is an object', JSON.stringify({ redirect_uris: { 0: 'http://127.0.0.1/cb' } })],
    ['redirect_uris holds a non-string', JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb', 42] })],
    ['redirect_uris holds null', JSON.stringify({ redirect_uris: [null] })],
    ['the body is an array', JSON.stringify([{ redirect_uris: ['http://127.0.0.1/cb'] }])],
    ['the body is empty', ''],
  ])('answers 400 with exactly the spec body when %s', async (_case, body) => {
    const res = await register(body);
    expect(res.status).toBe(400);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: 'redirect_uris must be a non-empty array' });
  });

  it.each([
    ['POST', '/oauth/token'],
    ['GET', '/oauth/callback?state=s&code=c'],
  ])('has no %s %s: the identity provider is the authorization server', async (method, path) => {
    const res = await fetch(`${t.baseUrl}${path}`, { method, redirect: 'manual' });
    expect(res.status).toBe(404);
  });

  it('answers a CORS preflight for browser-based clients', async () => {
    const res = await fetch(`${t.baseUrl}/oauth/register`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Content-Type/);
  });
});
