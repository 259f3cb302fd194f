import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  NotFoundException,
  Post,
  Redirect,
  Req,
  UseFilters,
  VERSION_NEUTRAL,
} from '@nestjs/common';
import {
  ApiConsumes,
  ApiFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '@app/auth';
import { ApiErrorResponse } from '@app/core';
import { OAuthConfigService } from '../oauth-config.service';
import { OAuthProtocolErrorFilter } from '../oauth-protocol-error';
import { AuthorizationService } from './authorization.service';

/** The routes only issuer mode has: the identity provider's way back, and the token endpoint. */
@ApiTags('OAuth')
@Controller({ path: 'oauth', version: VERSION_NEUTRAL })
export class IssuerController {
  constructor(
    private readonly oauth: OAuthConfigService,
    private readonly authorization: AuthorizationService,
  ) {}

  @Get('callback')
  @Public()
  @Redirect()
  @ApiOperation({
    summary: 'Return from the identity provider (issuer mode)',
    description:
      "Exchanges the provider's code, then redirects to the client's `redirect_uri` with a code of this " +
      "service (single use, valid 60 s), the client's `state` and `iss` = {base_url}.",
  })
  @ApiFoundResponse({ description: "Redirect to the client's redirect_uri" })
  @ApiErrorResponse(
    400,
    'Unknown or expired authorization request',
    'Unknown or expired authorization request',
  )
  @ApiErrorResponse(404, 'proxy mode', 'Cannot GET /oauth/callback')
  async callback(@Req() request: Request): Promise<{ url: string; statusCode: number }> {
    this.issuerModeOnly(request);
    const rawQuery = request.originalUrl.split('?').slice(1).join('?');
    const url = await this.authorization.callback(new URLSearchParams(rawQuery), this.oauth.settings());
    return { url, statusCode: 302 };
  }

  @Post('token')
  @Public()
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @UseFilters(OAuthProtocolErrorFilter)
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiOperation({
    summary: 'Token endpoint (issuer mode)',
    description:
      '`authorization_code` (with `client_id`, `redirect_uri` and the PKCE `code_verifier`) answers the ' +
      "identity provider's tokens; `refresh_token` is passed through to it. Errors follow RFC 6749 §5.2: " +
      '`{"error":"invalid_grant","error_description":"..."}`.',
  })
  @ApiOkResponse({ description: 'access_token, token_type, expires_in, refresh_token, scope' })
  @ApiErrorResponse(404, 'proxy mode', 'Cannot POST /oauth/token')
  @ApiResponse({
    status: 400,
    description: 'An RFC 6749 §5.2 error (invalid_request, invalid_grant, ...)',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['error'],
          properties: { error: { type: 'string' }, error_description: { type: 'string' } },
        },
      },
    },
  })
  token(@Req() request: Request, @Body() body: unknown): Promise<Record<string, unknown>> {
    this.issuerModeOnly(request);
    const form = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    return this.authorization.token(form, this.oauth.settings());
  }

  private issuerModeOnly(request: Request): void {
    if (this.oauth.mode !== 'issuer') throw new NotFoundException(`Cannot ${request.method} ${request.path}`);
  }
}
