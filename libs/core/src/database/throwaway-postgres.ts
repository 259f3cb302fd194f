import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireEmbeddedPostgres } from './embedded-postgres';

export interface ThrowawayPostgres {
  url: string;
  destroy(): Promise<void>;
}

/** A fresh embedded PostgreSQL cluster in a temporary folder, removed by destroy(). */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'funnel-crm-pg-'));
  // Enterable by the `postgres` account a root process runs the server as, so the cluster stays here.
  await chmod(dir, 0o755);
  const handle = await acquireEmbeddedPostgres({ dir });
  return {
    url: handle.url,
    destroy: async () => {
      await handle.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
