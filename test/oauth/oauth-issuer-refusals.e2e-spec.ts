import { createHash, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { httpClient } from '../support/http-client';
import { followAuthorization } from '../support/oauth-browser';
import { DocumentServer, OAuthStack, serveClientDocuments, startOAuthStack } from '../support/oauth-issuer';

// Booting real apps on a loaded machine can take longer than jest's default 5 s.
jest.setTimeout(60_000);

const REDIRECT_URI = 'http://127.0.0.1:8765/oauth/callback';
const newVerifier = () => randomBytes(32).toString('base64url');
const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** Issuer mode's documents and what it refuses, as RFC 6749, RFC 9700 and RFC 9728 say. */
describe('issuer mode', () => {
  let stack: OAuthStack;
  let documents: DocumentServer;
  let base: string;
  let clientId: string;

  beforeAll(async () => {
    stack = await startOAuthStack('issuer');
    base = stack.t.baseUrl;
    documents = await serveClientDocuments({
      '/impostor.json': () => ({
        client_id: 'https://claude.example/client.json',
        redirect_uris: [REDIRECT_URI],
      }),
    });
    const registered = await httpClient(base).post('/oauth/register', { redirect_uris: [REDIRECT_URI] });
    expect(registered.status).toBe(201);
    clientId = registered.body.client_id;
  });
  afterAll(async () => {
    await documents?.close();
    await stack?.close();
  });

  const authorizeUrl = (params: Record<string, string>) =>
    new URL(`${base}/oauth/authorize?${new URLSearchParams(params).toString()}`);

  /** A code for the registered client, obtained through the identity provider's sign-in. */
  async function codeFor(verifier: string): Promise<string> {
    const url = authorizeUrl({
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      state: 'st',
      code_challenge: challengeOf(verifier),
      code_challenge_method: 'S256',
    });
    const back = await followAuthorization(url, REDIRECT_URI, () => undefined);
    expect(back.searchParams.get('state')).toBe('st');
    return back.searchParams.get('code')!;
  }

  const redeem = async (code: string, verifier: string, overrides: Record<string, string> = {}) => {
    const res = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
        ...overrides,
      }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const invalidGrant = {
    status: 400,
    body: { error: 'invalid_grant', error_description: expect.any(String) },
  };

  it('publishes itself as the issuer, and the /mcp resource beside the root document', async () => {
    const http = httpClient(base);
    expect((await http.get('/.well-known/oauth-authorization-server')).body).toEqual({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      revocation_endpoint_auth_methods_supported: ['none'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
      code_challenge_methods_supported: ['S256'],
      // offline_access only here: the resource documents and challenges never name it (SEP-2207).
      scopes_supported: ['crm:read', 'crm:write', 'metrics:read', 'offline_access'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    const document = {
      authorization_servers: [base],
      scopes_supported: ['crm:read', 'crm:write', 'metrics:read'],
    };
    expect((await http.get('/.well-known/oauth-protected-resource/mcp')).body).toMatchObject({
      resource: `${base}/mcp`,
      ...document,
    });
    expect((await http.get('/.well-known/oauth-protected-resource')).body).toMatchObject({
      resource: base,
      ...document,
    });
    const unauthorized = await http.post('/mcp', {});
    expect(unauthorized.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="crm:read crm:write metrics:read"`,
    );
  });

  it('answers the right code_verifier once, then refuses the reused code', async () => {
    const verifier = newVerifier();
    const code = await codeFor(verifier);
    const first = await redeem(code, verifier);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String) });
    expect(await redeem(code, verifier)).toEqual(invalidGrant);
  });

  it('refuses a wrong code_verifier, and the code is spent by the attempt', async () => {
    const verifier = newVerifier();
    const code = await codeFor(verifier);
    expect(await redeem(code, newVerifier())).toEqual(invalidGrant);
    expect(await redeem(code, verifier)).toEqual(invalidGrant);
  });

  it('refuses a code presented with another redirect_uri or client_id', async () => {
    const verifier = newVerifier();
    expect(
      await redeem(await codeFor(verifier), verifier, { redirect_uri: 'http://127.0.0.1:1/cb' }),
    ).toEqual(invalidGrant);
    expect(await redeem(await codeFor(verifier), verifier, { client_id: 'someone-else' })).toEqual(
      invalidGrant,
    );
  });

  it('refuses an expired code', async () => {
    const verifier = newVerifier();
    const code = await codeFor(verifier);
    const db = new Client({ connectionString: stack.t.databaseUrl });
    await db.connect();
    try {
      const codeHash = createHash('sha256').update(code).digest('hex');
      const { rowCount } = await db.query(
        `UPDATE oauth_authorization_codes SET expires_at = now() - interval '1 second' WHERE code_hash = $1`,
        [codeHash],
      );
      expect(rowCount).toBe(1);
    } finally {
      await db.end();
    }
    expect(await redeem(code, verifier)).toEqual(invalidGrant);
  });

  it('stores codes and pending authorizations only as hashes', async () => {
    const verifier = newVerifier();
    const code = await codeFor(verifier);
    const db = new Client({ connectionString: stack.t.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<Record<string, string>>('SELECT * FROM oauth_authorization_codes');
      expect(rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows)).not.toContain(code);
      expect(rows.map((row) => row.code_hash)).toContain(createHash('sha256').update(code).digest('hex'));
      expect(JSON.stringify(rows)).not.toMatch(/eyJ/); // no JWT in clear
    } finally {
      await db.end();
    }
  });

  it('refuses an unregistered redirect_uri with 400 and redirects nowhere', async () => {
    const res = await fetch(
      authorizeUrl({
        client_id: clientId,
        redirect_uri: 'http://127.0.0.1:8765/other',
        response_type: 'code',
        code_challenge: challengeOf(newVerifier()),
        code_challenge_method: 'S256',
      }),
      { redirect: 'manual' },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.json()).toEqual({
      error: 'redirect_uri is not registered for this client',
      status: 400,
    });
  });

  it('refuses a client metadata document whose client_id is not its own URL', async () => {
    const res = await fetch(
      authorizeUrl({
        client_id: `${documents.url}/impostor.json`,
        redirect_uri: REDIRECT_URI,
        response_type: 'code',
        code_challenge: challengeOf(newVerifier()),
        code_challenge_method: 'S256',
      }),
      { redirect: 'manual' },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.json()).toEqual({
      error: 'client metadata document names another client_id than its URL',
      status: 400,
    });
  });

  it('refuses an unknown client_id', async () => {
    const res = await fetch(authorizeUrl({ client_id: 'nobody', redirect_uri: REDIRECT_URI }), {
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'unknown client_id', status: 400 });
  });

  it('refuses a client_id holding a NUL character, which no stored client can have', async () => {
    const res = await fetch(authorizeUrl({ client_id: 'a\u0000b', redirect_uri: REDIRECT_URI }), {
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'client_id must not contain NUL characters or unpaired surrogates',
      status: 400,
    });
  });

  it('answers a request without PKCE with 400 and redirects nowhere (RFC 9700 §4.11.2)', async () => {
    const res = await fetch(
      authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT_URI, response_type: 'code', state: 'x' }),
      { redirect: 'manual' },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.json()).toEqual({
      error: 'invalid_request: code_challenge (PKCE) is required',
      status: 400,
    });
  });

  it('answers a state or scope holding a NUL character with 400 invalid_request, no redirect', async () => {
    for (const [name, extra] of [
      ['state', { state: 'a\u0000b' }],
      ['scope', { state: 'x', scope: 'mcp\u0000' }],
    ] as const) {
      const res = await fetch(
        authorizeUrl({
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
          response_type: 'code',
          code_challenge: challengeOf(newVerifier()),
          code_challenge_method: 'S256',
          ...extra,
        }),
        { redirect: 'manual' },
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.json()).toEqual({
        error: `invalid_request: ${name} must not contain NUL characters or unpaired surrogates`,
        status: 400,
      });
    }
  });

  it('registers each client with an id of its own and refuses a plain-http redirect off loopback', async () => {
    const http = httpClient(base);
    const other = await http.post('/oauth/register', { redirect_uris: [REDIRECT_URI] });
    expect(other.body.client_id).not.toBe(clientId);
    const refused = await http.post('/oauth/register', { redirect_uris: ['http://evil.example/cb'] });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'invalid_redirect_uri' });
    const empty = await http.post('/oauth/register', { redirect_uris: [] });
    expect(empty.body).toEqual({ error: 'redirect_uris must be a non-empty array' });
  });

  it('registers up to 32 redirect URIs and a confidential-client request as a public client', async () => {
    const http = httpClient(base);
    const uris = (n: number) => Array.from({ length: n }, (_, i) => `http://127.0.0.1/callback/${i}`);
    const many = await http.post('/oauth/register', {
      redirect_uris: uris(32),
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(many.status).toBe(201);
    expect(many.body.redirect_uris).toEqual(uris(32));
    expect(many.body.token_endpoint_auth_method).toBe('none');
    expect(many.body.client_secret).toBeUndefined();
    const tooMany = await http.post('/oauth/register', { redirect_uris: uris(33) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({
      error: 'invalid_redirect_uri',
      error_description: 'at most 32 redirect_uris',
    });
    const odd = await http.post('/oauth/register', {
      redirect_uris: uris(1),
      token_endpoint_auth_method: 7,
    });
    expect(odd.status).toBe(400);
    expect(odd.body).toMatchObject({ error: 'invalid_client_metadata' });
  });

  it('refuses a consent answer without its token and decision, or with a forged token', async () => {
    const forms: Record<string, string>[] = [
      {},
      { consent_token: 'x' },
      { consent_token: 'forged', decision: 'approve' },
    ];
    for (const form of forms) {
      const res = await fetch(`${base}/oauth/consent`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
        redirect: 'manual',
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
    // Revocation needs the token and the client it was issued to; an unknown token is still 200.
    const revoke = (form: Record<string, string>) =>
      fetch(`${base}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      });
    const missing = await revoke({ token: 'x' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: 'invalid_request' });
    expect((await revoke({ token: 'not-a-token', client_id: clientId })).status).toBe(200);
  });

  it('refuses an unknown grant type and an unknown callback state', async () => {
    expect(await redeem('x', newVerifier(), { grant_type: 'password' })).toEqual({
      status: 400,
      body: { error: 'unsupported_grant_type', error_description: expect.any(String) },
    });
    const callback = await httpClient(base).get('/oauth/callback?state=forged&code=x');
    expect(callback.status).toBe(400);
    expect(callback.body).toEqual({ error: 'Unknown or expired authorization request', status: 400 });
  });
});
