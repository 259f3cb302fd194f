import * as oauth from 'oauth4webapi';
import { decodeJwt } from 'jose';
import { followAuthorization } from '../support/oauth-browser';
import { signatureSpellings } from '../support/token-spellings';
import {
  DocumentServer,
  mcpStatusWith,
  OAUTH,
  OAuthStack,
  serveClientDocuments,
  startOAuthStack,
} from '../support/oauth-issuer';

// Booting real apps on a loaded machine can take longer than jest's default 5 s.
jest.setTimeout(60_000);

const REDIRECT_URI = 'http://127.0.0.1:8765/oauth/callback';
const insecure = { [oauth.allowInsecureRequests]: true };

/**
 * A strict OAuth client (oauth4webapi) against issuer mode: every check it makes (issuer of the
 * metadata, RFC 9728 `resource`, RFC 9207 `iss` on the callback, PKCE) passes, and its tokens work
 * on /mcp and refresh.
 */
describe('issuer mode with a strict OAuth client (oauth4webapi)', () => {
  let stack: OAuthStack;
  let documents: DocumentServer;

  beforeAll(async () => {
    stack = await startOAuthStack('issuer');
    documents = await serveClientDocuments({
      '/client.json': (base) => ({
        client_id: `${base}/client.json`,
        client_name: 'Strict e2e client',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    });
  });
  afterAll(async () => {
    await documents?.close();
    await stack?.close();
  });

  /** Discovery as a strict client does it, from the MCP URL it was given. */
  async function discover(): Promise<oauth.AuthorizationServer> {
    const mcpUrl = new URL(`${stack.t.baseUrl}/mcp`);
    const refused: unknown = await oauth
      .protectedResourceRequest('expired-or-forged', 'POST', mcpUrl, new Headers(), null, insecure)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const [challenge] = (refused as oauth.WWWAuthenticateChallengeError).cause;
    expect(challenge.parameters).toMatchObject({
      resource_metadata: `${stack.t.baseUrl}/.well-known/oauth-protected-resource/mcp`,
      scope: 'crm:read crm:write metrics:read',
      error: 'invalid_token',
    });

    const resource = await oauth.processResourceDiscoveryResponse(
      mcpUrl,
      await oauth.resourceDiscoveryRequest(mcpUrl, insecure),
    );
    expect(resource.resource).toBe(`${stack.t.baseUrl}/mcp`);
    const issuer = new URL(resource.authorization_servers![0]);
    expect(issuer.origin).toBe(stack.t.baseUrl);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
    expect(as).toMatchObject({
      issuer: stack.t.baseUrl,
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      code_challenge_methods_supported: ['S256'],
    });
    return as;
  }

  /**
   * Authorize (PKCE), sign in at the identity provider, approve the consent page (the client's first
   * sign-in only: the approval is remembered), validate the callback, exchange the code.
   */
  async function signIn(as: oauth.AuthorizationServer, client: oauth.Client, firstTime = true) {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorize = new URL(as.authorization_endpoint!);
    authorize.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'offline_access',
      state,
      resource: `${stack.t.baseUrl}/mcp`,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const steps: string[] = [];
    const callback = await followAuthorization(authorize, REDIRECT_URI, (step) => steps.push(step));
    expect(steps[0]).toBe(`GET ${stack.t.baseUrl}/oauth/authorize 302`);
    if (firstTime)
      expect(steps.slice(-2)).toEqual([
        `GET ${stack.t.baseUrl}/oauth/callback 200`,
        `POST ${stack.t.baseUrl}/oauth/consent 303`,
      ]);
    else expect(steps.at(-1)).toBe(`GET ${stack.t.baseUrl}/oauth/callback 302`);
    expect(callback.searchParams.get('iss')).toBe(stack.t.baseUrl);

    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      REDIRECT_URI,
      verifier,
      insecure,
    );
    expect(response.headers.get('cache-control')).toBe('no-store');
    return oauth.processAuthorizationCodeResponse(as, client, response);
  }

  async function callListWorkspaces(accessToken: string) {
    const response = await oauth.protectedResourceRequest(
      accessToken,
      'POST',
      new URL(`${stack.t.baseUrl}/mcp`),
      new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' }),
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_workspaces', arguments: {} },
      }),
      insecure,
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { isError?: boolean; content: { text: string }[] } };
    expect(body.result.isError).toBeFalsy();
    return (JSON.parse(body.result.content[0].text) as { data: { id: string }[] }).data;
  }

  async function fullFlow(client: oauth.Client) {
    const as = await discover();
    const tokens = await signIn(as, client);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      iss: `${stack.idp.url}/`,
      aud: OAUTH.OAUTH_AUDIENCE,
      [`${OAUTH.OAUTH_CLAIM_NAMESPACE}/user_metadata`]: { companyId: stack.tenant.companyId },
    });
    expect((await callListWorkspaces(tokens.access_token)).map((w) => w.id)).toEqual([
      stack.tenant.workspaceId,
    ]);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
    );
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect((await callListWorkspaces(refreshed.access_token)).map((w) => w.id)).toEqual([
      stack.tenant.workspaceId,
    ]);
    await revokeAndSignInAgain(as, client, refreshed);
  }

  const mcpStatus = (accessToken: string) => mcpStatusWith(stack.t.baseUrl, accessToken);

  /**
   * Sign-out as RFC 7009 has it: the access token is refused by /mcp from the next request on, the
   * refresh token no longer refreshes; another client cannot use or revoke a client's refresh token.
   */
  async function revokeAndSignInAgain(
    as: oauth.AuthorizationServer,
    client: oauth.Client,
    tokens: oauth.TokenEndpointResponse,
  ) {
    expect(as.revocation_endpoint).toBe(`${stack.t.baseUrl}/oauth/revoke`);
    const stranger: oauth.Client = { client_id: 'another-client', token_endpoint_auth_method: 'none' };
    const refreshAs = (who: oauth.Client) =>
      oauth.refreshTokenGrantRequest(as, who, oauth.None(), tokens.refresh_token!, insecure);
    const strangerRefresh = await refreshAs(stranger);
    expect(strangerRefresh.status).toBe(400);
    expect(await strangerRefresh.json()).toMatchObject({ error: 'invalid_grant' });
    // Revocation by another client leaves the token working (RFC 7009 §2.1: still 200).
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, stranger, oauth.None(), tokens.refresh_token!, insecure),
    );

    expect(await mcpStatus(tokens.access_token)).toBe(200);
    const [otherSpelling] = signatureSpellings(tokens.access_token).filter((t) => t !== tokens.access_token);
    expect(await mcpStatus(otherSpelling)).toBe(200);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), tokens.access_token, insecure),
    );
    expect(await mcpStatus(tokens.access_token)).toBe(401);
    // Every spelling that verifies as the token is revoked with it.
    expect(await mcpStatus(otherSpelling)).toBe(401);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
    );
    const refused = await refreshAs(client);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });

    // Signing in again needs no consent: the user approved this client for these scopes.
    const again = await signIn(as, client, false);
    expect(await mcpStatus(again.access_token)).toBe(200);
  }

  it('signs in a Client ID Metadata Document client, calls a tool and refreshes', async () => {
    const clientId = `${documents.url}/client.json`;
    await fullFlow({ client_id: clientId, token_endpoint_auth_method: 'none' });
    // A second authorization uses the cached document.
    const again = await fetch(
      `${stack.t.baseUrl}/oauth/authorize?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        response_type: 'code',
        code_challenge: oauth.generateRandomCodeVerifier(),
        code_challenge_method: 'S256',
      }).toString()}`,
      { redirect: 'manual' },
    );
    expect(again.status).toBe(302);
    expect(new URL(again.headers.get('location')!).origin).toBe(stack.idp.url);
    expect(documents.hits.get('/client.json')).toBe(1);
  });

  it('signs in a dynamically registered client with its own client id, calls a tool and refreshes', async () => {
    const as = await discover();
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        {
          redirect_uris: [REDIRECT_URI],
          client_name: 'Strict e2e DCR client',
          token_endpoint_auth_method: 'none',
        },
        insecure,
      ),
    );
    expect(registered.client_id).not.toBe(OAUTH.OAUTH_CLIENT_ID);
    expect(registered.redirect_uris).toEqual([REDIRECT_URI]);
    await fullFlow({ client_id: registered.client_id, token_endpoint_auth_method: 'none' });
  });
});
