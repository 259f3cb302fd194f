/** The parts of a commander command the contract reads (nest-commander builds them). */
export interface CliCommand {
  name(): string;
  description(): string;
  parent: CliCommand | null;
  commands: readonly CliCommand[];
  options: readonly { flags: string; description: string; mandatory: boolean }[];
}

/** A command line the CLI cannot run as written: printed with the usage of the command meant. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command: CliCommand,
  ) {
    super(message);
  }
}

export function fullName(command: CliCommand): string {
  return command.parent ? `${fullName(command.parent)} ${command.name()}` : command.name();
}

/** One line: `admin funnel create --workspace <workspaceId> --name <name> [--status <status>]`. */
export function usageOf(command: CliCommand): string {
  if (command.commands.length) {
    return `${fullName(command)} <${command.commands.map((sub) => sub.name()).join('|')}> [options]`;
  }
  const options = command.options.map((option) => {
    const flag = option.flags.split(/[ ,]+/).find((part) => part.startsWith('--')) ?? option.flags;
    const value = option.flags.match(/[<[][^>\]]+[>\]]/)?.[0];
    const text = value ? `${flag} ${value}` : flag;
    return option.mandatory ? text : `[${text}]`;
  });
  return [fullName(command), ...options].join(' ');
}

/** What `--help` prints: the command, its usage, and its subcommands or options. */
export function describeCommand(command: CliCommand): object {
  return {
    command: fullName(command),
    description: command.description(),
    usage: usageOf(command),
    ...(command.commands.length
      ? {
          commands: command.commands.map((sub) => ({
            name: sub.name(),
            description: sub.description(),
            usage: usageOf(sub),
          })),
        }
      : {
          options: command.options.map((option) => ({
            flags: option.flags,
            description: option.description,
            required: option.mandatory,
          })),
        }),
  };
}

/** The command a command line names, following its leading words; undefined for an unknown word. */
export function findCommand(root: CliCommand, words: string[]): CliCommand | undefined {
  let command = root;
  for (const word of words) {
    if (word.startsWith('-')) break;
    const sub = command.commands.find((candidate) => candidate.name() === word);
    if (!sub) return command.commands.length ? undefined : command;
    command = sub;
  }
  return command;
}
