import { Client } from 'pg';

/** Each worker's rows of `table`, as Citus counts them on every placement of its shards. */
export async function rowsPerWorker(client: Client, table: string): Promise<Map<number, number>> {
  const { rows } = await client.query<{ port: number; n: number }>(
    `SELECT nodeport AS port, sum(result::bigint)::int AS n
       FROM run_command_on_placements($1, 'SELECT count(*) FROM %s') WHERE success GROUP BY 1`,
    [table],
  );
  return new Map(rows.map((r) => [r.port, r.n]));
}

/** How far the fullest or emptiest of `ports` is from an even share of the rows, in percent. */
export function fromEven(perWorker: Map<number, number>, ports: number[]): number {
  const counts = ports.map((p) => perWorker.get(p) ?? 0);
  const even = counts.reduce((a, b) => a + b, 0) / counts.length;
  return Math.max(...counts.map((n) => Math.abs(n - even) / even)) * 100;
}

/** Moves every shard group of contacts onto the worker at `port`: as uneven as a cluster gets. */
export async function gatherShardsOn(client: Client, port: number): Promise<void> {
  const { rows } = await client.query<{ shardid: string; nodename: string; nodeport: number }>(
    `SELECT p.shardid::text, p.nodename, p.nodeport FROM pg_dist_shard_placement p JOIN pg_dist_shard s USING (shardid)
      WHERE s.logicalrelid = 'contacts'::regclass AND p.nodeport <> $1`,
    [port],
  );
  for (const r of rows)
    await client.query(
      `SELECT citus_move_shard_placement($1::bigint, $2, $3, '127.0.0.1', $4, shard_transfer_mode := 'block_writes')`,
      [r.shardid, r.nodename, r.nodeport, port],
    );
}

/** The shard of contacts a funnel's rows go to. */
export async function shardOf(client: Client, funnelId: string): Promise<string> {
  const { rows } = await client.query<{ shard: string }>(
    `SELECT get_shard_id_for_distribution_column('contacts', $1::uuid)::text AS shard`,
    [funnelId],
  );
  return rows[0].shard;
}
