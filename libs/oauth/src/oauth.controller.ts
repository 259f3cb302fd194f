import {
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
import { ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '@app/auth';
import { ClientRegistrationError, ClientRegistrationErrorFilter } from './client-registration-error.filter';
import { ClientRegistrationDto } from './dto/client-registration.dto';
import { AuthorizationService } from './issuer/authorization.service';
import { IssuerRegistrationService } from './issuer/issuer-registration.service';
import { OAuthConfigService } from './oauth-config.service';
import { identityProviderAuthorizeUrl, registerClient } from './oauth-documents';
import { AuthorizeDocs, RegisterClientDocs } from './oauth.docs';
import { OAuthProtocolErrorFilter } from './oauth-protocol-error';

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
  @AuthorizeDocs()
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
  @RegisterClientDocs()
  async register(@Body() body: unknown): Promise<ClientRegistrationDto> {
    const settings = this.oauth.settings();
    if (this.oauth.mode === 'issuer') return this.registration.register(body);
    const registration = registerClient(body, settings.clientId);
    if (!registration) throw new ClientRegistrationError();
    return registration;
  }
}
