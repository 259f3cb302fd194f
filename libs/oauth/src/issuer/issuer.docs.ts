import { applyDecorators } from '@nestjs/common';
import {
  ApiConsumes,
  ApiFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiSeeOtherResponse,
} from '@nestjs/swagger';
import { ApiErrorResponses } from '@app/core';
import { CODE_TTL_MS } from './consent.service';

/** The body of an RFC 6749 §5.2 error. */
const OAUTH_ERROR = {
  schema: {
    type: 'object' as const,
    required: ['error'],
    properties: { error: { type: 'string' as const }, error_description: { type: 'string' as const } },
  },
};

export const CallbackDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Return from the identity provider (issuer mode)',
      description:
        "Exchanges the provider's code. When the signed-in user has approved the client for the scopes " +
        "asked, redirects to the client's `redirect_uri` with a code of this service (single use, valid " +
        `${CODE_TTL_MS / 1000} s), the client's \`state\` and \`iss\` = {base_url}; otherwise answers the ` +
        'consent page (HTML, never framed) and a SameSite=Strict cookie binding it to this browser.',
    }),
    ApiFoundResponse({ description: "Redirect to the client's redirect_uri" }),
    ApiOkResponse({ description: 'The consent page (text/html)' }),
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
      400: { ...OAUTH_ERROR, description: 'An RFC 6749 §5.2 error (invalid_request, invalid_grant, ...)' },
      404: { description: 'proxy mode', examples: ['Cannot POST /oauth/token'] },
    }),
  );

export const ConsentDocs = () =>
  applyDecorators(
    ApiConsumes('application/x-www-form-urlencoded'),
    ApiOperation({
      summary: "The consent page's answer (issuer mode)",
      description:
        'The form of the consent page: `consent_token` (from the page) and `decision` (`approve` or `deny`), ' +
        "with the page's consent cookie. `approve` remembers the approval for this user, client and scopes " +
        'and redirects to the client with its code; `deny` redirects with `error=access_denied`. A request ' +
        "without the page's token and the same browser's cookie is refused and changes nothing.",
    }),
    ApiSeeOtherResponse({ description: "Redirect to the client's redirect_uri" }),
    ApiErrorResponses({
      400: {
        description: 'Missing, forged, used or expired consent',
        examples: ['Unknown or expired consent request'],
      },
      404: { description: 'proxy mode', examples: ['Cannot POST /oauth/consent'] },
    }),
  );

export const RevokeDocs = () =>
  applyDecorators(
    ApiConsumes('application/x-www-form-urlencoded'),
    ApiOperation({
      summary: 'Token revocation (RFC 7009, issuer mode)',
      description:
        '`token` (a refresh or access token), optional `token_type_hint`, and the `client_id` the token was ' +
        'issued to. A refresh token can no longer be refreshed; an access token is refused by `/mcp` from the ' +
        'next request on. Both are also revoked at the identity provider. An unknown or invalid token is ' +
        'answered 200 as well (RFC 7009 §2.2).',
    }),
    ApiOkResponse({ description: 'Revoked (or nothing to revoke): `{}`' }),
    ApiErrorResponses({
      400: { ...OAUTH_ERROR, description: 'An RFC 6749 §5.2 error (invalid_request)' },
      404: { description: 'proxy mode', examples: ['Cannot POST /oauth/revoke'] },
    }),
  );
