import type { WorkspacesService } from '@app/workspaces';
import type { ToolContext } from './tool-context';
import { toolResult } from './tool-result';

export function registerWorkspaceTools(
  { server, companyId }: ToolContext,
  workspaces: WorkspacesService,
): void {
  server.registerTool(
    'list_workspaces',
    {
      title: 'List workspaces',
      description:
        "Lists the company's workspaces, each with its campaigns (funnels): id, name and status " +
        '(online/offline). Call this first: a campaign id is the funnelId every other tool needs.',
      annotations: { readOnlyHint: true },
    },
    () => toolResult(() => workspaces.listForCompany(companyId)),
  );
}
