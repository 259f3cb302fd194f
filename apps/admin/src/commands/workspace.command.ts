import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { CompaniesService } from '@app/auth';
import { MAX_WORKSPACE_NAME_LENGTH, WorkspacesService } from '@app/workspaces';
import { GroupCommand } from '../cli/group.command';
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
    return text(value, '--name', MAX_WORKSPACE_NAME_LENGTH);
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
