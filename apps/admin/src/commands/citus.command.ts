import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { ValidationError } from '@app/core';
import { CitusDistributionService } from '../citus/citus-distribution.service';
import { CitusRebalanceService } from '../citus/citus-rebalance.service';
import { SHARD_TRANSFER_MODES, ShardTransferMode } from '../citus/shard-transfer-mode';
import { GroupCommand } from '../cli/group.command';
import { printResult } from '../output';

@SubCommand({
  name: 'distribute',
  description: 'Place every table on the Citus coordinator as db/citus-plan.ts says (safe to run again)',
})
export class CitusDistributeCommand extends CommandRunner {
  constructor(private readonly citus: CitusDistributionService) {
    super();
  }

  async run(_: string[], options: { shardCount?: number }): Promise<void> {
    printResult(await this.citus.distribute(options.shardCount));
  }

  @Option({ flags: '--shard-count <n>', description: 'shards per distributed table (Citus default: 32)' })
  parseShardCount(value: string): number {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > 1024)
      throw new ValidationError('--shard-count must be a whole number from 1 to 1024');
    return n;
  }
}

@SubCommand({
  name: 'rebalance',
  description:
    'Move whole shard groups from fuller to emptier workers until contacts and events are even (safe to run again)',
})
export class CitusRebalanceCommand extends CommandRunner {
  constructor(private readonly citus: CitusRebalanceService) {
    super();
  }

  async run(
    _: string[],
    options: { shardTransferMode?: ShardTransferMode; dryRun?: boolean },
  ): Promise<void> {
    if (options.dryRun) printResult(await this.citus.plan());
    else printResult(await this.citus.rebalance(options.shardTransferMode ?? 'auto'));
  }

  @Option({
    flags: '--dry-run',
    description: 'print the spread and the moves a run would make; move nothing',
  })
  parseDryRun(): boolean {
    return true;
  }

  @Option({
    flags: '--shard-transfer-mode <mode>',
    description: `how Citus copies a shard group: ${SHARD_TRANSFER_MODES.join(', ')} (default auto: logical replication, writes go on)`,
  })
  parseShardTransferMode(value: string): ShardTransferMode {
    const mode = SHARD_TRANSFER_MODES.find((m) => m === value);
    if (!mode)
      throw new ValidationError(`--shard-transfer-mode must be one of ${SHARD_TRANSFER_MODES.join(', ')}`);
    return mode;
  }
}

@Command({
  name: 'citus',
  description: 'Citus cluster set-up',
  subCommands: [CitusDistributeCommand, CitusRebalanceCommand],
})
export class CitusCommand extends GroupCommand {}
