import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiFoundResponse, ApiOperation, ApiQuery } from '@nestjs/swagger';
import { OAuthNotConfiguredError } from '@app/auth';
import { ApiErrorResponses, ErrorResponseDoc } from '@app/core';
import {
  ClientRegistrationDto,
  ClientRegistrationErrorDto,
  ClientRegistrationRequestDto,
} from './dto/client-registration.dto';

export const NOT_CONFIGURED: ErrorResponseDoc = {
  description: 'No identity provider is configured (IDP_URL)',
  examples: [new OAuthNotConfiguredError().message],
};

const AUTHORIZE_PARAMS: [string, string][] = [
  ['client_id', 'The shared client id from registration'],
  ['redirect_uri', "The client's callback URL"],
  ['response_type', '`code`'],
  ['scope', 'e.g. `offline_access` to also receive a refresh token'],
  ['state', 'Opaque value echoed back to the client'],
  ['code_challenge', 'PKCE challenge: base64url(SHA-256(code_verifier))'],
  ['code_challenge_method', '`S256`'],
  ['resource', 'Resource indicator (RFC 8707): the service base URL'],
];

export const AuthorizeDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Authorization redirect',
      description:
        'proxy mode: forwards every query parameter unchanged (repeated ones too) to `{idp_url}/authorize` and adds ' +
        '`audience` (`OAUTH_AUDIENCE`) and, when configured, `connection` (`OAUTH_CONNECTION`); configured ' +
        'values replace any the client sent. issuer mode: checks the client (registered, or a Client ID ' +
        'Metadata Document URL) and its `redirect_uri`, then sends the browser to the identity provider with ' +
        "this service's callback and PKCE; after sign-in the user approves the client on a consent page " +
        '(once per client and scopes). Any invalid request (unknown client or redirect URI, `response_type` ' +
        'other than `code`, no S256 PKCE, a foreign `resource`) gets 400 and no redirect. A loopback http ' +
        '`redirect_uri` matches its registered one on any port (RFC 8252 §7.3).',
    }),
    ...AUTHORIZE_PARAMS.map(([name, description]) => ApiQuery({ name, required: false, description })),
    ApiQuery({ name: 'other', required: false, description: 'Any other parameter is forwarded as well' }),
    ApiFoundResponse({ description: 'Redirect to the identity provider (`Location` header)' }),
    ApiErrorResponses({
      400: {
        description: 'issuer mode: unknown client, unregistered redirect_uri or an invalid request',
        examples: ['unknown client_id', 'invalid_request: code_challenge_method must be S256'],
      },
      503: NOT_CONFIGURED,
    }),
  );

export const RegisterClientDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Dynamic client registration (RFC 7591)',
      description:
        'proxy mode: every registration receives the same public client id (`OAUTH_CLIENT_ID`). issuer mode: ' +
        'each registration gets a client id of its own, up to 32 redirect URIs stored and matched exactly, ' +
        'loopback ones on any port (https, http on loopback, or an app scheme; otherwise 400 ' +
        '`invalid_redirect_uri`). No secret is issued: a request for a confidential client ' +
        '(`client_secret_post`, `client_secret_basic`, ...) is registered as a public one and answered ' +
        '`token_endpoint_auth_method: "none"`. ' +
        'A missing or empty `redirect_uris` gets exactly `{"error":"redirect_uris must be a non-empty array"}`.',
    }),
    ApiBody({ type: ClientRegistrationRequestDto }),
    ApiCreatedResponse({ type: ClientRegistrationDto }),
    ApiErrorResponses({
      400: {
        description: '`redirect_uris` is missing, empty, not an array or holds a non-string',
        type: ClientRegistrationErrorDto,
      },
      503: NOT_CONFIGURED,
    }),
  );
