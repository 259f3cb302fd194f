import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, JWK } from 'jose';
import Provider, { Configuration } from 'oidc-provider';
import { MCP_SCOPES } from '@app/auth';
import type { DevUserLookup } from './dev-user';
import { approveInteraction, INTERACTION_PATH } from './auto-approve.interaction';
import { devIdpStore } from './dev-idp-store';
import { isLoopbackUrl } from './loopback';

export interface DevIdpOptions {
  /** Loopback port to listen on; 0 picks a free one. */
  port: number;
  clientId: string;
  audience: string;
  claimNamespace: string;
  findUser: DevUserLookup;
  /** Private RSA signing key (JWK with kid); generated when absent. */
  signingKey?: JWK;
}

export interface DevIdp {
  /** `http://127.0.0.1:<port>`: the value for IDP_URL. */
  url: string;
  close(): Promise<void>;
}

const HOUR = 60 * 60;
const DAY = 24 * HOUR;

/**
 * A development identity provider (oidc-provider) on loopback: the shared public client with PKCE
 * S256 and any loopback redirect URI, RS256 JWT access tokens for OAUTH_AUDIENCE carrying
 * `<namespace>/user_metadata = {companyId, subscriptionId}` and the MCP scopes asked for, refresh
 * tokens with offline_access, and login/consent approved automatically for the development user.
 * Never used in production.
 */
export async function startDevIdp(options: DevIdpOptions): Promise<DevIdp> {
  const signingKey = options.signingKey ?? (await generateSigningKey());
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(`${url}/`, configuration(options, signingKey));
  // Any loopback callback (port and path) is fine for a development client, as RFC 8252 allows.
  provider.Client.prototype.redirectUriAllowed = isLoopbackUrl;

  const handleProvider = provider.callback();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (request.url?.startsWith(INTERACTION_PATH)) {
      approveInteraction(
        provider,
        options.findUser,
        defaultResource(options.audience),
        request,
        response,
      ).catch((error: Error) => {
        response
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`dev identity provider: ${error.message}`);
      });
      return;
    }
    request.url = withConsentForOfflineAccess(request.url ?? '/');
    handleProvider(request, response);
  });
  return { url, close: () => closeServer(server) };
}

function configuration(options: DevIdpOptions, signingKey: JWK): Configuration {
  const userMetadataClaim = `${options.claimNamespace.replace(/\/+$/, '')}/user_metadata`;
  return {
    clients: [
      {
        client_id: options.clientId,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: ['http://127.0.0.1/callback'],
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    adapter: devIdpStore(),
    scopes: ['openid', 'offline_access'],
    routes: {
      authorization: '/authorize',
      token: '/oauth/token',
      jwks: '/.well-known/jwks.json',
      revocation: '/oauth/revoke',
    },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      // Only the client a token was issued to may revoke it (the service, as the shared client).
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => Promise.resolve(token.clientId === client.clientId),
      },
      resourceIndicators: {
        enabled: true,
        // Clients that send no `resource` still get a JWT for the API.
        defaultResource: (_ctx, _client, oneOf) => oneOf ?? defaultResource(options.audience),
        useGrantedResource: () => true,
        // The API's scopes a client may ask for; the token's `scope` lists those it was granted.
        getResourceServerInfo: () => ({
          scope: ['offline_access', ...MCP_SCOPES].join(' '),
          audience: options.audience,
          accessTokenFormat: 'jwt',
          accessTokenTTL: HOUR,
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}${interaction.uid}` },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    extraTokenClaims: async (_ctx, token) => {
      if (token.kind !== 'AccessToken' || !token.accountId) return undefined;
      const user = await options.findUser(token.accountId);
      if (!user) throw new Error(`company ${token.accountId} no longer exists`);
      return { [userMetadataClaim]: user };
    },
    clientBasedCORS: (_ctx, origin) => isLoopbackUrl(origin),
    renderError: (ctx, out) => {
      ctx.type = 'text/plain';
      ctx.body = `${out.error}: ${out.error_description ?? ''}`;
    },
    ttl: {
      AccessToken: HOUR,
      AuthorizationCode: 60,
      Grant: 14 * DAY,
      Interaction: HOUR,
      RefreshToken: 14 * DAY,
      Session: 14 * DAY,
    },
  };
}

/**
 * The resource a client that names none is granted: the audience when it is an absolute URI, else
 * a URN of it (resource indicators must be absolute URIs, RFC 8707; an audience such as the
 * development default `funnel-crm-api` is not). The token's `aud` is the audience either way.
 */
export function defaultResource(audience: string): string {
  return /^[a-z][a-z0-9+.-]*:/i.test(audience)
    ? audience
    : `urn:funnel-crm:audience:${encodeURIComponent(audience)}`;
}

/**
 * oidc-provider follows OpenID Connect and drops `offline_access` unless `prompt=consent` is sent;
 * OAuth clients (MCP) do not send it, and consent is automatic here, so ask for it on their behalf.
 */
function withConsentForOfflineAccess(url: string): string {
  if (!url.startsWith('/authorize?')) return url;
  const params = new URLSearchParams(url.slice('/authorize?'.length));
  if (!params.get('scope')?.split(' ').includes('offline_access') || params.has('prompt')) return url;
  params.set('prompt', 'consent');
  return `/authorize?${params.toString()}`;
}

async function generateSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
