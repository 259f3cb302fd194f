import { ApiKeysService, CompaniesService, PERMISSIONS } from '@app/auth';
import { validateEnv } from '@app/core';
import { FunnelsService, WorkspacesService } from '@app/workspaces';
import { createApp } from '../../apps/api/src/create-app';

export interface SoakKey {
  name: string;
  key: string;
  funnelId: string;
  companyId: string;
  /** Requests a second this key's clients aim for (the limit is per minute). */
  perSecond: number;
}

/** Companies, funnels and keys for the soak, written through the services on the given database. */
export async function createSoakFixtures(databaseUrl: string, keys: { name: string; perSecond: number }[]) {
  const env = validateEnv({ NODE_ENV: 'test', LOG_LEVEL: 'error', AUTOMATION_WORKER_ENABLED: 'false' });
  const app = await createApp(env, { databaseUrl });
  await app.init();
  try {
    const result: SoakKey[] = [];
    for (const { name, perSecond } of keys) {
      const company = await app.get(CompaniesService).create(`Soak ${name}`);
      const workspace = await app.get(WorkspacesService).create(company.id, 'Soak workspace');
      const funnel = await app.get(FunnelsService).create({
        workspaceId: workspace.id,
        name: 'Soak funnel',
        status: 'online',
        pages: [
          { slug: 'start', title: 'Start' },
          { slug: 'details', title: 'Details' },
          { slug: 'done', title: 'Done' },
        ],
      });
      const { key } = await app.get(ApiKeysService).create(company.id, [...PERMISSIONS]);
      result.push({ name, key, funnelId: funnel.id, companyId: company.id, perSecond });
    }
    return result;
  } finally {
    await app.close();
  }
}
