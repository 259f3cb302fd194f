import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { ApiKeysService, MAX_API_KEY_NAME_LENGTH, parseExpiresIn, PERMISSIONS } from '@app/auth';
import { GroupCommand } from '../cli/group.command';
import { printResult } from '../output';
import { list, required, text } from './options';

@SubCommand({
  name: 'create',
  description: 'Create an API key; the key is printed once and only its hash is stored',
})
export class ApiKeyCreateCommand extends CommandRunner {
  constructor(private readonly apiKeys: ApiKeysService) {
    super();
  }

  async run(
    _: string[],
    options: { company?: string; permissions?: string[]; name?: string; expiresIn?: number },
  ): Promise<void> {
    printResult(
      await this.apiKeys.create(
        required(options.company, '--company'),
        required(options.permissions, '--permissions'),
        options.name,
        { expiresInMs: options.expiresIn },
      ),
    );
  }

  @Option({ flags: '--company <companyId>', description: 'company the key acts for', required: true })
  parseCompany(value: string): string {
    return text(value, '--company');
  }

  @Option({
    flags: '--permissions <list>',
    description: `comma-separated: ${PERMISSIONS.join(', ')}`,
    required: true,
  })
  parsePermissions(value: string): string[] {
    return list(value);
  }

  @Option({ flags: '--name <name>', description: 'a label to recognise the key by' })
  parseName(value: string): string {
    return text(value, '--name', MAX_API_KEY_NAME_LENGTH);
  }

  @Option({
    flags: '--expires-in <duration>',
    description: 'the key answers 401 "API key expired" after this long: 90d, 12h, 30m or 45s',
  })
  parseExpiry(value: string): number {
    // Refused while the command line is read: a usage error, nothing created.
    return parseExpiresIn(value);
  }
}

@SubCommand({ name: 'revoke', description: 'Revoke an API key (it is refused from then on)' })
export class ApiKeyRevokeCommand extends CommandRunner {
  constructor(private readonly apiKeys: ApiKeysService) {
    super();
  }

  async run(_: string[], options: { id?: string }): Promise<void> {
    printResult(await this.apiKeys.revoke(required(options.id, '--id')));
  }

  @Option({
    flags: '--id <keyId>',
    description: 'id of the key (from apikey create or list)',
    required: true,
  })
  parseId(value: string): string {
    return text(value, '--id');
  }
}

@SubCommand({ name: 'list', description: "List a company's API keys (never their secrets)" })
export class ApiKeyListCommand extends CommandRunner {
  constructor(private readonly apiKeys: ApiKeysService) {
    super();
  }

  async run(_: string[], options: { company?: string }): Promise<void> {
    printResult({ data: await this.apiKeys.list(required(options.company, '--company')) });
  }

  @Option({ flags: '--company <companyId>', description: 'company id', required: true })
  parseCompany(value: string): string {
    return text(value, '--company');
  }
}

@Command({
  name: 'apikey',
  description: 'Manage API keys',
  subCommands: [ApiKeyCreateCommand, ApiKeyRevokeCommand, ApiKeyListCommand],
})
export class ApiKeyCommand extends GroupCommand {}
