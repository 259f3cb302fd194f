import { CommandRunner } from 'nest-commander';
import { CliCommand, UsageError } from './usage';

/** A command that only groups subcommands (`admin funnel`): run alone or with an unknown word, a usage error. */
export abstract class GroupCommand extends CommandRunner {
  async run(args: string[]): Promise<void> {
    const command = this.command as unknown as CliCommand;
    throw new UsageError(
      args.length
        ? `unknown command '${args[0]}' for '${command.name()}'`
        : `a ${command.name()} command is required`,
      command,
    );
  }
}
