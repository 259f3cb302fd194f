import { acquireEmbeddedPostgres, EmbeddedPostgresHandle } from './embedded-postgres';

export interface ResolvedDatabase {
  url: string;
  embedded?: EmbeddedPostgresHandle;
}

/** DATABASE_URL when set, else the embedded PostgreSQL kept under DATA_DIR (development only). */
export async function resolveDatabase(env: {
  DATABASE_URL?: string;
  DATA_DIR: string;
  log?: (line: string) => void;
}): Promise<ResolvedDatabase> {
  if (env.DATABASE_URL) return { url: env.DATABASE_URL };
  const embedded = await acquireEmbeddedPostgres({ dir: env.DATA_DIR, log: env.log });
  return { url: embedded.url, embedded };
}
