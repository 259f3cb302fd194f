import type { Request } from 'express';
import { publicBaseUrl } from '@app/core';
import type { AppConfigService, EnvironmentVariables } from '@app/core';

/** The identity provider as the service sees it: where tokens come from and what they must say. */
export interface OAuthSettings {
  /** {idp_url} without a trailing slash. */
  idpUrl: string;
  /** `{idp_url}/`: the `iss` every accepted token carries. */
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  /** RFC 7009, where revoked tokens are passed on (`{idp_url}/oauth/revoke`). */
  revocationEndpoint: string;
  clientId: string;
  audience: string;
  connection?: string;
  /** Name of the claim holding `{companyId, subscriptionId}`. */
  userMetadataClaim: string;
}

type OAuthEnv = Pick<
  EnvironmentVariables,
  'IDP_URL' | 'OAUTH_CLIENT_ID' | 'OAUTH_AUDIENCE' | 'OAUTH_CONNECTION' | 'OAUTH_CLAIM_NAMESPACE'
>;

/** The settings, or undefined when no identity provider is configured (tests without OAuth). */
export function oauthSettingsFrom(env: OAuthEnv): OAuthSettings | undefined {
  if (!env.IDP_URL || !env.OAUTH_CLIENT_ID || !env.OAUTH_AUDIENCE || !env.OAUTH_CLAIM_NAMESPACE) {
    return undefined;
  }
  const idpUrl = env.IDP_URL.replace(/\/+$/, '');
  return {
    idpUrl,
    issuer: `${idpUrl}/`,
    authorizationEndpoint: `${idpUrl}/authorize`,
    tokenEndpoint: `${idpUrl}/oauth/token`,
    jwksUri: `${idpUrl}/.well-known/jwks.json`,
    revocationEndpoint: `${idpUrl}/oauth/revoke`,
    clientId: env.OAUTH_CLIENT_ID,
    audience: env.OAUTH_AUDIENCE,
    connection: env.OAUTH_CONNECTION,
    userMetadataClaim: `${env.OAUTH_CLAIM_NAMESPACE.replace(/\/+$/, '')}/user_metadata`,
  };
}

/** The settings from the validated configuration (see {@link oauthSettingsFrom}). */
export function oauthSettingsFromConfig(config: AppConfigService): OAuthSettings | undefined {
  return oauthSettingsFrom({
    IDP_URL: config.get('IDP_URL', { infer: true }),
    OAUTH_CLIENT_ID: config.get('OAUTH_CLIENT_ID', { infer: true }),
    OAUTH_AUDIENCE: config.get('OAUTH_AUDIENCE', { infer: true }),
    OAUTH_CONNECTION: config.get('OAUTH_CONNECTION', { infer: true }),
    OAUTH_CLAIM_NAMESPACE: config.get('OAUTH_CLAIM_NAMESPACE', { infer: true }),
  });
}

/**
 * `resource_metadata` pointer sent with every 401 of a bearer-token route: the root document, or
 * with `resourcePath` the document of that resource (RFC 9728 §3.1, e.g. `/mcp`).
 */
export const protectedResourceMetadataUrl = (baseUrl: string, resourcePath = ''): string =>
  `${baseUrl}/.well-known/oauth-protected-resource${resourcePath}`;

/**
 * The protected-resource metadata a bearer challenge (401 or 403) of this request points at: in
 * issuer mode the document of the URL the client called (RFC 9728 §5.1, e.g. `/mcp`), in proxy
 * mode the root document, as the spec of that mode gives it. Undefined without a base URL.
 */
export function bearerResourceMetadataUrl(request: Request, config: AppConfigService): string | undefined {
  const baseUrl = publicBaseUrl(request, {
    BASE_URL: config.get('BASE_URL', { infer: true }),
    TRUST_PROXY: config.get('TRUST_PROXY', { infer: true }),
  });
  const issuer = config.get('OAUTH_MODE', { infer: true }) === 'issuer';
  return baseUrl && protectedResourceMetadataUrl(baseUrl, issuer ? request.path : '');
}
