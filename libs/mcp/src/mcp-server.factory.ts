import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ContactsService } from '@app/contacts';
import { MetricsService } from '@app/metrics';
import { WorkspacesService } from '@app/workspaces';
import { registerContactTools } from './tools/contact.tools';
import { registerMetricTools } from './tools/metric.tools';
import { registerWorkspaceTools } from './tools/workspace.tools';

export const MCP_SERVER_INFO = { name: 'funnel-crm', version: '1.0.0' };

/** A fresh MCP server per request whose tools act for one company (stateless Streamable HTTP). */
@Injectable()
export class McpServerFactory {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly contacts: ContactsService,
    private readonly metrics: MetricsService,
  ) {}

  create(companyId: string): McpServer {
    const server = new McpServer(MCP_SERVER_INFO, {
      instructions:
        'Funnel CRM: call list_workspaces first; a campaign id is the funnelId of the contact and metrics tools.',
    });
    const context = { server, companyId };
    registerWorkspaceTools(context, this.workspaces);
    registerContactTools(context, this.contacts);
    registerMetricTools(context, this.metrics);
    return server;
  }
}
