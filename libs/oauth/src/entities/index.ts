import { OAuthAuthorizationCode } from './oauth-authorization-code.entity';
import { OAuthClient } from './oauth-client.entity';
import { OAuthConsent } from './oauth-consent.entity';
import { OAuthPendingAuthorization } from './oauth-pending-authorization.entity';
import { OAuthPendingConsent } from './oauth-pending-consent.entity';
import { OAuthRefreshToken } from './oauth-refresh-token.entity';

export {
  OAuthAuthorizationCode,
  OAuthClient,
  OAuthConsent,
  OAuthPendingAuthorization,
  OAuthPendingConsent,
  OAuthRefreshToken,
};

export const oauthEntities = [
  OAuthClient,
  OAuthPendingAuthorization,
  OAuthAuthorizationCode,
  OAuthConsent,
  OAuthPendingConsent,
  OAuthRefreshToken,
];
