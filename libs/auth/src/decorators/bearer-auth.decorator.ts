import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { ApiErrorResponse, BEARER_SECURITY } from '@app/core';
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
    ApiErrorResponse(
      401,
      'Missing or invalid access token. `WWW-Authenticate: Bearer resource_metadata="{base_url}/.well-known/oauth-protected-resource"` ' +
        'points MCP clients to the OAuth discovery; when a token was sent it adds `error="invalid_token", error_description="Invalid token"`.',
      'Bearer token is required',
      'Invalid token',
    ),
    ApiErrorResponse(
      503,
      'The identity provider (its JWKS) cannot be reached, or no identity provider is configured',
      'The identity provider is unavailable, try again later',
      'OAuth is not configured on this server',
    ),
  );
