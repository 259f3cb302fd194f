import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request } from 'express';
import { OAuthNotConfiguredError, OAuthSettings, oauthSettingsFromConfig } from '@app/auth';
import { AppConfigService, OAuthMode, publicBaseUrl, ValidationError } from '@app/core';

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
    if (!url) throw new ValidationError('Invalid Host header');
    return url;
  }

  settings(): OAuthSettings {
    if (!this.settingsOrUndefined) throw new OAuthNotConfiguredError();
    return this.settingsOrUndefined;
  }
}
