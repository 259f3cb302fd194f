import type { OAuthSettings } from '@app/auth';

/** The fixed name every registration answers with (one shared public client). */
export const MCP_CLIENT_NAME = 'Funnel CRM MCP client';

export const SCOPES_SUPPORTED = ['offline_access'];

/** RFC 9728 protected-resource metadata: the service is its own authorization-server front door. */
export function protectedResourceMetadata(baseUrl: string) {
  return {
    resource: baseUrl,
    authorization_servers: [baseUrl],
    scopes_supported: SCOPES_SUPPORTED,
    bearer_methods_supported: ['header'],
  };
}

/**
 * RFC 8414 metadata: authorize and register go through this service (which adds the audience and
 * connection and hands out the shared client id); tokens and keys come from the identity provider.
 */
export function authorizationServerMetadata(baseUrl: string, settings: OAuthSettings) {
  return {
    issuer: settings.issuer,
    authorization_endpoint: `${baseUrl}/oauth/authorize`,
    token_endpoint: settings.tokenEndpoint,
    jwks_uri: settings.jwksUri,
    registration_endpoint: `${baseUrl}/oauth/register`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: SCOPES_SUPPORTED,
  };
}

/**
 * The identity provider's authorize URL carrying every parameter the client sent (repeats kept, in
 * order) plus `audience` and `connection` from configuration, which replace client-sent values.
 */
export function identityProviderAuthorizeUrl(rawQuery: string, settings: OAuthSettings): string {
  const params = new URLSearchParams(rawQuery);
  params.delete('audience');
  params.append('audience', settings.audience);
  if (settings.connection) {
    params.delete('connection');
    params.append('connection', settings.connection);
  }
  return `${settings.authorizationEndpoint}?${params.toString()}`;
}

export const REDIRECT_URIS_ERROR = 'redirect_uris must be a non-empty array';

/** The registration answer, or undefined when `redirect_uris` is not a non-empty array of strings. */
export function registerClient(body: unknown, clientId: string) {
  const redirectUris = (body as { redirect_uris?: unknown } | null | undefined)?.redirect_uris;
  if (
    !Array.isArray(redirectUris) ||
    !redirectUris.length ||
    !redirectUris.every((u) => typeof u === 'string')
  ) {
    return undefined;
  }
  return {
    client_id: clientId,
    client_name: MCP_CLIENT_NAME,
    redirect_uris: redirectUris as string[],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}
