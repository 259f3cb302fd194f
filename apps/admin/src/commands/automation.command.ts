import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { ValidationError } from '@app/core';
import {
  AutomationsService,
  CreateAutomationInput,
  DEFAULT_RUNS_LIMIT,
  MAX_RUNS_LIMIT,
  RUN_STATUSES,
  RUNS_LIMIT_RULE,
} from '@app/automations';
import { GroupCommand } from '../cli/group.command';
import {
  AutomationDeleteCommand,
  AutomationDisableCommand,
  AutomationEnableCommand,
  AutomationListCommand,
} from './automation-manage.command';
import { printResult } from '../output';
import { required, text } from './options';

type AutomationCreateOptions = Partial<Omit<CreateAutomationInput, 'funnelId'>> & { funnel?: string };

@SubCommand({
  name: 'create',
  description:
    'Create an automation: on contact.created, contact.updated, contact.deleted, status:<status> or field:<fieldName>, POST a signed webhook or record a message',
})
export class AutomationCreateCommand extends CommandRunner {
  constructor(private readonly automations: AutomationsService) {
    super();
  }

  async run(_: string[], options: AutomationCreateOptions): Promise<void> {
    const { funnel, ...rest } = options;
    printResult(
      await this.automations.create({
        ...rest,
        funnelId: required(funnel, '--funnel'),
        on: required(options.on, '--on'),
      }),
    );
  }

  @Option({ flags: '--funnel <funnelId>', description: 'funnel the automation belongs to', required: true })
  parseFunnel(value: string): string {
    return text(value, '--funnel');
  }

  @Option({
    flags: '--on <trigger>',
    description:
      'contact.created, contact.updated (any field changed), contact.deleted (erased; webhooks only), status:<status> (status became that value) or field:<fieldName> (value changed)',
    required: true,
  })
  parseOn(value: string): string {
    return text(value, '--on');
  }

  @Option({ flags: '--webhook <url>', description: 'action: POST the event as JSON to this http(s) URL' })
  parseWebhook(value: string): string {
    return text(value, '--webhook');
  }

  @Option({
    flags: '--secret <secret>',
    description: 'webhook signing secret (16+ characters): adds X-Signature: sha256=<HMAC of the body>',
  })
  parseSecret(value: string): string {
    return text(value, '--secret');
  }

  @Option({
    flags: '--message <channel>',
    description: 'action: record an email or sms message to the contact',
  })
  parseMessage(value: string): string {
    return text(value, '--message');
  }

  @Option({ flags: '--subject <subject>', description: 'email subject, may use {{field}} placeholders' })
  parseSubject(value: string): string {
    return text(value, '--subject');
  }

  @Option({
    flags: '--tracking <on|off>',
    description:
      'email: on (default) records opens (a pixel) and clicks (links through the service); off sends plain links',
  })
  parseTracking(value: string): boolean {
    if (value !== 'on' && value !== 'off') throw new ValidationError('--tracking must be on or off');
    return value === 'on';
  }

  @Option({ flags: '--template <template>', description: 'message body, e.g. "Hello {{firstName}}"' })
  parseTemplate(value: string): string {
    return text(value, '--template');
  }

  @Option({ flags: '--name <name>', description: 'internal name (shown as the message name)' })
  parseName(value: string): string {
    return text(value, '--name');
  }
}

interface AutomationRunsOptions {
  funnel?: string;
  status?: string;
  limit?: number;
}

@SubCommand({
  name: 'runs',
  description: "List a funnel's automation runs, newest first: status, attempts, last error (no secrets)",
})
export class AutomationRunsCommand extends CommandRunner {
  constructor(private readonly automations: AutomationsService) {
    super();
  }

  async run(_: string[], options: AutomationRunsOptions): Promise<void> {
    const data = await this.automations.listRuns(required(options.funnel, '--funnel'), {
      status: options.status,
      limit: options.limit,
    });
    printResult({ data });
  }

  @Option({ flags: '--funnel <funnelId>', description: 'funnel id', required: true })
  parseFunnel(value: string): string {
    return text(value, '--funnel');
  }

  @Option({
    flags: '--status <status>',
    description: `only runs in this state: ${RUN_STATUSES.join(', ')}`,
  })
  parseStatus(value: string): string {
    return text(value, '--status');
  }

  @Option({
    flags: '--limit <n>',
    description: `at most n runs (1 to ${MAX_RUNS_LIMIT}, default ${DEFAULT_RUNS_LIMIT})`,
  })
  parseLimit(value: string): number {
    if (!/^\d+$/.test(value)) throw new ValidationError(RUNS_LIMIT_RULE);
    return Number(value);
  }
}

@Command({
  name: 'automation',
  description: 'Manage automations (webhooks and messages triggered by contact changes)',
  subCommands: [
    AutomationCreateCommand,
    AutomationListCommand,
    AutomationEnableCommand,
    AutomationDisableCommand,
    AutomationDeleteCommand,
    AutomationRunsCommand,
  ],
})
export class AutomationCommand extends GroupCommand {}
