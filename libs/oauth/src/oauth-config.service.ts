import { BadRequestException, Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request } from 'express';
import { OAuthSettings, oauthSettingsFromConfig } from '@app/auth';
import { AppConfigService, OAuthMode, publicBaseUrl } from '@app/core';

/** Base URL of a request and the identity provider settings, as the OAuth routes need them. */
@Injectable()
export class OAuthConfigService {
  private readonly settingsOrUndefined?: OAuthSettings;
  /** `OAUTH_MODE`: whether this service or the identity provider is the clients' authorization server. */
  readonly mode: OAuthMode;

  constructor(@Inject(ConfigService) private readonly config: AppConfigService) {
    this.settingsOrUndefined = oauthSettingsFromConfig(config);
    this.mode = config.get('OAUTH_MODE', { infer: true });
  }

  baseUrl(request: Request): string {
    const url = publicBaseUrl(request, {
      BASE_URL: this.config.get('BASE_URL', { infer: true }),
      TRUST_PROXY: this.config.get('TRUST_PROXY', { infer: true }),
    });
    if (!url) throw new BadRequestException('Invalid Host header');
    return url;
  }

  settings(): OAuthSettings {
    if (!this.settingsOrUndefined)
      throw new ServiceUnavailableException('OAuth is not configured on this server');
    return this.settingsOrUndefined;
  }
}
