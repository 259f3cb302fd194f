import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { allowBrowserClients } from './browser-clients.middleware';
import { OAuthConfigService } from './oauth-config.service';
import { OAuthController } from './oauth.controller';
import { WellKnownController } from './well-known.controller';

/** OAuth discovery documents, the authorize redirect and client registration for MCP clients. */
@Module({
  controllers: [WellKnownController, OAuthController],
  providers: [OAuthConfigService],
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
          '.well-known/oauth-authorization-server',
          'oauth/register',
        ].map((path) => ({ path, method: RequestMethod.ALL })),
      );
  }
}
