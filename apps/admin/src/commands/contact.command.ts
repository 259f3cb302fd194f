import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { GroupCommand } from '../cli/group.command';
import { parseColumnMap } from '../import/contact-columns';
import { ContactImportService } from '../import/contact-import.service';
import { printResult } from '../output';
import { required, text } from './options';

interface ContactImportOptions {
  funnel?: string;
  file?: string;
  upsertBy?: string;
  map?: Record<string, string>;
  delimiter?: string;
  skipAutomationTrigger?: boolean;
}

@SubCommand({
  name: 'import',
  description:
    'Import contacts from a CSV file (header row) through the batch upsert; refused rows go to <file>.refused.csv',
})
export class ContactImportCommand extends CommandRunner {
  constructor(private readonly imports: ContactImportService) {
    super();
  }

  async run(_: string[], options: ContactImportOptions): Promise<void> {
    printResult(
      await this.imports.import({
        funnelId: required(options.funnel, '--funnel'),
        file: required(options.file, '--file'),
        upsertBy: options.upsertBy,
        map: options.map,
        delimiter: options.delimiter,
        skipAutomationTrigger: options.skipAutomationTrigger,
      }),
    );
  }

  @Option({ flags: '--funnel <funnelId>', description: 'funnel the contacts join', required: true })
  parseFunnel(value: string): string {
    return value;
  }

  @Option({
    flags: '--file <path>',
    description: 'CSV file, columns named as the export names them',
    required: true,
  })
  parseFile(value: string): string {
    return value;
  }

  @Option({
    flags: '--upsert-by <key>',
    description:
      'email, phone or a unique property: a row matching a contact updates it (default: create every row)',
  })
  parseUpsertBy(value: string): string {
    return text(value, '--upsert-by');
  }

  @Option({
    flags: '--map <Column=member,...>',
    description:
      'columns named otherwise, e.g. "E-Mail=email,Plan=properties.plan"; "Column=" ignores one; repeatable',
  })
  parseMap(value: string, previous?: Record<string, string>): Record<string, string> {
    return parseColumnMap(value, previous);
  }

  @Option({ flags: '--delimiter <char>', description: 'cell separator (default ",")' })
  parseDelimiter(value: string): string {
    return value;
  }

  @Option({ flags: '--skip-automation-trigger', description: 'run no automation for the imported contacts' })
  parseSkipAutomationTrigger(): boolean {
    return true;
  }
}

@Command({ name: 'contact', description: 'Manage contacts', subCommands: [ContactImportCommand] })
export class ContactCommand extends GroupCommand {}
