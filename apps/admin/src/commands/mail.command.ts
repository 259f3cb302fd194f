import { Inject } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { type AppConfigService, NotFoundError, ValidationError } from '@app/core';
import { listMailbox, readMailboxMessage } from '@app/automations';
import { GroupCommand } from '../cli/group.command';
import { printResult } from '../output';
import { required, text } from './options';

const LIMIT_RULE = '--limit must be an integer between 1 and 1000';

/** The development mailbox lives under DATA_DIR; with SMTP_URL or in production mail goes elsewhere. */
function mailboxDir(env: AppConfigService): string {
  if (env.get('NODE_ENV', { infer: true }) === 'production' || env.get('SMTP_URL', { infer: true })) {
    throw new ValidationError(
      'the development mailbox is used only outside production without SMTP_URL; read sent email at your SMTP provider',
    );
  }
  return env.get('DATA_DIR', { infer: true });
}

@SubCommand({
  name: 'list',
  description: 'List the development mailbox, newest first (development without SMTP_URL)',
})
export class MailListCommand extends CommandRunner {
  constructor(@Inject(ConfigService) private readonly env: AppConfigService) {
    super();
  }

  async run(_: string[], options: { limit?: number }): Promise<void> {
    printResult({ data: await listMailbox(mailboxDir(this.env), options.limit ?? 50) });
  }

  @Option({ flags: '--limit <n>', description: 'at most n messages (1 to 1000, default 50)' })
  parseLimit(value: string): number {
    const limit = Number(value);
    if (!/^\d+$/.test(value) || limit < 1 || limit > 1000) throw new ValidationError(LIMIT_RULE);
    return limit;
  }
}

@SubCommand({
  name: 'show',
  description: 'Show one message of the development mailbox: headers, text and HTML',
})
export class MailShowCommand extends CommandRunner {
  constructor(@Inject(ConfigService) private readonly env: AppConfigService) {
    super();
  }

  async run(_: string[], options: { id?: string }): Promise<void> {
    const message = await readMailboxMessage(mailboxDir(this.env), required(options.id, '--id'));
    if (!message) throw new NotFoundError('Message not found');
    printResult({ data: message });
  }

  @Option({ flags: '--id <id>', description: 'message id, as `mail list` shows it', required: true })
  parseId(value: string): string {
    return text(value, '--id');
  }
}

@Command({
  name: 'mail',
  description: 'Read the development mailbox (where email goes without SMTP_URL outside production)',
  subCommands: [MailListCommand, MailShowCommand],
})
export class MailCommand extends GroupCommand {}
