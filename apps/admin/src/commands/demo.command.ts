import { Command, CommandRunner, SubCommand } from 'nest-commander';
import { DemoSeedService } from '../demo/demo-seed.service';
import { GroupCommand } from '../cli/group.command';
import { printResult } from '../output';

@SubCommand({
  name: 'seed',
  description: 'Create a demo company with a key, funnels, contacts and 30 days of traffic',
})
export class DemoSeedCommand extends CommandRunner {
  constructor(private readonly demo: DemoSeedService) {
    super();
  }

  async run(): Promise<void> {
    printResult(await this.demo.seed());
  }
}

@Command({ name: 'demo', description: 'Demo data', subCommands: [DemoSeedCommand] })
export class DemoCommand extends GroupCommand {}
