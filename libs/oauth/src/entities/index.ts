import { OAuthAuthorizationCode } from './oauth-authorization-code.entity';
import { OAuthClient } from './oauth-client.entity';
import { OAuthPendingAuthorization } from './oauth-pending-authorization.entity';

export { OAuthAuthorizationCode, OAuthClient, OAuthPendingAuthorization };

export const oauthEntities = [OAuthClient, OAuthPendingAuthorization, OAuthAuthorizationCode];
