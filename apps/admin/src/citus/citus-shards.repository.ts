import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ShardTransferMode } from './shard-transfer-mode';

/** A worker that can hold shards, as Citus names it in citus_move_shard_placement. */
export interface CitusWorker {
  host: string;
  port: number;
}

/** A shard of contacts with its co-located shards (messages, events, …): Citus moves them together. */
export interface ShardGroup {
  /** The id of the group's shard of contacts. */
  shard: string;
  worker: string;
  contacts: number;
  events: number;
}

export const workerName = (w: CitusWorker) => `${w.host}:${w.port}`;

/** The SQL that reads where the shards of contacts lie and how full they are, and moves them. */
@Injectable()
export class CitusShardsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Whether this database is a Citus coordinator (false without the extension or on a worker). */
  async isCoordinator(): Promise<boolean> {
    const [row]: { citus: boolean }[] = await this.dataSource.query(
      "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus",
    );
    if (!row.citus) return false;
    const [role]: { coordinator: boolean }[] = await this.dataSource.query(
      'SELECT citus_is_coordinator() AS coordinator',
    );
    return role.coordinator;
  }

  async isDistributed(table: string): Promise<boolean> {
    const [row]: { ok: boolean }[] = await this.dataSource.query(
      "SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = to_regclass($1) AND partmethod = 'h') AS ok",
      [table],
    );
    return row.ok;
  }

  /** The active primary workers that may hold shards. */
  async workers(): Promise<CitusWorker[]> {
    const rows: { host: string; port: number }[] = await this.dataSource.query(
      `SELECT nodename AS host, nodeport AS port FROM pg_dist_node
        WHERE groupid <> 0 AND noderole = 'primary' AND isactive AND shouldhaveshards ORDER BY 1, 2`,
    );
    return rows;
  }

  /**
   * Every shard group of contacts holding rows, with its worker and its rows of contacts and
   * events: counted per funnel on the workers (in parallel), then summed per shard here.
   */
  async shardGroups(): Promise<ShardGroup[]> {
    const rows: { shard: string; host: string; port: number; contacts: number; events: number }[] =
      await this.dataSource.query(
        `WITH c AS (SELECT funnel_id, count(*) AS n FROM contacts GROUP BY funnel_id),
              e AS (SELECT funnel_id, count(*) AS n FROM metric_events GROUP BY funnel_id),
              f AS (SELECT get_shard_id_for_distribution_column('contacts', coalesce(c.funnel_id, e.funnel_id)) AS shardid,
                           coalesce(c.n, 0) AS contacts, coalesce(e.n, 0) AS events
                      FROM c FULL JOIN e ON e.funnel_id = c.funnel_id)
         SELECT f.shardid::text AS shard, p.nodename AS host, p.nodeport AS port,
                sum(f.contacts)::float8 AS contacts, sum(f.events)::float8 AS events
           FROM f JOIN pg_dist_shard_placement p ON p.shardid = f.shardid
          GROUP BY 1, 2, 3 ORDER BY 1`,
      );
    return rows.map((r) => ({
      shard: r.shard,
      worker: workerName(r),
      contacts: r.contacts,
      events: r.events,
    }));
  }

  /** Moves a shard group; Citus locks only that group, for as long as `mode` says. */
  async move(shard: string, from: CitusWorker, to: CitusWorker, mode: ShardTransferMode): Promise<void> {
    await this.dataSource.query(
      `SELECT citus_move_shard_placement($1::bigint, $2, $3, $4, $5, shard_transfer_mode := $6::citus.shard_transfer_mode)`,
      [shard, from.host, from.port, to.host, to.port, mode],
    );
  }
}
