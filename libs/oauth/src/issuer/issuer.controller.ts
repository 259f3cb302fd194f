import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Post,
  Req,
  Res,
  UseFilters,
  VERSION_NEUTRAL,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '@app/auth';
import { NotFoundError } from '@app/core';
import { OAuthConfigService } from '../oauth-config.service';
import { OAuthProtocolErrorFilter } from '../oauth-protocol-error';
import { AuthorizationService } from './authorization.service';
import { CONSENT_PAGE_HEADERS } from './consent-page';
import { ConsentService, SignInOutcome } from './consent.service';
import { CallbackDocs, ConsentDocs, RevokeDocs, TokenDocs } from './issuer.docs';
import { RevocationService } from './revocation.service';

const formOf = (body: unknown) =>
  typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};

/** The request's cookies by name (the consent cookie is the only one these routes read). */
function cookiesOf(request: Request): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = pair.trim().split('=');
    if (name) cookies[name] = value.join('=');
  }
  return cookies;
}

/** The routes only issuer mode has: the identity provider's way back, consent, token and revocation. */
@ApiTags('OAuth')
@Controller({ path: 'oauth', version: VERSION_NEUTRAL })
export class IssuerController {
  constructor(
    private readonly oauth: OAuthConfigService,
    private readonly authorization: AuthorizationService,
    private readonly consent: ConsentService,
    private readonly revocation: RevocationService,
  ) {}

  @Get('callback')
  @Public()
  @CallbackDocs()
  async callback(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.issuerModeOnly(request);
    const rawQuery = request.originalUrl.split('?').slice(1).join('?');
    const outcome = await this.authorization.callback(new URLSearchParams(rawQuery), this.oauth.settings());
    sendOutcome(response, outcome);
  }

  @Post('consent')
  @Public()
  @ConsentDocs()
  async decide(@Req() request: Request, @Res() response: Response, @Body() body: unknown): Promise<void> {
    this.issuerModeOnly(request);
    const url = await this.consent.decide(formOf(body), cookiesOf(request));
    response.setHeader('Cache-Control', 'no-store').redirect(303, url);
  }

  @Post('token')
  @Public()
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @UseFilters(OAuthProtocolErrorFilter)
  @TokenDocs()
  token(@Req() request: Request, @Body() body: unknown): Promise<Record<string, unknown>> {
    this.issuerModeOnly(request);
    return this.authorization.token(formOf(body), this.oauth.settings());
  }

  @Post('revoke')
  @Public()
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @UseFilters(OAuthProtocolErrorFilter)
  @RevokeDocs()
  async revoke(@Req() request: Request, @Body() body: unknown): Promise<Record<string, never>> {
    this.issuerModeOnly(request);
    await this.revocation.revoke(formOf(body), this.oauth.settings());
    return {};
  }

  private issuerModeOnly(request: Request): void {
    // proxy mode answers as if the route did not exist.
    if (this.oauth.mode !== 'issuer') throw new NotFoundError(`Cannot ${request.method} ${request.path}`);
  }
}

function sendOutcome(response: Response, outcome: SignInOutcome): void {
  if ('redirect' in outcome) return response.redirect(302, outcome.redirect);
  const { name, value, path, maxAgeMs, secure } = outcome.cookie;
  response
    .cookie(name, value, { path, maxAge: maxAgeMs, httpOnly: true, sameSite: 'strict', secure })
    .set(CONSENT_PAGE_HEADERS)
    .status(200)
    .send(outcome.page);
}
