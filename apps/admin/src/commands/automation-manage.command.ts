import { Injectable } from '@nestjs/common';
import { CommandRunner, Option, SubCommand } from 'nest-commander';
import { AutomationsService } from '@app/automations';
import { printResult } from '../output';
import { required } from './options';

@SubCommand({
  name: 'list',
  description: "List a funnel's automations: trigger, action, on or off (no secrets)",
})
export class AutomationListCommand extends CommandRunner {
  constructor(private readonly automations: AutomationsService) {
    super();
  }

  async run(_: string[], options: { funnel?: string }): Promise<void> {
    printResult({ data: await this.automations.list(required(options.funnel, '--funnel')) });
  }

  @Option({ flags: '--funnel <funnelId>', description: 'funnel id', required: true })
  parseFunnel(value: string): string {
    return value;
  }
}

/** `automation enable|disable|delete --id A`: one automation addressed by its id. */
// Injectable so that the subclasses inherit the constructor's parameter types.
@Injectable()
abstract class AutomationByIdCommand extends CommandRunner {
  constructor(protected readonly automations: AutomationsService) {
    super();
  }

  async run(_: string[], options: { id?: string }): Promise<void> {
    printResult(await this.apply(required(options.id, '--id')));
  }

  protected abstract apply(id: string): Promise<object>;

  @Option({ flags: '--id <automationId>', description: 'automation id', required: true })
  parseId(value: string): string {
    return value;
  }
}

@SubCommand({ name: 'enable', description: 'Switch an automation on: contact changes record runs again' })
export class AutomationEnableCommand extends AutomationByIdCommand {
  protected apply(id: string): Promise<object> {
    return this.automations.setEnabled(id, true);
  }
}

@SubCommand({
  name: 'disable',
  description: 'Switch an automation off: no new runs are recorded; pending runs still deliver',
})
export class AutomationDisableCommand extends AutomationByIdCommand {
  protected apply(id: string): Promise<object> {
    return this.automations.setEnabled(id, false);
  }
}

@SubCommand({ name: 'delete', description: 'Delete an automation and its runs, pending ones included' })
export class AutomationDeleteCommand extends AutomationByIdCommand {
  protected apply(id: string): Promise<object> {
    return this.automations.delete(id);
  }
}
