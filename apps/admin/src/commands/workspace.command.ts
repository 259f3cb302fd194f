import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { CompaniesService } from '@app/auth';
import { WorkspacesService } from '@app/workspaces';
import { GroupCommand } from '../cli/group.command';
import { printResult } from '../output';
import { required } from './options';

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
    return value;
  }

  @Option({ flags: '--name <name>', description: 'workspace name', required: true })
  parseName(value: string): string {
    return value;
  }
}

@SubCommand({ name: 'list', description: "List a company's workspaces with their funnels" })
export class WorkspaceListCommand extends CommandRunner {
  constructor(
    private readonly companies: CompaniesService,
    private readonly workspaces: WorkspacesService,
  ) {
    super();
  }

  async run(_: string[], options: { company?: string }): Promise<void> {
    const companyId = required(options.company, '--company');
    await this.companies.assertExists(companyId);
    printResult({ data: await this.workspaces.listForCompany(companyId) });
  }

  @Option({ flags: '--company <companyId>', description: 'company id', required: true })
  parseCompany(value: string): string {
    return value;
  }
}

@Command({
  name: 'workspace',
  description: 'Manage workspaces',
  subCommands: [WorkspaceCreateCommand, WorkspaceListCommand],
})
export class WorkspaceCommand extends GroupCommand {}
