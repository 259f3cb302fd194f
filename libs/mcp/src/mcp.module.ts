import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { ContactsModule } from '@app/contacts';
import { MetricsModule } from '@app/metrics';
import { allowBrowserClients } from '@app/oauth';
import { WorkspacesModule } from '@app/workspaces';
import { McpServerFactory } from './mcp-server.factory';
import { McpController } from './mcp.controller';
import { McpOriginMiddleware } from './origin/mcp-origin.middleware';

/** POST /mcp: the MCP tools over the same services as REST, behind the OAuth bearer token. */
@Module({
  imports: [AuthModule, WorkspacesModule, ContactsModule, MetricsModule],
  controllers: [McpController],
  providers: [McpServerFactory],
})
export class McpModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // Every method, so the browser's CORS preflight (OPTIONS) is answered too; the origin is
    // checked first, so a refused origin learns nothing, not even the CORS answer.
    consumer
      .apply(McpOriginMiddleware, allowBrowserClients)
      .forRoutes({ path: 'mcp', method: RequestMethod.ALL });
  }
}
