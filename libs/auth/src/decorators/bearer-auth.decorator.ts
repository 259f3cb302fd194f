import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { ApiErrorResponses, BEARER_SECURITY } from '@app/core';
import {
  BearerTokenRefusedError,
  IdentityProviderUnavailableError,
  OAuthNotConfiguredError,
} from '../errors/auth.errors';
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
    ApiErrorResponses({
      401: {
        description:
          'Missing or invalid access token. `WWW-Authenticate: Bearer resource_metadata="{base_url}/.well-known/oauth-protected-resource"` ' +
          'points MCP clients to the OAuth discovery; when a token was sent it adds `error="invalid_token", error_description="Invalid token"`.',
        examples: [new BearerTokenRefusedError(false).message, new BearerTokenRefusedError(true).message],
      },
      503: {
        description:
          'The identity provider (its JWKS) cannot be reached, or no identity provider is configured',
        examples: [new IdentityProviderUnavailableError().message, new OAuthNotConfiguredError().message],
      },
    }),
  );
