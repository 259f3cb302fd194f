import { httpClient } from '../support/http-client';
import { OAuthStack, startOAuthStack } from '../support/oauth-issuer';

jest.setTimeout(60_000);

const LOOPBACK = 'http://127.0.0.1:8767/callback';
const APP_SCHEME = 'com.example.crm:/oauth/callback';
const HTTPS = 'https://app.example.com/oauth/callback';

/** Issuer mode under the 2026 MCP authorization profile: SEP-837, SEP-2207 and SEP-2468. */
describe('issuer mode, 2026 authorization profile', () => {
  let stack: OAuthStack;
  let base: string;

  beforeAll(async () => {
    stack = await startOAuthStack('issuer');
    base = stack.t.baseUrl;
  });
  afterAll(async () => {
    await stack?.close();
  });

  const register = (body: Record<string, unknown>) => httpClient(base).post('/oauth/register', body);

  it.each([
    ['native', [LOOPBACK, APP_SCHEME]],
    ['web', [HTTPS]],
  ])('registers a %s application with the redirect URIs of its kind', async (type, redirectUris) => {
    const registered = await register({ application_type: type, redirect_uris: redirectUris });
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({ application_type: type, redirect_uris: redirectUris });
  });

  it.each([
    ['native', HTTPS],
    ['web', LOOPBACK],
    ['web', 'http://localhost:3000/callback'],
    ['web', APP_SCHEME],
  ])('refuses a %s application redirecting to %s with invalid_redirect_uri', async (type, uri) => {
    const refused = await register({ application_type: type, redirect_uris: [uri] });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: 'invalid_redirect_uri', error_description: expect.any(String) });
  });

  it('refuses an unknown application_type', async () => {
    const refused = await register({ application_type: 'service', redirect_uris: [LOOPBACK] });
    expect(refused.body).toEqual({ error: 'invalid_client_metadata', error_description: expect.any(String) });
  });

  it('keeps registering clients that name no application_type, answering the type their redirects imply', async () => {
    expect((await register({ redirect_uris: [LOOPBACK] })).body).toMatchObject({
      application_type: 'native',
    });
    expect((await register({ redirect_uris: [HTTPS] })).body).toMatchObject({ application_type: 'web' });
    const mixed = await register({ redirect_uris: [HTTPS, LOOPBACK] });
    expect(mixed.status).toBe(201);
    expect(mixed.body).not.toHaveProperty('application_type');
  });

  it('advertises offline_access in the authorization server metadata only, never in the resource metadata or the 401', async () => {
    const http = httpClient(base);
    const as = await http.get('/.well-known/oauth-authorization-server');
    expect(as.body.scopes_supported).toContain('offline_access');
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const prm = await http.get(path);
      expect(prm.body.scopes_supported).toEqual(['crm:read', 'crm:write', 'metrics:read']);
    }
    const challenge = (await http.post('/mcp', {})).headers.get('www-authenticate');
    expect(challenge).toContain('scope="crm:read crm:write metrics:read"');
    expect(challenge).not.toContain('offline_access');
  });

  it.each([
    [{ response_type: 'token' }, 'unsupported_response_type'],
    [{ resource: 'https://elsewhere.example/mcp' }, 'invalid_target'],
    [{ code_challenge_method: 'plain' }, 'invalid_request'],
  ])(
    'answers an invalid authorization request (%o) with 400, never a redirect to the client',
    async (change, error) => {
      const client = (await register({ redirect_uris: [LOOPBACK] })).body.client_id as string;
      const url = new URL(`${base}/oauth/authorize`);
      url.search = new URLSearchParams({
        client_id: client,
        redirect_uri: LOOPBACK,
        response_type: 'code',
        state: 'st',
        code_challenge: 'c'.repeat(43),
        code_challenge_method: 'S256',
        ...change,
      }).toString();
      // No user has approved this client, and none is known before sign-in: redirecting the error
      // would make the endpoint an open redirector for any registered URI (RFC 9700 §4.11.2).
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect((await res.json()) as { error: string }).toEqual({
        error: expect.stringMatching(new RegExp(`^${error}: `)),
        status: 400,
      });
    },
  );
});
