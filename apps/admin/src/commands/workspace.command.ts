import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { WorkspacesService } from '@app/workspaces';
import { printResult } from '../output';
import { required, text } from './options';

@SubCommand({ name: 'create', description: 'Create a workspace in a company' })
export class WorkspaceCreateCommand extends CommandRunner {
  constructor(private readonly workspaces: WorkspacesService) {
    super();
  }

  async run(_: string[], options: { company?: string; name?: string }): Promise<void> {
    const workspace = await this.workspaces.create(
      required(options.company, '--company'),
      required(options.name, '--name'),
    );
    printResult({ id: workspace.id });
  }

  @Option({ flags: '--company <companyId>', description: 'owning company id', required: true })
  parseCompany(value: string): string {
    return text(value, '--company');
  }

  @Option({ flags: '--name <name>', description: 'workspace name', required: true })
  parseName(value: string): string {
    return text(value, '--name', 200);
  }
}

@Command({ name: 'workspace', description: 'Manage workspaces', subCommands: [WorkspaceCreateCommand] })
export class WorkspaceCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help();
  }
}
