import {
  Client,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { followAuthorization } from '../support/oauth-browser';
import { OAuthStack, startOAuthStack } from '../support/oauth-issuer';
import { MCP_TOOL_NAMES } from '../support/mcp-tool-names';

jest.setTimeout(120_000);

const REDIRECT_URI = 'http://127.0.0.1:8766/oauth/callback';
const PERIOD = { from: '2025-03-01', to: '2025-03-31' };

/** The v2 client's side of OAuth: in-memory storage, and a "browser" that follows the redirects. */
class TestOAuthProvider implements OAuthClientProvider {
  client?: StoredOAuthClientInformation;
  saved?: StoredOAuthTokens;
  verifier?: string;
  discovery?: OAuthDiscoveryState;
  callback?: URL;
  /** The scope of every authorization the client started, in order. */
  readonly askedScopes: (string | null)[] = [];

  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'e2e v2 client',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return 'v2-state';
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier!;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  async redirectToAuthorization(url: URL) {
    this.askedScopes.push(url.searchParams.get('scope'));
    this.callback = await followAuthorization(url, REDIRECT_URI, () => undefined);
  }
}

const MODES = [
  ['default (2025 handshake)', undefined, '2025-11-25'],
  ['auto', { mode: 'auto' as const }, '2026-07-28'],
  ['pinned to 2026-07-28', { mode: { pin: '2026-07-28' } }, '2026-07-28'],
] as const;

/** Connects a v2 client in `negotiation` mode, running the OAuth flow first when the provider has no token. */
async function connect(
  stack: OAuthStack,
  provider: TestOAuthProvider,
  negotiation?: (typeof MODES)[number][1],
): Promise<Client> {
  const url = new URL(`${stack.t.baseUrl}/mcp`);
  const options = negotiation ? { versionNegotiation: negotiation } : {};
  if (!provider.saved) {
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: 'e2e-v2', version: '1.0.0' }, options).connect(first)).rejects.toThrow(
      UnauthorizedError,
    );
    await first.finishAuth(provider.callback!.searchParams);
  }
  const client = new Client({ name: 'e2e-v2', version: '1.0.0' }, options);
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return client;
}

describe('MCP with the official v2 SDK client, issuer mode and the development identity provider', () => {
  let stack: OAuthStack;

  beforeAll(async () => {
    stack = await startOAuthStack('issuer');
  });
  afterAll(async () => {
    await stack?.close();
  });

  it.each(MODES)(
    'signs in and calls every tool and prompt in %s mode',
    async (_mode, negotiation, revision) => {
      const provider = new TestOAuthProvider();
      const client = await connect(stack, provider, negotiation);
      expect(client.getNegotiatedProtocolVersion()).toBe(revision);
      expect(client.getServerVersion()).toEqual({ name: 'funnel-crm', version: '1.0.0' });

      // The 401 named the MCP scopes; the client added offline_access, advertised by the server's
      // authorization metadata only, and got a refresh token with an access token carrying them.
      expect(provider.askedScopes).toEqual(['crm:read crm:write metrics:read offline_access']);
      expect(provider.callback?.searchParams.get('iss')).toBe(stack.t.baseUrl);
      expect(provider.saved?.refresh_token).toEqual(expect.any(String));
      expect(decodeJwt(provider.saved!.access_token).scope).toBe(
        'crm:read crm:write metrics:read offline_access',
      );

      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(MCP_TOOL_NAMES);
      const call = async (name: string, args: Record<string, unknown> = {}) => {
        const result = await client.callTool({ name, arguments: args });
        return result as { isError?: boolean; structuredContent?: Record<string, unknown> };
      };
      const structured = async (name: string, args: Record<string, unknown> = {}) => {
        const result = await call(name, args);
        expect([name, result.isError ?? false]).toEqual([name, false]);
        return result.structuredContent!;
      };
      const { funnelId } = stack.tenant;

      expect(await structured('list_workspaces')).toEqual({
        data: [expect.objectContaining({ id: stack.tenant.workspaceId })],
      });
      expect(await structured('get_funnel', { funnelId })).toMatchObject({ id: funnelId });
      const created = await structured('create_contact', { funnelId, email: `v2-${revision}@example.com` });
      const contactId = created.id as string;
      expect(await structured('get_contact', { funnelId, contactId })).toMatchObject({ id: contactId });
      expect(
        await structured('update_contact_value', {
          funnelId,
          contactId,
          fieldName: 'firstName',
          value: 'Ada',
        }),
      ).toMatchObject({ fieldName: 'firstName', value: 'Ada' });
      expect(
        await structured('list_contacts', { funnelId, email: `v2-${revision}@example.com` }),
      ).toMatchObject({
        data: [expect.objectContaining({ id: contactId, firstName: 'Ada' })],
      });
      expect(
        await structured('update_contact', { funnelId, contactId, lastName: 'Lovelace', website: null }),
      ).toMatchObject({ id: contactId, firstName: 'Ada', lastName: 'Lovelace' });
      expect(
        await structured('search_contacts', {
          funnelId,
          filterGroups: [{ filters: [{ field: 'lastName', operator: 'eq', value: 'Lovelace' }] }],
        }),
      ).toMatchObject({ data: [expect.objectContaining({ id: contactId })], meta: { total: 1 } });
      const upserted = await structured('upsert_contacts', {
        funnelId,
        upsertBy: 'email',
        contacts: [
          { email: `v2-${revision}@example.com`, firstName: 'Augusta' },
          { email: `v2-batch-${revision}@example.com` },
        ],
      });
      expect(upserted).toEqual({
        data: [
          expect.objectContaining({
            index: 0,
            status: 200,
            data: expect.objectContaining({ id: contactId }),
          }),
          expect.objectContaining({ index: 1, status: 201 }),
        ],
      });
      const batchId = ((upserted.data as { data: { id: string } }[])[1].data as { id: string }).id;
      expect(await structured('delete_contact', { funnelId, contactId: batchId })).toMatchObject({
        deleted: true,
      });
      expect(await structured('delete_contact', { funnelId, contactId })).toEqual({
        id: contactId,
        deleted: true,
      });
      expect(
        await structured('get_chart_metrics', { funnelId, ...PERIOD, subtype: 'chart_contacts_over_time' }),
      ).toEqual({ data: expect.any(Array) });
      expect(
        await structured('get_kpi_metrics', { funnelId, ...PERIOD, subtype: 'kpi_new_contacts' }),
      ).toMatchObject({ type: 'kpiNewContacts', value: expect.any(Number) });
      expect(
        await structured('get_step_funnel', { funnelId, ...PERIOD, steps: ['page:start', 'conversion'] }),
      ).toEqual({
        data: [
          expect.objectContaining({ step: 'page:start' }),
          expect.objectContaining({ step: 'conversion' }),
        ],
        meta: { exact: true, sampleRate: 1, sessions: 0, sampledSessions: 0 },
      });
      expect(await structured('show_funnel_dashboard', { funnelId, ...PERIOD })).toMatchObject({
        funnel: { id: funnelId },
        kpis: expect.objectContaining({ kpi_total_sessions: expect.any(Object) }),
      });
      // No answer events in this funnel: the question is unknown, a tool error the model can read.
      const insight = await call('get_insight_metrics', { funnelId, ...PERIOD, insightId: 'question_1' });
      expect(insight).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Question question_1 not found' }],
      });

      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => prompt.name).sort()).toEqual(['stalled_leads', 'weekly_funnel_review']);
      const review = await client.getPrompt({
        name: 'weekly_funnel_review',
        arguments: { funnelId, weekEnding: '2025-03-16' },
      });
      expect(review.messages[0].content).toMatchObject({
        type: 'text',
        text: expect.stringContaining('Review the week 2025-03-10 to 2025-03-16'),
      });
      await client.close();
    },
  );

  it('answers a tool beyond the token’s scopes with 403 insufficient_scope; the client asks for the union and succeeds', async () => {
    // A client that signed in for reading only (it asked for crm:read itself).
    const provider = new TestOAuthProvider();
    const readOnly = await signInFor(stack, provider, 'crm:read');
    expect(decodeJwt(readOnly.access_token).scope).toBe('crm:read offline_access');
    // It did not ask for offline_access, yet it has a refresh token: every client of issuer mode does.
    expect(readOnly.refresh_token).toEqual(expect.any(String));

    const mcp = `${stack.t.baseUrl}/mcp`;
    const raw = await fetch(mcp, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${readOnly.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_kpi_metrics', arguments: { funnelId: stack.tenant.funnelId, ...PERIOD } },
      }),
    });
    expect(raw.status).toBe(403);
    expect(raw.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", error_description="Insufficient scope", scope="metrics:read", ' +
        `resource_metadata="${stack.t.baseUrl}/.well-known/oauth-protected-resource/mcp"`,
    );

    const transport = new StreamableHTTPClientTransport(new URL(mcp), { authProvider: provider });
    const client = new Client(
      { name: 'e2e-v2', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(transport);
    expect((await client.callTool({ name: 'list_workspaces', arguments: {} })).isError).toBeFalsy();
    const kpiCall = {
      name: 'get_kpi_metrics',
      arguments: { funnelId: stack.tenant.funnelId, ...PERIOD, subtype: 'kpi_total_sessions' },
    };
    // The 403 sends the client to authorize again; the user comes back with a code for the union.
    await expect(client.callTool(kpiCall)).rejects.toThrow(UnauthorizedError);
    await transport.finishAuth(provider.callback!.searchParams);
    expect(await client.callTool(kpiCall)).toMatchObject({ structuredContent: { type: 'kpiTotalSessions' } });
    // The second authorization asked for what the client had plus what the tool needs.
    const sorted = (scope: unknown) => String(scope).split(' ').sort();
    expect(sorted(provider.askedScopes.at(-1))).toEqual(['crm:read', 'metrics:read', 'offline_access']);
    expect(sorted(decodeJwt(provider.saved!.access_token).scope)).toEqual([
      'crm:read',
      'metrics:read',
      'offline_access',
    ]);
    await client.close();
  });
});

/** Runs the authorization code flow by hand for `scope`, leaving the client and its tokens in `provider`. */
async function signInFor(stack: OAuthStack, provider: TestOAuthProvider, scope: string) {
  const base = stack.t.baseUrl;
  const registered = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(provider.clientMetadata),
  });
  provider.client = { ...((await registered.json()) as StoredOAuthClientInformation), issuer: base };
  const verifier = 'v'.repeat(43);
  const { createHash } = await import('node:crypto');
  const authorize = new URL(`${base}/oauth/authorize`);
  authorize.search = new URLSearchParams({
    client_id: provider.client.client_id,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope,
    state: 's',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: `${base}/mcp`,
  }).toString();
  const callback = await followAuthorization(authorize, REDIRECT_URI, () => undefined);
  const answer = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      client_id: provider.client.client_id,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    }),
  });
  provider.saved = { ...((await answer.json()) as StoredOAuthTokens), issuer: base };
  return provider.saved;
}
