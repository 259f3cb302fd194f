import { Funnel } from './funnel.entity';
import { FunnelPage } from './funnel-page.entity';
import { Workspace } from './workspace.entity';

export * from './funnel.entity';
export * from './funnel-page.entity';
export * from './workspace.entity';
export const workspaceEntities = [Workspace, Funnel, FunnelPage];
