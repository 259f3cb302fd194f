import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/server';
import { ContactsSearchService, ContactsService } from '@app/contacts';
import { FunnelDescriptionsService, MetricsService, StepFunnelsService } from '@app/metrics';
import { WorkspacesService } from '@app/workspaces';
import { registerFunnelPrompts } from './prompts/funnel.prompts';
import { registerMetricGlossary } from './resources/metric-glossary.resource';
import { registerContactSearchTool, registerContactTools } from './tools/contact.tools';
import { registerDashboardTools } from './tools/dashboard.tools';
import { registerMetricTools } from './tools/metric.tools';
import { enforceToolInputRules } from './tools/tool-input';
import { enforceToolScopes } from './tools/tool-scopes';
import { registerWorkspaceTools } from './tools/workspace.tools';

export const MCP_SERVER_INFO = { name: 'funnel-crm', version: '1.0.0' };

/**
 * How long a client may reuse a list (2026-07-28 cache hints): the tools and prompts never change
 * while the service runs, but a new release may bring new ones. Private: the lists are the same for
 * every user today, yet a shared cache must not learn who asked.
 */
const LIST_CACHE = { ttlMs: 5 * 60_000, cacheScope: 'private' } as const;

/** A fresh MCP server per request whose tools act for one company (stateless, either revision). */
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
      cacheHints: {
        'server/discover': LIST_CACHE,
        'tools/list': LIST_CACHE,
        'prompts/list': LIST_CACHE,
        'resources/list': LIST_CACHE,
        'resources/templates/list': LIST_CACHE,
        // A resource that shows data may change with it: reread unless the resource says otherwise.
        'resources/read': { ttlMs: 0, cacheScope: 'private' },
      },
    });
    enforceToolScopes(server);
    enforceToolInputRules(server);
    const context = { server, companyId };
    registerWorkspaceTools(context, this.workspaces, this.funnels);
    registerContactTools(context, this.contacts);
    registerContactSearchTool(context, this.contactSearch);
    registerMetricTools(context, this.metrics, this.stepFunnels);
    registerDashboardTools(context, this.metrics, this.funnels);
    registerFunnelPrompts(server);
    registerMetricGlossary(server);
    // The tool and prompt lists are fixed and a stateless server cannot notify anyone of a change,
    // so the listChanged the SDK sets when they are registered is not advertised.
    server.server.registerCapabilities({
      tools: { listChanged: undefined },
      prompts: { listChanged: undefined },
    });
    return server;
  }
}
