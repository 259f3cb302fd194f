import {
  applyDecorators,
  Body,
  Controller,
  Get,
  HttpCode,
  Post,
  Redirect,
  Req,
  UseFilters,
  VERSION_NEUTRAL,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiFoundResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '@app/auth';
import { ApiErrorResponse } from '@app/core';
import { ClientRegistrationError, ClientRegistrationErrorFilter } from './client-registration-error.filter';
import { AuthorizationService } from './issuer/authorization.service';
import { IssuerRegistrationService } from './issuer/issuer-registration.service';
import { OAuthProtocolErrorFilter } from './oauth-protocol-error';
import {
  ClientRegistrationDto,
  ClientRegistrationErrorDto,
  ClientRegistrationRequestDto,
} from './dto/client-registration.dto';
import { OAuthConfigService } from './oauth-config.service';
import { identityProviderAuthorizeUrl, registerClient } from './oauth-documents';

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

const ApiAuthorizeQuery = () =>
  applyDecorators(
    ...AUTHORIZE_PARAMS.map(([name, description]) => ApiQuery({ name, required: false, description })),
    ApiQuery({ name: 'other', required: false, description: 'Any other parameter is forwarded as well' }),
  );

@ApiTags('OAuth')
@Controller({ path: 'oauth', version: VERSION_NEUTRAL })
export class OAuthController {
  constructor(
    private readonly oauth: OAuthConfigService,
    private readonly authorization: AuthorizationService,
    private readonly registration: IssuerRegistrationService,
  ) {}

  @Get('authorize')
  @Public()
  @Redirect()
  @ApiOperation({
    summary: 'Authorization redirect',
    description:
      'proxy mode: forwards every query parameter unchanged (repeated ones too) to `{idp_url}/authorize` and adds ' +
      '`audience` (`OAUTH_AUDIENCE`) and, when configured, `connection` (`OAUTH_CONNECTION`); configured ' +
      'values replace any the client sent. issuer mode: checks the client (registered, or a Client ID ' +
      'Metadata Document URL) and its `redirect_uri`, then sends the browser to the identity provider with ' +
      "this service's callback and PKCE; an unknown client or redirect URI gets 400 and no redirect.",
  })
  @ApiAuthorizeQuery()
  @ApiFoundResponse({ description: 'Redirect to the identity provider (`Location` header)' })
  @ApiErrorResponse(400, 'issuer mode: unknown client or unregistered redirect_uri', 'unknown client_id')
  @ApiErrorResponse(
    503,
    'No identity provider is configured (IDP_URL)',
    'OAuth is not configured on this server',
  )
  async authorize(@Req() request: Request): Promise<{ url: string; statusCode: number }> {
    const rawQuery = request.originalUrl.split('?').slice(1).join('?');
    const settings = this.oauth.settings();
    if (this.oauth.mode === 'proxy')
      return { url: identityProviderAuthorizeUrl(rawQuery, settings), statusCode: 302 };
    const url = await this.authorization.authorize(
      new URLSearchParams(rawQuery),
      this.oauth.baseUrl(request),
      settings,
    );
    return { url, statusCode: 302 };
  }

  @Post('register')
  @Public()
  @HttpCode(201)
  @UseFilters(ClientRegistrationErrorFilter, OAuthProtocolErrorFilter)
  @ApiOperation({
    summary: 'Dynamic client registration (RFC 7591)',
    description:
      'proxy mode: every registration receives the same public client id (`OAUTH_CLIENT_ID`). issuer mode: ' +
      'each registration gets a client id of its own, its redirect URIs stored and matched exactly (https, ' +
      'http on loopback, or an app scheme; otherwise 400 `invalid_redirect_uri`). No secret is issued. ' +
      'A missing or empty `redirect_uris` gets exactly `{"error":"redirect_uris must be a non-empty array"}`.',
  })
  @ApiBody({ type: ClientRegistrationRequestDto })
  @ApiCreatedResponse({ type: ClientRegistrationDto })
  @ApiBadRequestResponse({
    type: ClientRegistrationErrorDto,
    description: '`redirect_uris` is missing, empty, not an array or holds a non-string',
  })
  @ApiErrorResponse(
    503,
    'No identity provider is configured (IDP_URL)',
    'OAuth is not configured on this server',
  )
  async register(@Body() body: unknown): Promise<ClientRegistrationDto> {
    const settings = this.oauth.settings();
    if (this.oauth.mode === 'issuer') return this.registration.register(body);
    const registration = registerClient(body, settings.clientId);
    if (!registration) throw new ClientRegistrationError();
    return registration;
  }
}
