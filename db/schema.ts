import { join } from 'node:path';
import { authEntities } from '@app/auth';
import { automationEntities } from '@app/automations';
import { collectionEntities } from '@app/collection';
import { contactEntities } from '@app/contacts';
import { DatabaseSchema, loadMigrations } from '@app/core';
import { metricsEntities } from '@app/metrics';
import { oauthEntities } from '@app/oauth';
import { workspaceEntities } from '@app/workspaces';

/**
 * The service's database: the entities each domain declares (and registers in its own module with
 * TypeOrmModule.forFeature) and the committed migrations in ./migrations, oldest first. Composed
 * here, above the libraries, so core imports no domain and no domain imports a migration. The
 * apps, ormconfig.ts and the migration CLIs beside this file all use it.
 */
export const databaseSchema: DatabaseSchema = {
  entities: [
    ...authEntities,
    ...workspaceEntities,
    ...contactEntities,
    ...metricsEntities,
    ...automationEntities,
    ...oauthEntities,
    ...collectionEntities,
  ],
  migrations: loadMigrations(join(__dirname, 'migrations')),
};
