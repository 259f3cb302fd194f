import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { ValidationError } from '@app/core';
import { FunnelDescriptionsService } from '@app/metrics';
import {
  DEFAULT_CONTACT_STATUSES,
  DEFAULT_FUNNEL_STATUS,
  FUNNEL_STATUSES,
  FunnelsService,
  MAX_FUNNEL_NAME_LENGTH,
} from '@app/workspaces';
import { GroupCommand } from '../cli/group.command';
import { FunnelCollectionCommand } from './funnel-collection.command';
import { printResult } from '../output';
import { list, required, text } from './options';

interface FunnelCreateOptions {
  workspace?: string;
  name?: string;
  status?: string;
  statuses?: string[];
  pages?: { slug: string; title: string }[];
}

@SubCommand({ name: 'create', description: 'Create a funnel (campaign) in a workspace' })
export class FunnelCreateCommand extends CommandRunner {
  constructor(private readonly funnels: FunnelsService) {
    super();
  }

  async run(_: string[], options: FunnelCreateOptions): Promise<void> {
    const funnel = await this.funnels.create({
      workspaceId: required(options.workspace, '--workspace'),
      name: required(options.name, '--name'),
      status: options.status,
      contactStatuses: options.statuses,
      pages: options.pages,
    });
    printResult({ id: funnel.id });
  }

  @Option({ flags: '--workspace <workspaceId>', description: 'owning workspace id', required: true })
  parseWorkspace(value: string): string {
    return text(value, '--workspace');
  }

  @Option({ flags: '--name <name>', description: 'funnel name', required: true })
  parseName(value: string): string {
    return text(value, '--name', MAX_FUNNEL_NAME_LENGTH);
  }

  @Option({
    flags: '--status <status>',
    description: `${FUNNEL_STATUSES.join(' or ')} (default ${DEFAULT_FUNNEL_STATUS})`,
  })
  parseStatus(value: string): string {
    return text(value, '--status');
  }

  @Option({
    flags: '--statuses <list>',
    description: `contact statuses, first is the default (default ${DEFAULT_CONTACT_STATUSES.join(',')})`,
  })
  parseStatuses(value: string): string[] {
    return list(value);
  }

  @Option({ flags: '--pages <list>', description: 'pages in funnel order as slug:Title,slug:Title' })
  parsePages(value: string): { slug: string; title: string }[] {
    return list(value).map((pair) => {
      const separator = pair.indexOf(':');
      if (separator <= 0) throw new ValidationError(`--pages entry "${pair}" must be slug:Title`);
      return { slug: pair.slice(0, separator).trim(), title: pair.slice(separator + 1).trim() };
    });
  }
}

@SubCommand({ name: 'list', description: "List a workspace's funnels: status and contact statuses" })
export class FunnelListCommand extends CommandRunner {
  constructor(private readonly funnels: FunnelsService) {
    super();
  }

  async run(_: string[], options: { workspace?: string }): Promise<void> {
    printResult({ data: await this.funnels.listForWorkspace(required(options.workspace, '--workspace')) });
  }

  @Option({ flags: '--workspace <workspaceId>', description: 'workspace id', required: true })
  parseWorkspace(value: string): string {
    return value;
  }
}

@SubCommand({
  name: 'show',
  description: 'Show a funnel: contact statuses, pages in order, question ids seen with their latest titles',
})
export class FunnelShowCommand extends CommandRunner {
  constructor(private readonly descriptions: FunnelDescriptionsService) {
    super();
  }

  async run(_: string[], options: { id?: string }): Promise<void> {
    printResult(await this.descriptions.describe(required(options.id, '--id')));
  }

  @Option({ flags: '--id <funnelId>', description: 'funnel id', required: true })
  parseId(value: string): string {
    return value;
  }
}

@Command({
  name: 'funnel',
  description: 'Manage funnels',
  subCommands: [FunnelCreateCommand, FunnelListCommand, FunnelShowCommand, FunnelCollectionCommand],
})
export class FunnelCommand extends GroupCommand {}
