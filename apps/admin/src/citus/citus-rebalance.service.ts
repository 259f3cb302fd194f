import { Injectable } from '@nestjs/common';
import { ValidationError } from '@app/core';
import { CitusShardsRepository, CitusWorker, workerName } from './citus-shards.repository';
import { planMoves, ShardMove, Spread, spreadOf } from './shard-balance';
import { ShardTransferMode } from './shard-transfer-mode';

export interface RebalanceResult {
  shardTransferMode: ShardTransferMode;
  before: Spread;
  /** The shard groups of contacts moved, in order, each with its rows. */
  moved: ShardMove[];
  after: Spread;
}

/** What a run would move, moving nothing. */
export interface RebalancePlan {
  before: Spread;
  planned: ShardMove[];
}

/**
 * Evens out contacts and events over a Citus cluster's workers by moving whole shard groups of
 * contacts, one citus_move_shard_placement at a time. Citus's own rebalancer weighs shards by
 * count or by disk size with a fixed cost per shard, which leaves shards of a few funnels where
 * hashing put them; this weighs them by their rows.
 */
@Injectable()
export class CitusRebalanceService {
  constructor(private readonly shards: CitusShardsRepository) {}

  async rebalance(mode: ShardTransferMode): Promise<RebalanceResult> {
    const { workers, before, planned } = await this.planned();
    const byName = new Map<string, CitusWorker>(workers.map((w) => [workerName(w), w]));
    for (const move of planned)
      await this.shards.move(move.shard, byName.get(move.from)!, byName.get(move.to)!, mode);
    const after = planned.length ? spreadOf([...byName.keys()], await this.shards.shardGroups()) : before;
    return { shardTransferMode: mode, before, moved: planned, after };
  }

  async plan(): Promise<RebalancePlan> {
    const { before, planned } = await this.planned();
    return { before, planned };
  }

  private async planned(): Promise<RebalancePlan & { workers: CitusWorker[] }> {
    if (!(await this.shards.isCoordinator()))
      throw new ValidationError('this database is not a Citus coordinator: connect to the coordinator');
    if (!(await this.shards.isDistributed('contacts')))
      throw new ValidationError('contacts is not distributed yet: run citus distribute first');
    const workers = await this.shards.workers();
    const names = workers.map(workerName);
    const groups = await this.shards.shardGroups();
    return { workers, before: spreadOf(names, groups), planned: planMoves(names, groups) };
  }
}
