import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { CompaniesService, MAX_COMPANY_NAME_LENGTH, MAX_SUBSCRIPTION_ID_LENGTH } from '@app/auth';
import { GroupCommand } from '../cli/group.command';
import { printResult } from '../output';
import { required, text } from './options';

@SubCommand({ name: 'create', description: 'Create a company (the tenant of keys, workspaces and funnels)' })
export class CompanyCreateCommand extends CommandRunner {
  constructor(private readonly companies: CompaniesService) {
    super();
  }

  async run(_: string[], options: { name?: string; subscription?: string }): Promise<void> {
    const company = await this.companies.create(required(options.name, '--name'), options.subscription);
    printResult({ id: company.id });
  }

  @Option({ flags: '--name <name>', description: 'company name', required: true })
  parseName(value: string): string {
    return text(value, '--name', MAX_COMPANY_NAME_LENGTH);
  }

  @Option({ flags: '--subscription <id>', description: 'billing subscription id (generated when omitted)' })
  parseSubscription(value: string): string {
    return text(value, '--subscription', MAX_SUBSCRIPTION_ID_LENGTH);
  }
}

@SubCommand({ name: 'list', description: 'List every company, oldest first' })
export class CompanyListCommand extends CommandRunner {
  constructor(private readonly companies: CompaniesService) {
    super();
  }

  async run(): Promise<void> {
    printResult({ data: await this.companies.list() });
  }
}

@Command({
  name: 'company',
  description: 'Manage companies',
  subCommands: [CompanyCreateCommand, CompanyListCommand],
})
export class CompanyCommand extends GroupCommand {}
