import type { FunnelDescriptionsService } from '@app/metrics';
import type { WorkspacesService } from '@app/workspaces';
import { FUNNEL, WORKSPACE_LIST } from './output-schemas';
import { READS } from './tool-annotations';
import type { ToolContext } from './tool-context';
import { toolResult } from './tool-result';
import { funnelIdInput } from './funnel-id.input';

export function registerWorkspaceTools(
  { server, companyId }: ToolContext,
  workspaces: WorkspacesService,
  funnels: FunnelDescriptionsService,
): void {
  server.registerTool(
    'list_workspaces',
    {
      title: 'List workspaces',
      description:
        "Lists the company's workspaces, each with its campaigns (funnels): id, name and status " +
        '(online/offline). Call this first: a campaign id is the funnelId every other tool needs. ' +
        'Returns {data: Workspace[]}.',
      inputSchema: {},
      outputSchema: WORKSPACE_LIST,
      annotations: READS,
    },
    () => toolResult(async () => ({ data: await workspaces.listForCompany(companyId) })),
  );

  server.registerTool(
    'get_funnel',
    {
      title: 'Describe a funnel',
      description:
        "One funnel with what its contacts and metrics refer to: contactStatuses (a contact's status " +
        'values, the first is the default), pages in funnel order (slugs, the keys of page charts) and ' +
        'the questions seen in its answer events with their latest titles (questionId is the insightId ' +
        'of get_insight_metrics).',
      inputSchema: { funnelId: funnelIdInput },
      outputSchema: FUNNEL,
      annotations: READS,
    },
    ({ funnelId }) => toolResult(() => funnels.describeForCompany(companyId, funnelId)),
  );
}
