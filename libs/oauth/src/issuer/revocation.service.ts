import { Injectable, Logger } from '@nestjs/common';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { OAuthSettings, RevokedAccessTokens } from '@app/auth';
import { OAuthProtocolError } from '../oauth-protocol-error';
import { AuthorizationRepository } from './authorization.repository';
import { hashSecret } from './oauth-secrets';

const PROVIDER_TIMEOUT_MS = 5_000;

/**
 * Token revocation (RFC 7009) of issuer mode. A refresh token is forgotten (the refresh grant
 * refuses it) when the client presenting it is the one it was handed to; an access token the
 * identity provider signed goes on the deny list the bearer guard reads. Both are passed on to the
 * provider's revocation endpoint, since they are its tokens. Anything else is answered 200 too.
 */
@Injectable()
export class RevocationService {
  private readonly logger = new Logger(RevocationService.name);
  private keys?: ReturnType<typeof createRemoteJWKSet>;

  constructor(
    private readonly store: AuthorizationRepository,
    private readonly revokedAccessTokens: RevokedAccessTokens,
  ) {}

  async revoke(form: Record<string, unknown>, settings: OAuthSettings): Promise<void> {
    const [token, clientId] = [form.token, form.client_id];
    if (typeof token !== 'string' || !token || typeof clientId !== 'string' || !clientId)
      throw new OAuthProtocolError('invalid_request', 'token and client_id are required');
    const wasRefreshToken = await this.store.forgetRefreshToken(hashSecret(token), clientId);
    const expiresAt = wasRefreshToken ? undefined : await this.accessTokenExpiry(token, settings);
    if (expiresAt) await this.revokedAccessTokens.revoke(token, expiresAt);
    if (wasRefreshToken || expiresAt)
      await this.revokeAtProvider(token, wasRefreshToken ? 'refresh_token' : 'access_token', settings);
  }

  /** When a token the provider signed for this service expires; undefined for anything else. */
  private async accessTokenExpiry(token: string, settings: OAuthSettings): Promise<Date | undefined> {
    if (token.split('.').length !== 3) return undefined;
    this.keys ??= createRemoteJWKSet(new URL(settings.jwksUri));
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: settings.issuer,
        audience: settings.audience,
        algorithms: ['RS256'],
      });
      return typeof payload.exp === 'number' ? new Date(payload.exp * 1000) : undefined;
    } catch {
      // Not a valid token of ours (RFC 7009 §2.2: nothing to revoke, still 200).
      return undefined;
    }
  }

  private async revokeAtProvider(token: string, hint: string, settings: OAuthSettings): Promise<void> {
    try {
      const response = await fetch(settings.revocationEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, token_type_hint: hint, client_id: settings.clientId }),
        signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
      });
      if (!response.ok) this.logger.warn(`identity provider revocation answered ${response.status}`);
    } catch (error) {
      this.logger.warn(`identity provider revocation failed: ${(error as Error).message}`);
    }
  }
}
