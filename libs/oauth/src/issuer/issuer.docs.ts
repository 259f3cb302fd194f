import { applyDecorators } from '@nestjs/common';
import { ApiConsumes, ApiFoundResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiErrorResponses } from '@app/core';
import { CODE_TTL_MS } from './authorization.service';

export const CallbackDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Return from the identity provider (issuer mode)',
      description:
        "Exchanges the provider's code, then redirects to the client's `redirect_uri` with a code of this " +
        `service (single use, valid ${CODE_TTL_MS / 1000} s), the client's \`state\` and \`iss\` = {base_url}.`,
    }),
    ApiFoundResponse({ description: "Redirect to the client's redirect_uri" }),
    ApiErrorResponses({
      400: {
        description: 'Unknown or expired authorization request',
        examples: ['Unknown or expired authorization request'],
      },
      404: { description: 'proxy mode', examples: ['Cannot GET /oauth/callback'] },
    }),
  );

export const TokenDocs = () =>
  applyDecorators(
    ApiConsumes('application/x-www-form-urlencoded'),
    ApiOperation({
      summary: 'Token endpoint (issuer mode)',
      description:
        '`authorization_code` (with `client_id`, `redirect_uri` and the PKCE `code_verifier`) answers the ' +
        "identity provider's tokens; `refresh_token` is passed through to it. Errors follow RFC 6749 §5.2: " +
        '`{"error":"invalid_grant","error_description":"..."}`.',
    }),
    ApiOkResponse({ description: 'access_token, token_type, expires_in, refresh_token, scope' }),
    ApiErrorResponses({
      400: {
        description: 'An RFC 6749 §5.2 error (invalid_request, invalid_grant, ...)',
        schema: {
          type: 'object',
          required: ['error'],
          properties: { error: { type: 'string' }, error_description: { type: 'string' } },
        },
      },
      404: { description: 'proxy mode', examples: ['Cannot POST /oauth/token'] },
    }),
  );
