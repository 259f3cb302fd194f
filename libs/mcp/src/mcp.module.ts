import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { AuthModule } from '@app/auth/auth.module';
import { ContactsModule } from '@app/contacts/contacts.module';
import { MetricsModule } from '@app/metrics/metrics.module';
import { allowBrowserClients } from '@app/oauth/browser-clients.middleware';
import { WorkspacesModule } from '@app/workspaces/workspaces.module';
import { McpServerFactory } from './mcp-server.factory';
import { McpController } from './mcp.controller';

/** POST /mcp: the MCP tools over the same services as REST, behind the OAuth bearer token. */
@Module({
  imports: [AuthModule, WorkspacesModule, ContactsModule, MetricsModule],
  controllers: [McpController],
  providers: [McpServerFactory],
})
export class McpModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // Every method, so the browser's CORS preflight (OPTIONS) is answered too.
    consumer.apply(allowBrowserClients).forRoutes({ path: 'mcp', method: RequestMethod.ALL });
  }
}
