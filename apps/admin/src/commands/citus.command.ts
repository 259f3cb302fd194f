import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { ValidationError } from '@app/core';
import { CitusDistributionService } from '../citus/citus-distribution.service';
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

@Command({ name: 'citus', description: 'Citus cluster set-up', subCommands: [CitusDistributeCommand] })
export class CitusCommand extends GroupCommand {}
