import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '@app/auth';
import { allowBrowserClients } from './browser-clients.middleware';
import { oauthEntities } from './entities';
import { AuthorizationService } from './issuer/authorization.service';
import { AuthorizationRepository } from './issuer/authorization.repository';
import { ConsentRepository } from './issuer/consent.repository';
import { ConsentService } from './issuer/consent.service';
import { RevocationService } from './issuer/revocation.service';
import { IssuerRegistrationService } from './issuer/issuer-registration.service';
import { IssuerController } from './issuer/issuer.controller';
import { OAuthClientsRepository } from './issuer/oauth-clients.repository';
import { OAuthClientsService } from './issuer/oauth-clients.service';
import { OAuthConfigService } from './oauth-config.service';
import { OAuthController } from './oauth.controller';
import { WellKnownController } from './well-known.controller';

/**
 * OAuth discovery documents, the authorize redirect and client registration for MCP clients; in
 * issuer mode also the callback from the identity provider and the token endpoint.
 */
@Module({
  imports: [TypeOrmModule.forFeature(oauthEntities), AuthModule],
  controllers: [WellKnownController, OAuthController, IssuerController],
  providers: [
    OAuthConfigService,
    OAuthClientsService,
    AuthorizationRepository,
    OAuthClientsRepository,
    AuthorizationService,
    IssuerRegistrationService,
    ConsentRepository,
    ConsentService,
    RevocationService,
  ],
  exports: [OAuthConfigService],
})
export class OAuthModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // Every method, so the browser's CORS preflight (OPTIONS) is answered too.
    consumer
      .apply(allowBrowserClients)
      .forRoutes(
        ...[
          '.well-known/oauth-protected-resource',
          '.well-known/oauth-protected-resource/mcp',
          '.well-known/oauth-authorization-server',
          'oauth/register',
          'oauth/token',
          'oauth/revoke',
        ].map((path) => ({ path, method: RequestMethod.ALL })),
      );
  }
}
