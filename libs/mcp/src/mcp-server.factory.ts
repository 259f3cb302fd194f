import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ContactsSearchService, ContactsService } from '@app/contacts';
import { FunnelDescriptionsService, MetricsService, StepFunnelsService } from '@app/metrics';
import { WorkspacesService } from '@app/workspaces';
import { registerContactSearchTool, registerContactTools } from './tools/contact.tools';
import { registerDashboardTools } from './tools/dashboard.tools';
import { registerMetricTools } from './tools/metric.tools';
import { registerWorkspaceTools } from './tools/workspace.tools';

export const MCP_SERVER_INFO = { name: 'funnel-crm', version: '1.0.0' };

/** A fresh MCP server per request whose tools act for one company (stateless Streamable HTTP). */
@Injectable()
export class McpServerFactory {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly contacts: ContactsService,
    private readonly contactSearch: ContactsSearchService,
    private readonly metrics: MetricsService,
    private readonly funnels: FunnelDescriptionsService,
    private readonly stepFunnels: StepFunnelsService,
  ) {}

  create(companyId: string): McpServer {
    const server = new McpServer(MCP_SERVER_INFO, {
      instructions:
        'Funnel CRM: call list_workspaces first; a campaign id is the funnelId of the contact and metrics tools. ' +
        'get_funnel tells the statuses, pages and question ids of a funnel.',
    });
    const context = { server, companyId };
    registerWorkspaceTools(context, this.workspaces, this.funnels);
    registerContactTools(context, this.contacts);
    registerContactSearchTool(context, this.contactSearch);
    registerMetricTools(context, this.metrics, this.stepFunnels);
    registerDashboardTools(context, this.metrics, this.funnels);
    // The tool list is fixed and a stateless server cannot notify anyone of a change, so the
    // listChanged the SDK sets when tools are registered is not advertised.
    server.server.registerCapabilities({ tools: { listChanged: undefined } });
    return server;
  }
}
