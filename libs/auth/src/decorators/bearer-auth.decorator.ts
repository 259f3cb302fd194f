import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiServiceUnavailableResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { BEARER_SECURITY } from '@app/core/http/swagger';
import { BearerTokenGuard } from '../guards/bearer-token.guard';

export const BEARER_AUTH = 'auth:bearer';

/**
 * The route is protected by an OAuth bearer token instead of an API key (the MCP endpoint): sets
 * the metadata the API-key guard skips, runs the bearer-token guard and documents both in Swagger.
 */
export const BearerAuth = () =>
  applyDecorators(
    SetMetadata(BEARER_AUTH, true),
    UseGuards(BearerTokenGuard),
    ApiBearerAuth(BEARER_SECURITY),
    ApiUnauthorizedResponse({
      description:
        'Missing (`Bearer token is required`) or invalid (`Invalid token`) access token. The ' +
        '`WWW-Authenticate` header points to the protected-resource metadata: ' +
        '`Bearer resource_metadata="{base_url}/.well-known/oauth-protected-resource"`, plus ' +
        '`error="invalid_token", error_description="Invalid token"` when a token was sent.',
    }),
    ApiServiceUnavailableResponse({
      description: 'The identity provider (its JWKS) cannot be reached, or OAuth is not configured',
    }),
  );
