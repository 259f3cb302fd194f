import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base64url, importJWK, SignJWT } from 'jose';
import { startTestApp, TestApp } from '../support/app';
import { createTenant, TenantFixture } from '../support/factories';
import { startTokenIssuer, TestTokenIssuer } from '../support/token-issuer';

// Booting real apps on a loaded machine can take longer than jest's default 5 s.
jest.setTimeout(60_000);

const AUDIENCE = 'https://api.funnel.example';
const NAMESPACE = 'https://funnel.example';
const CLAIM = `${NAMESPACE}/user_metadata`;

// The spec's challenge is proxy mode's; issuer mode's is checked in test/oauth/oauth-issuer-*.
const oauthEnv = (idpUrl: string) => ({
  OAUTH_MODE: 'proxy',
  IDP_URL: idpUrl,
  OAUTH_CLIENT_ID: 'shared-client-id',
  OAUTH_AUDIENCE: AUDIENCE,
  OAUTH_CLAIM_NAMESPACE: NAMESPACE,
});

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
};

function postMcp(baseUrl: string, token?: string, body: unknown = INITIALIZE) {
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
}

describe('POST /mcp bearer-token validation', () => {
  let issuer: TestTokenIssuer;
  let t: TestApp;
  let acme: TenantFixture;
  let globex: TenantFixture;
  let challenge: string;
  let invalidChallenge: string;

  beforeAll(async () => {
    issuer = await startTokenIssuer({ audience: AUDIENCE });
    t = await startTestApp(oauthEnv(issuer.url));
    acme = await createTenant(t.app);
    globex = await createTenant(t.app);
    challenge = `Bearer resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource"`;
    invalidChallenge = `${challenge}, error="invalid_token", error_description="Invalid token"`;
  });
  afterAll(async () => {
    await t?.close();
    await issuer?.close();
  });

  const metadataOf = (tenant: TenantFixture) => ({
    [CLAIM]: { companyId: tenant.companyId, subscriptionId: 'sub_1' },
  });
  const validToken = () => issuer.sign({ sub: 'user-1', ...metadataOf(acme) });

  it('accepts a valid token and answers the MCP initialize', async () => {
    const res = await postMcp(t.baseUrl, await validToken());
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { serverInfo: { name: string } } };
    expect(body.result.serverInfo.name).toBe('funnel-crm');
  });

  it('answers 401 with the resource-metadata pointer when no token is sent', async () => {
    const res = await postMcp(t.baseUrl);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(challenge);
    expect(await res.json()).toEqual({ error: 'Bearer token is required', status: 401 });
  });

  it('treats a non-Bearer Authorization header as no token', async () => {
    const res = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Basic dXNlcjpwYXNz' },
      body: JSON.stringify(INITIALIZE),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(challenge);
  });

  const signWithPublishedKey = async (alg: 'RS512' | 'PS256') =>
    new SignJWT(metadataOf(acme))
      .setProtectedHeader({ alg, kid: issuer.privateJwk.kid, typ: 'at+jwt' })
      .setIssuer(`${issuer.url}/`)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(await importJWK({ ...issuer.privateJwk, alg }, alg));

  const invalidTokens: [string, () => Promise<string>][] = [
    ['garbage', async () => 'not-a-jwt'],
    [
      'an expired token',
      () => issuer.sign(metadataOf(acme), { expiresIn: Math.floor(Date.now() / 1000) - 3600 }),
    ],
    ['a token not valid yet', () => issuer.sign(metadataOf(acme), { notBefore: '1h' })],
    ['a wrong issuer', () => issuer.sign(metadataOf(acme), { issuer: 'https://evil.example/' })],
    ['the issuer without its trailing slash', () => issuer.sign(metadataOf(acme), { issuer: issuer.url })],
    ['a wrong audience', () => issuer.sign(metadataOf(acme), { audience: 'https://other-api.example' })],
    [
      'HS256 signed with the public key as secret',
      () =>
        new SignJWT(metadataOf(acme))
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuer(`${issuer.url}/`)
          .setAudience(AUDIENCE)
          .setExpirationTime('1h')
          .sign(new TextEncoder().encode(issuer.publicKeyPem)),
    ],
    [
      'alg none',
      async () => {
        const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }));
        const now = Math.floor(Date.now() / 1000);
        const payload = {
          ...metadataOf(acme),
          iss: `${issuer.url}/`,
          aud: AUDIENCE,
          iat: now,
          exp: now + 3600,
        };
        return `${header}.${base64url.encode(JSON.stringify(payload))}.`;
      },
    ],
    ['a key that is not in the JWKS', () => issuer.sign(metadataOf(acme), { key: 'unpublished' })],
    // The published key itself, with another asymmetric algorithm than the RS256 the service accepts.
    ['RS512 signed with the published key', () => signWithPublishedKey('RS512')],
    ['PS256 signed with the published key', () => signWithPublishedKey('PS256')],
    [
      'a tampered payload',
      async () => {
        const [header, , signature] = (await validToken()).split('.');
        const forged = base64url.encode(
          JSON.stringify({ ...metadataOf(globex), iss: `${issuer.url}/`, aud: AUDIENCE }),
        );
        return `${header}.${forged}.${signature}`;
      },
    ],
    ['no user_metadata claim', () => issuer.sign({ sub: 'user-1' })],
    ['user_metadata without companyId', () => issuer.sign({ [CLAIM]: { subscriptionId: 'sub_1' } })],
    ['user_metadata without subscriptionId', () => issuer.sign({ [CLAIM]: { companyId: acme.companyId } })],
    ['a non-string companyId', () => issuer.sign({ [CLAIM]: { companyId: 42, subscriptionId: 'sub_1' } })],
    [
      'user_metadata under another namespace',
      () =>
        issuer.sign({
          'https://other.example/user_metadata': { companyId: acme.companyId, subscriptionId: 's' },
        }),
    ],
    [
      'a company that does not exist',
      () =>
        issuer.sign({ [CLAIM]: { companyId: '00000000-0000-4000-8000-000000000000', subscriptionId: 's' } }),
    ],
  ];

  it.each(invalidTokens)('answers 401 invalid_token for %s', async (_case, token) => {
    const res = await postMcp(t.baseUrl, await token());
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(invalidChallenge);
    expect(await res.json()).toEqual({ error: 'Invalid token', status: 401 });
  });

  it("scopes tools to the token's company: another company's funnel is not found", async () => {
    const res = await postMcp(t.baseUrl, await validToken(), {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'list_contacts', arguments: { funnelId: globex.funnelId } },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { isError: true, content: [{ type: 'text', text: 'Funnel not found' }] },
    });
  });

  it("lists only the token's company workspaces", async () => {
    const res = await postMcp(t.baseUrl, await validToken(), {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'list_workspaces', arguments: {} },
    });
    const body = (await res.json()) as { result: { content: { text: string }[] } };
    const workspaces = (
      JSON.parse(body.result.content[0].text) as { data: { id: string; campaigns: { id: string }[] }[] }
    ).data;
    expect(workspaces.map((w) => w.id)).toEqual([acme.workspaceId]);
    expect(workspaces[0].campaigns.map((c) => c.id)).toEqual([acme.funnelId]);
  });

  it('lets browser-based clients call it: preflight answered, WWW-Authenticate readable', async () => {
    const preflight = await fetch(`${t.baseUrl}/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:6274',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    const res = await postMcp(t.baseUrl);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/);
  });

  it.each(['GET', 'DELETE'])('answers %s /mcp with 405 and Allow: POST', async (method) => {
    const res = await fetch(`${t.baseUrl}/mcp`, {
      method,
      headers: { authorization: `Bearer ${await validToken()}` },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toEqual({
      error: 'Method not allowed: this MCP server is stateless, send JSON-RPC with POST /mcp',
      status: 405,
    });
  });
});

describe('POST /mcp when the identity provider is unreachable', () => {
  let issuer: TestTokenIssuer;
  let t: TestApp;

  beforeAll(async () => {
    issuer = await startTokenIssuer({ audience: AUDIENCE });
    // A loopback port with nothing listening: the JWKS cannot be fetched.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    t = await startTestApp(oauthEnv(`http://127.0.0.1:${closedPort}`));
  });
  afterAll(async () => {
    await t?.close();
    await issuer?.close();
  });

  it('answers 503 without internals, never 500', async () => {
    const token = await issuer.sign(
      { [CLAIM]: { companyId: '00000000-0000-4000-8000-000000000000', subscriptionId: 's' } },
      { issuer: `${new URL(t.env.IDP_URL!).origin}/` },
    );
    const res = await postMcp(t.baseUrl, token);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      error: 'The identity provider is unavailable, try again later',
      status: 503,
    });
  });

  it('still answers 401 with the challenge when no token is sent', async () => {
    const res = await postMcp(t.baseUrl);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="/);
  });
});
