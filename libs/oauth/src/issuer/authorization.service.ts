import { BadRequestException, Injectable, Logger } from '@nestjs/common';
import type { OAuthSettings } from '@app/auth';
import { isStorableText, UNSTORABLE_TEXT_RULE } from '@app/core';
import { AuthorizationRepository } from './authorization.repository';
import { ClientRejectedError } from './client-metadata-document';
import {
  ProviderUnavailableError,
  requestProviderTokens,
  tokenResponseFields,
} from './identity-provider.client';
import { backToClient, ConsentService, SignInOutcome } from './consent.service';
import { OAuthClientsService, redirectUriMatches } from './oauth-clients.service';
import { OAuthProtocolError } from '../oauth-protocol-error';
import { hashSecret, openWithCode, providerCodeVerifier, randomSecret, s256 } from './oauth-secrets';

/** Long enough for a person to sign in at the identity provider. */
const PENDING_TTL_MS = 10 * 60_000;
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;
export const CALLBACK_PATH = '/oauth/callback';

/**
 * An invalid authorization request. It is answered with an error page, never sent back to the
 * client's redirect URI: the user is not known before sign-in, so no approval of this client can
 * vouch for it, and a silent redirect would make the endpoint an open redirector (RFC 9700 §4.11.2).
 */
class InvalidAuthorizationRequest extends BadRequestException {
  constructor(code: string, description: string) {
    super(`${code}: ${description}`);
  }
}

/** `value` of parameter `name`, refused when PostgreSQL could not store it (the pending request keeps it). */
function storable<T extends string | null | undefined>(name: string, value: T): T {
  if (value && !isStorableText(value))
    throw new InvalidAuthorizationRequest('invalid_request', `${name} ${UNSTORABLE_TEXT_RULE}`);
  return value;
}

/** A query's parameters, refusing repeats (RFC 6749 §3.1) and unstorable text. */
function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw new InvalidAuthorizationRequest('invalid_request', `${name} is repeated`);
  return storable(name, values[0]) || undefined;
}

const withOfflineAccess = (scope: string | undefined) =>
  [...new Set([...(scope ?? '').split(' ').filter(Boolean), 'offline_access'])].join(' ');

/**
 * Issuer mode's authorization code flow: the client authorizes here, the user signs in at the
 * identity provider (as the shared client, with this service's callback and PKCE), and the client
 * receives a code of ours, bound to it, its redirect URI and its PKCE challenge, which it exchanges
 * here for the provider's tokens. Between sign-in and code, the user consents (ConsentService).
 */
@Injectable()
export class AuthorizationService {
  private readonly logger = new Logger(AuthorizationService.name);

  constructor(
    private readonly clients: OAuthClientsService,
    private readonly store: AuthorizationRepository,
    private readonly consent: ConsentService,
  ) {}

  /** The identity provider URL to send the browser to; an invalid request is a 400, never a redirect. */
  async authorize(params: URLSearchParams, issuer: string, settings: OAuthSettings): Promise<string> {
    const { clientId, redirectUri } = await this.verifiedClient(params);
    const clientState = storable('state', params.get('state'));
    if (single(params, 'response_type') !== 'code')
      throw new InvalidAuthorizationRequest('unsupported_response_type', 'response_type must be code');
    const challenge = single(params, 'code_challenge');
    if (!challenge || !PKCE_VALUE.test(challenge))
      throw new InvalidAuthorizationRequest('invalid_request', 'code_challenge (PKCE) is required');
    if (single(params, 'code_challenge_method') !== 'S256')
      throw new InvalidAuthorizationRequest('invalid_request', 'code_challenge_method must be S256');
    const resource = single(params, 'resource');
    if (resource && ![issuer, `${issuer}/mcp`].includes(resource.replace(/\/+$/, '')))
      throw new InvalidAuthorizationRequest(
        'invalid_target',
        'resource must be this service or its /mcp endpoint',
      );

    const state = randomSecret();
    // The provider is always asked for offline_access: this service is its client, and every
    // client of ours gets a refresh token, whether it asked for one or not (SEP-2207 leaves
    // that to the authorization server).
    const scope = withOfflineAccess(single(params, 'scope'));
    await this.store.savePending({
      stateHash: hashSecret(state),
      clientId,
      redirectUri,
      clientState,
      codeChallenge: challenge,
      scope,
      issuer,
      expiresAt: new Date(Date.now() + PENDING_TTL_MS),
    });
    const url = new URL(settings.authorizationEndpoint);
    url.search = new URLSearchParams({
      client_id: settings.clientId,
      redirect_uri: `${issuer}${CALLBACK_PATH}`,
      response_type: 'code',
      scope,
      state,
      code_challenge: s256(providerCodeVerifier(state)),
      code_challenge_method: 'S256',
      audience: settings.audience,
      ...(settings.connection ? { connection: settings.connection } : {}),
    }).toString();
    return url.toString();
  }

  /** The identity provider came back: exchange its code, then the consent page or the client's code. */
  async callback(params: URLSearchParams, settings: OAuthSettings): Promise<SignInOutcome> {
    const state = params.get('state');
    const pending = state ? await this.store.takePending(hashSecret(state)) : undefined;
    if (!state || !pending) throw new BadRequestException('Unknown or expired authorization request');
    const back = (values: Record<string, string | undefined>) => ({
      redirect: backToClient(pending, values),
    });

    const providerError = params.get('error');
    if (providerError)
      return back({
        error: providerError === 'access_denied' ? 'access_denied' : 'server_error',
        error_description: `the identity provider answered ${providerError.slice(0, 64)}`,
      });
    const providerIssuer = params.get('iss');
    const code = params.get('code');
    if (!code || (providerIssuer && providerIssuer !== settings.issuer))
      return back({ error: 'server_error', error_description: 'invalid identity provider response' });

    let tokens: Record<string, unknown>;
    try {
      const answer = await requestProviderTokens(settings, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: `${pending.issuer}${CALLBACK_PATH}`,
        code_verifier: providerCodeVerifier(state),
      });
      if (answer.status !== 200 || typeof answer.body.access_token !== 'string') {
        this.logger.warn(`identity provider refused the code: ${String(answer.body.error)}`);
        return back({
          error: 'access_denied',
          error_description: 'the identity provider refused the sign-in',
        });
      }
      tokens = answer.body;
    } catch (error) {
      if (!(error instanceof ProviderUnavailableError)) throw error;
      this.logger.warn(error.message);
      return back({ error: 'temporarily_unavailable', error_description: 'identity provider unavailable' });
    }

    return this.consent.afterSignIn(pending, tokens);
  }

  /** The token endpoint: our code (with the client's PKCE verifier) or a refresh token. */
  async token(body: Record<string, unknown>, settings: OAuthSettings): Promise<Record<string, unknown>> {
    const field = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
    const grantType = field('grant_type');
    if (grantType === 'authorization_code') return this.redeemCode(field);
    if (grantType === 'refresh_token') return this.refresh(field, settings);
    throw new OAuthProtocolError(
      'unsupported_grant_type',
      'grant_type must be authorization_code or refresh_token',
    );
  }

  private async redeemCode(field: (name: string) => string | undefined): Promise<Record<string, unknown>> {
    const [code, clientId, redirectUri, verifier] = [
      'code',
      'client_id',
      'redirect_uri',
      'code_verifier',
    ].map(field);
    if (!code || !clientId || !redirectUri || !verifier)
      throw new OAuthProtocolError(
        'invalid_request',
        'code, client_id, redirect_uri and code_verifier are required',
      );
    // Taken (deleted) before any check: a code is spent by its first use, right or wrong (RFC 9700 §4.5).
    const row = await this.store.takeCode(hashSecret(code));
    if (!row || !row.live)
      throw new OAuthProtocolError('invalid_grant', 'the code is invalid, expired or already used');
    if (row.clientId !== clientId || row.redirectUri !== redirectUri)
      throw new OAuthProtocolError('invalid_grant', 'the code was issued to another client or redirect_uri');
    if (!PKCE_VALUE.test(verifier) || s256(verifier) !== row.codeChallenge)
      throw new OAuthProtocolError('invalid_grant', 'code_verifier does not match the code_challenge');
    const tokens = JSON.parse(openWithCode(code, row.sealedTokens)) as Record<string, unknown>;
    if (typeof tokens.refresh_token === 'string')
      await this.store.bindRefreshToken(hashSecret(tokens.refresh_token), clientId);
    return tokenResponseFields(tokens, (Date.now() - row.createdAt.getTime()) / 1000);
  }

  private async refresh(
    field: (name: string) => string | undefined,
    settings: OAuthSettings,
  ): Promise<Record<string, unknown>> {
    const [refreshToken, clientId] = [field('refresh_token'), field('client_id')];
    if (!refreshToken || !clientId)
      throw new OAuthProtocolError('invalid_request', 'refresh_token and client_id are required');
    // A refresh token is good only from the client it was handed to.
    if ((await this.store.refreshTokenClient(hashSecret(refreshToken))) !== clientId)
      throw new OAuthProtocolError(
        'invalid_grant',
        "the refresh token is unknown, revoked or not this client's",
      );
    const scope = field('scope');
    const answer = await requestProviderTokens(settings, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      ...(scope ? { scope } : {}),
    }).catch((error: unknown) => {
      if (!(error instanceof ProviderUnavailableError)) throw error;
      this.logger.warn(error.message);
      throw new OAuthProtocolError('temporarily_unavailable', 'identity provider unavailable', 503);
    });
    if (answer.status === 200 && typeof answer.body.access_token === 'string') {
      const rotated = answer.body.refresh_token;
      if (typeof rotated === 'string' && rotated !== refreshToken)
        await this.store.rotateRefreshToken(hashSecret(refreshToken), hashSecret(rotated), clientId);
      return tokenResponseFields(answer.body);
    }
    const code = typeof answer.body.error === 'string' ? answer.body.error : 'invalid_grant';
    throw new OAuthProtocolError(code, 'the identity provider refused the refresh token');
  }

  /** The client and the redirect URI it may use: never redirect anywhere unverified (RFC 6749 §4.1.2.1). */
  private async verifiedClient(params: URLSearchParams): Promise<{ clientId: string; redirectUri: string }> {
    const [clientId, ...moreIds] = params.getAll('client_id');
    const [requested, ...moreUris] = params.getAll('redirect_uri');
    if (!clientId || moreIds.length || moreUris.length)
      throw new BadRequestException('client_id is required (once), redirect_uri at most once');
    const client = await this.clients.resolve(clientId).catch((error: unknown) => {
      throw error instanceof ClientRejectedError ? new BadRequestException(error.message) : error;
    });
    const redirectUri = requested ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
    if (
      !redirectUri ||
      !client.redirectUris.some((registered) => redirectUriMatches(registered, redirectUri))
    )
      throw new BadRequestException('redirect_uri is not registered for this client');
    return { clientId, redirectUri };
  }
}
