import { MCP_SCOPES, OAuthSettings } from '@app/auth';

/** The fixed name every registration answers with (one shared public client). */
export const MCP_CLIENT_NAME = 'Funnel CRM MCP client';

/** Proxy mode's scopes, as the published spec of that mode has them. */
export const SCOPES_SUPPORTED = ['offline_access'];

/**
 * Issuer mode's resource scopes: the MCP scopes only. offline_access is the authorization server's
 * business, advertised in its own metadata, never by the resource (SEP-2207).
 */
export const ISSUER_RESOURCE_SCOPES: string[] = [...MCP_SCOPES];
export const ISSUER_SCOPES_SUPPORTED = [...MCP_SCOPES, 'offline_access'];

/**
 * RFC 9728 protected-resource metadata: the service is its own authorization-server front door.
 * `resource` is the base URL (the root document) or the MCP endpoint's URL (`/.well-known/oauth-protected-resource/mcp`).
 */
export function protectedResourceMetadata(baseUrl: string, resource = baseUrl, scopes = SCOPES_SUPPORTED) {
  return {
    resource,
    authorization_servers: [baseUrl],
    scopes_supported: scopes,
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
 * RFC 8414 metadata of issuer mode: this service is the authorization server its clients see
 * (authorize, token and registration here, `iss` on every authorization response), and accepts
 * Client ID Metadata Documents as well as registered clients.
 */
export function issuerMetadata(baseUrl: string) {
  return {
    issuer: baseUrl,
    authorization_endpoint: `${baseUrl}/oauth/authorize`,
    token_endpoint: `${baseUrl}/oauth/token`,
    registration_endpoint: `${baseUrl}/oauth/register`,
    revocation_endpoint: `${baseUrl}/oauth/revoke`,
    revocation_endpoint_auth_methods_supported: ['none'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: ISSUER_SCOPES_SUPPORTED,
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
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

/** The `redirect_uris` of a registration request, or undefined unless a non-empty array of strings. */
export function requestedRedirectUris(body: unknown): string[] | undefined {
  const redirectUris = (body as { redirect_uris?: unknown } | null | undefined)?.redirect_uris;
  const valid =
    Array.isArray(redirectUris) &&
    redirectUris.length > 0 &&
    redirectUris.every((u) => typeof u === 'string');
  return valid ? (redirectUris as string[]) : undefined;
}

/** The registration answer, or undefined when `redirect_uris` is not a non-empty array of strings. */
export function registerClient(body: unknown, clientId: string) {
  const redirectUris = requestedRedirectUris(body);
  if (!redirectUris) return undefined;
  return {
    client_id: clientId,
    client_name: MCP_CLIENT_NAME,
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}
