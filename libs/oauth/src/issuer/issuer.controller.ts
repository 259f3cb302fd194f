import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Post,
  Redirect,
  Req,
  UseFilters,
  VERSION_NEUTRAL,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '@app/auth';
import { NotFoundError } from '@app/core';
import { OAuthConfigService } from '../oauth-config.service';
import { OAuthProtocolErrorFilter } from '../oauth-protocol-error';
import { AuthorizationService } from './authorization.service';
import { CallbackDocs, TokenDocs } from './issuer.docs';

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
  @CallbackDocs()
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
  @TokenDocs()
  token(@Req() request: Request, @Body() body: unknown): Promise<Record<string, unknown>> {
    this.issuerModeOnly(request);
    const form = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    return this.authorization.token(form, this.oauth.settings());
  }

  private issuerModeOnly(request: Request): void {
    // proxy mode answers as if the route did not exist.
    if (this.oauth.mode !== 'issuer') throw new NotFoundError(`Cannot ${request.method} ${request.path}`);
  }
}
