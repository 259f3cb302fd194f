import { CanActivate, ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request, Response } from 'express';
import passport from 'passport';
import type { Strategy } from 'passport-jwt';
import { AuthFailureLimiter, type AppConfigService } from '@app/core';
import { CompaniesService } from '../companies.service';
import type { AuthenticatedRequest } from '../decorators/current-company.decorator';
import {
  BearerTokenRefusedError,
  IdentityProviderUnavailableError,
  OAuthNotConfiguredError,
} from '../errors/auth.errors';
import { MCP_SCOPES, tokenScopesOf } from '../oauth-scopes';
import { bearerResourceMetadataUrl, oauthSettingsFromConfig } from '../oauth-settings';
import { RevokedAccessTokens } from '../revoked-access-tokens.repository';
import {
  bearerTokenFrom,
  createBearerTokenStrategy,
  TokenPrincipal,
  userMetadataOf,
} from '../strategies/bearer-token.strategy';

/**
 * Guards `@BearerAuth()` routes: the request needs an access token from the configured identity
 * provider naming an existing company. Refusals are 401 with the `WWW-Authenticate` challenge that
 * starts MCP clients on the OAuth discovery flow; an unreachable JWKS is a 503, never a 500.
 */
@Injectable()
export class BearerTokenGuard implements CanActivate {
  private readonly logger = new Logger(BearerTokenGuard.name);
  private readonly strategy?: Strategy;

  constructor(
    @Inject(ConfigService) private readonly config: AppConfigService,
    private readonly companies: CompaniesService,
    private readonly failures: AuthFailureLimiter,
    private readonly revoked: RevokedAccessTokens,
  ) {
    const settings = oauthSettingsFromConfig(config);
    this.strategy =
      settings &&
      createBearerTokenStrategy(settings, async (payload) => {
        const metadata = userMetadataOf(payload, settings.userMetadataClaim);
        if (!metadata || !(await this.companies.exists(metadata.companyId))) return false;
        return {
          ...metadata,
          subject: typeof payload.sub === 'string' ? payload.sub : undefined,
          scopes: tokenScopesOf(payload),
        };
      });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request & AuthenticatedRequest>();
    const response = context.switchToHttp().getResponse<Response>();
    if (!this.strategy) throw new OAuthNotConfiguredError();
    const tokenSent = bearerTokenFrom(request) !== null;
    if (tokenSent) await this.failures.refuseIfBlocked(request, response);

    const { principal, failure } = await this.authenticate(this.strategy, request, response);
    // A revoked token (RFC 7009) is refused like an invalid one, from the next request on.
    if (principal && !(await this.revoked.isRevoked(bearerTokenFrom(request)!))) {
      request.principal = principal;
      return true;
    }
    if (isJwksUnavailable(failure)) {
      this.logger.warn(`JWKS unavailable: ${(failure as Error).message}`);
      throw new IdentityProviderUnavailableError();
    }
    if (tokenSent) await this.failures.recordFailure(request);
    response.setHeader('WWW-Authenticate', this.challenge(request, tokenSent));
    throw new BearerTokenRefusedError(tokenSent);
  }

  private challenge(request: Request, tokenSent: boolean): string {
    const metadataUrl = bearerResourceMetadataUrl(request, this.config);
    const params = metadataUrl ? [`resource_metadata="${metadataUrl}"`] : [];
    // issuer mode names the scopes to ask for, never offline_access (a client decides on refresh
    // tokens from the authorization server's metadata); proxy mode keeps the challenge the spec gives.
    if (this.config.get('OAUTH_MODE', { infer: true }) === 'issuer')
      params.push(`scope="${MCP_SCOPES.join(' ')}"`);
    if (tokenSent) params.push('error="invalid_token"', 'error_description="Invalid token"');
    return `Bearer ${params.join(', ')}`.trim();
  }

  private authenticate(
    strategy: Strategy,
    request: Request,
    response: Response,
  ): Promise<{ principal?: TokenPrincipal; failure?: unknown }> {
    return new Promise((resolve, reject) => {
      // A per-request instance: passport attaches the success/fail callbacks to the object it runs.
      const perRequest = Object.create(strategy) as Strategy;
      passport.authenticate(
        perRequest,
        { session: false },
        (error: unknown, user: unknown, info: unknown) => {
          if (error) reject(error);
          else resolve(user ? { principal: user as TokenPrincipal } : { failure: info });
        },
      )(request, response, reject);
    });
  }
}

// jwks-rsa marks fetch failures `isEndpointUnavailable`; a JWKS without usable keys is a JwksError.
function isJwksUnavailable(failure: unknown): boolean {
  const error = failure as { isEndpointUnavailable?: boolean; name?: string } | undefined;
  return Boolean(error?.isEndpointUnavailable || error?.name === 'JwksError');
}
