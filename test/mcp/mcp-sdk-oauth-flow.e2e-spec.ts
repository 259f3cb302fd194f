import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { databaseDevUser, DevIdp, startDevIdp } from '@app/dev-idp';
import { startTestApp, TestApp } from '../support/app';
import { createTestDatabase } from '../support/database';
import { createTenant, TenantFixture } from '../support/factories';
import { FlowStep, followAuthorization } from '../support/oauth-browser';

// Booting real apps on a loaded machine can take longer than jest's default 5 s.
jest.setTimeout(60_000);

const OAUTH = {
  OAUTH_CLIENT_ID: 'funnel-crm-e2e-client',
  OAUTH_AUDIENCE: 'https://api.funnel.example',
  OAUTH_CLAIM_NAMESPACE: 'https://funnel.example',
};
const REDIRECT_URI = 'http://127.0.0.1:8765/oauth/callback';

/** The MCP client's side of OAuth: in-memory storage, and a "browser" that follows the redirects. */
class TestOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  callback?: URL;

  constructor(private readonly record: (step: FlowStep) => void) {}

  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'e2e MCP client',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return 'e2e-state';
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier!;
  }
  async redirectToAuthorization(url: URL) {
    this.callback = await followAuthorization(url, REDIRECT_URI, this.record);
  }
}

describe.each(['proxy', 'issuer'] as const)(
  'MCP over OAuth with the official SDK client and the development identity provider (%s mode)',
  (mode) => {
    let db: Awaited<ReturnType<typeof createTestDatabase>>;
    let idp: DevIdp;
    let t: TestApp;
    let acme: TenantFixture;
    let globex: TenantFixture;
    const steps: FlowStep[] = [];

    beforeAll(async () => {
      db = await createTestDatabase();
      // No DEV_USER_COMPANY_ID: the development user is the oldest company, acme below.
      idp = await startDevIdp({
        port: 0,
        clientId: OAUTH.OAUTH_CLIENT_ID,
        audience: OAUTH.OAUTH_AUDIENCE,
        claimNamespace: OAUTH.OAUTH_CLAIM_NAMESPACE,
        findUser: databaseDevUser(db.url),
      });
      t = await startTestApp({ ...OAUTH, IDP_URL: idp.url, OAUTH_MODE: mode }, db.url);
      acme = await createTenant(t.app);
      globex = await createTenant(t.app);
    });
    afterAll(async () => {
      await t?.close();
      await idp?.close();
      await db?.drop();
    });

    const recordingFetch = (input: string | URL | Request, init?: RequestInit) =>
      fetch(input, init).then((res) => {
        const url = new URL(input instanceof Request ? input.url : input);
        const where = url.origin === t.baseUrl ? url.pathname : `${url.origin}${url.pathname}`;
        steps.push(`${init?.method ?? 'GET'} ${where} ${res.status}`);
        return res;
      });

    it('runs discovery, registration, PKCE authorization and token exchange, then calls tools', async () => {
      const provider = new TestOAuthProvider((step) => steps.push(step));
      const mcpUrl = new URL(`${t.baseUrl}/mcp`);
      const first = new StreamableHTTPClientTransport(mcpUrl, {
        authProvider: provider,
        fetch: recordingFetch,
      });
      await expect(new Client({ name: 'e2e', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
        UnauthorizedError,
      );

      // The browser came back to the client with a code for the state it sent.
      expect(provider.callback?.searchParams.get('state')).toBe('e2e-state');
      const code = provider.callback!.searchParams.get('code')!;
      await first.finishAuth(code);

      const idpAt = (path: string) => `${idp.url}${path}`;
      expect(steps.slice(0, 4)).toEqual([
        'POST /mcp 401',
        // issuer mode's 401 points at the metadata of the /mcp resource itself (RFC 9728).
        mode === 'proxy'
          ? 'GET /.well-known/oauth-protected-resource 200'
          : 'GET /.well-known/oauth-protected-resource/mcp 200',
        'GET /.well-known/oauth-authorization-server 200',
        'POST /oauth/register 201',
      ]);
      expect(steps[4]).toBe(`GET ${t.baseUrl}/oauth/authorize 302`);
      expect(steps[5]).toBe(`GET ${idpAt('/authorize')} 303`);
      // Each mode of the it.each asserts its own flow: both branches run, one per mode.
      /* eslint-disable jest/no-conditional-expect */
      if (mode === 'proxy') {
        expect(steps.at(-1)).toBe(`POST ${idpAt('/oauth/token')} 200`);
        expect(provider.client?.client_id).toBe(OAUTH.OAUTH_CLIENT_ID);
      } else {
        // The provider comes back to this service, which asks the user's consent to this new
        // client, then hands it a code of its own.
        expect(steps).toContain(`GET ${t.baseUrl}/oauth/callback 200`);
        expect(steps).toContain(`POST ${t.baseUrl}/oauth/consent 303`);
        expect(steps.at(-1)).toBe('POST /oauth/token 200');
        expect(provider.client?.client_id).toEqual(expect.any(String));
        expect(provider.client?.client_id).not.toBe(OAUTH.OAUTH_CLIENT_ID);
        expect(provider.callback?.searchParams.get('iss')).toBe(t.baseUrl);
      }
      /* eslint-enable jest/no-conditional-expect */

      // An RS256 JWT for the audience, naming the development user's company, plus a refresh token.
      const tokens = provider.saved!;
      expect(tokens.refresh_token).toEqual(expect.any(String));
      const claims = decodeJwt(tokens.access_token);
      expect(claims).toMatchObject({
        iss: `${idp.url}/`,
        aud: OAUTH.OAUTH_AUDIENCE,
        [`${OAUTH.OAUTH_CLAIM_NAMESPACE}/user_metadata`]: {
          companyId: acme.companyId,
          subscriptionId: expect.stringMatching(/^sub_/),
        },
      });

      const client = new Client({ name: 'e2e', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: recordingFetch }),
      );
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([
        'list_workspaces',
        'get_funnel',
        'list_contacts',
        'get_contact',
        'create_contact',
        'update_contact_value',
        'update_contact',
        'upsert_contacts',
        'delete_contact',
        'search_contacts',
        'get_chart_metrics',
        'get_kpi_metrics',
        'get_insight_metrics',
        'get_step_funnel',
        'show_funnel_dashboard',
      ]);
      for (const tool of tools) expect(tool.description?.length).toBeGreaterThan(20);

      const result = await client.callTool({ name: 'list_workspaces', arguments: {} });
      expect(result.isError).toBeFalsy();
      const workspaces = (
        JSON.parse((result.content as { text: string }[])[0].text) as { data: { id: string }[] }
      ).data;
      expect(workspaces.map((w) => w.id)).toEqual([acme.workspaceId]);
      expect(workspaces.map((w) => w.id)).not.toContain(globex.workspaceId);
      await client.close();
    });

    it('exchanges the refresh token at the advertised token endpoint for a token the service accepts', async () => {
      const provider = new TestOAuthProvider(() => undefined);
      const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        authProvider: provider,
      });
      await new Client({ name: 'e2e', version: '1.0.0' }).connect(transport).catch(() => undefined);
      await transport.finishAuth(provider.callback!.searchParams.get('code')!);

      // proxy mode: the identity provider's endpoint; issuer mode: this service's, which passes it on.
      const tokenEndpoint = mode === 'proxy' ? `${idp.url}/oauth/token` : `${t.baseUrl}/oauth/token`;
      const refreshed = await fetch(tokenEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: provider.saved!.refresh_token!,
          client_id: provider.client!.client_id,
        }),
      });
      expect(refreshed.status).toBe(200);
      const { access_token } = (await refreshed.json()) as { access_token: string };
      expect(access_token).not.toBe(provider.saved!.access_token);

      const res = await fetch(`${t.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${access_token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'list_workspaces', arguments: {} },
        }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { result: { content: { text: string }[] } };
      expect(JSON.parse(body.result.content[0].text)).toEqual({
        data: [expect.objectContaining({ id: acme.workspaceId })],
      });
    });
  },
);
