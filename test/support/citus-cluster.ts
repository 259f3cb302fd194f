import { existsSync } from 'node:fs';
import { Client } from 'pg';
import { DebianPostgres, startDebianPostgres } from './debian-postgres';

/** Citus built into Debian's PostgreSQL 15, when installed. */
export const CITUS_LIBRARY = '/usr/lib/postgresql/15/lib/citus.so';

export function citusInstalled(): boolean {
  return existsSync(CITUS_LIBRARY);
}

export interface CitusCluster {
  /** The coordinator's database, where the service connects. */
  url: string;
  workers: DebianPostgres[];
  stop(): Promise<void>;
}

async function sql(url: string, text: string, params: unknown[] = []): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text, params);
  } finally {
    await client.end();
  }
}

/** A coordinator and two workers on loopback, the extension created on each and the workers added. */
export async function startCitusCluster(): Promise<CitusCluster> {
  const settings = {
    shared_preload_libraries: "'citus'",
    // The nodes talk over loopback without TLS (no certificates in a throwaway cluster).
    'citus.node_conninfo': "'sslmode=disable'",
    // Shard moves copy by logical replication (citus rebalance's default mode), writes going on.
    wal_level: 'logical',
  };
  const nodes = await Promise.all([0, 1, 2].map(() => startDebianPostgres(settings)));
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  };
  try {
    for (const node of nodes) await sql(node.url, 'CREATE EXTENSION citus');
    const [coordinator, ...workers] = nodes;
    await sql(coordinator.url, "SELECT citus_set_coordinator_host('127.0.0.1', $1)", [coordinator.port]);
    for (const worker of workers)
      await sql(coordinator.url, "SELECT citus_add_node('127.0.0.1', $1)", [worker.port]);
    return { url: coordinator.url, workers, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
