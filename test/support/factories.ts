import type { INestApplicationContext } from '@nestjs/common';
import { ApiKeysService, CompaniesService, Permission, PERMISSIONS } from '@app/auth';
import { CreateFunnelInput, FunnelsService, WorkspacesService } from '@app/workspaces';

export interface TenantFixture {
  companyId: string;
  workspaceId: string;
  funnelId: string;
  /** A key holding every permission. */
  key: string;
  keyFor(...permissions: Permission[]): Promise<string>;
}

/** A company with one workspace, one funnel (pages start → details → done) and a full-permission key. */
export async function createTenant(
  app: INestApplicationContext,
  funnel: Partial<Omit<CreateFunnelInput, 'workspaceId'>> = {},
): Promise<TenantFixture> {
  const company = await app.get(CompaniesService).create('Tenant');
  const workspace = await app.get(WorkspacesService).create(company.id, 'Main workspace');
  const created = await app.get(FunnelsService).create({
    workspaceId: workspace.id,
    name: 'Main funnel',
    status: 'online',
    pages: [
      { slug: 'start', title: 'Start' },
      { slug: 'details', title: 'Details' },
      { slug: 'done', title: 'Done' },
    ],
    ...funnel,
  });
  const keyFor = async (...permissions: Permission[]) =>
    (await app.get(ApiKeysService).create(company.id, permissions)).key;
  return {
    companyId: company.id,
    workspaceId: workspace.id,
    funnelId: created.id,
    key: await keyFor(...PERMISSIONS),
    keyFor,
  };
}
