import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { CommandFactory } from 'nest-commander';
import { DataSource } from 'typeorm';
import {
  ConfigValidationError,
  DomainException,
  resolveDatabase,
  ResolvedDatabase,
  runMigrations,
  validateEnv,
} from '@app/core';
import { databaseSchema } from '../../../db/schema';
import { AdminModule } from './admin.module';
import { CompanyCommand } from './commands/company.command';
import { CliCommand, describeCommand, findCommand, UsageError, usageOf } from './cli/usage';
import { printError, printResult, printUsageError } from './output';

/** The commander commands nest-commander builds, with the hooks this entry point sets on them. */
interface Program extends CliCommand {
  name(): string;
  name(text: string): Program;
  description(): string;
  description(text: string): Program;
  commands: Program[];
  exitOverride(handler: (error: { code: string; message: string }) => void): Program;
  configureOutput(output: Record<string, (text: string) => void>): Program;
  helpOption(enabled: false): Program;
  addHelpCommand(enabled: false): Program;
  hook(event: 'preAction' | 'preSubcommand', hook: (self: Program, next: Program) => unknown): Program;
  parseAsync(argv: string[], options: { from: 'user' }): Promise<Program>;
}

const silent = () => undefined;

/** The command being parsed: option values it refuses are usage errors of that command. */
let parsing: Program;

/** Every commander message becomes a UsageError naming the command it came from; nothing is printed. */
function quieten(command: Program): void {
  command.hook('preSubcommand', (_, next) => {
    parsing = next;
  });
  command.exitOverride((error) => {
    const message =
      error.code === 'commander.help' ? 'a command is required' : error.message.replace(/^error: /, '');
    throw new UsageError(message, command);
  });
  command.configureOutput({ writeOut: silent, writeErr: silent, outputError: silent });
  command.helpOption(false);
  command.addHelpCommand(false);
  command.commands.forEach(quieten);
}

/**
 * `npm run --silent admin -- <command>`: exactly one JSON object for every invocation. A result on
 * stdout (exit 0), `--help` as JSON on stdout (exit 0), a usage error `{"error","usage"}` on stderr
 * (exit 2), or a failure `{"error"}` on stderr (exit 1). The database is opened only for a command
 * that runs.
 */
async function main(argv: string[]): Promise<void> {
  const env = validateEnv(process.env);
  const app = await CommandFactory.createWithoutRunning(
    AdminModule.forRoot({ databaseUrl: undefined, pooling: env }),
    {
      cliName: 'admin',
      logger: false,
      enablePositionalOptions: true,
    },
  );
  // The root program is the parent of every top-level command.
  const program = (app.get(CompanyCommand) as unknown as { command: Program }).command.parent as Program;
  program
    .name('admin')
    .description(
      'Operate the funnel CRM service: companies, keys, workspaces, funnels, contact imports, automations',
    );
  quieten(program);

  const helpAt = argv.findIndex((word) => word === '--help' || word === '-h');
  if (helpAt >= 0 || argv[0] === 'help') {
    const words = argv[0] === 'help' ? argv.slice(1) : argv.slice(0, helpAt);
    const command = findCommand(program, words);
    if (!command) throw new UsageError(`unknown command '${words.join(' ')}'`, program);
    printResult(describeCommand(command));
    return;
  }

  let db: ResolvedDatabase | undefined;
  let acting = false;
  program.hook('preAction', async (_, action) => {
    acting = true;
    if (action.commands.length) return; // a group: its action is a usage error
    db = await openDatabase(app, env);
  });
  try {
    parsing = program;
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    // An option's value refused while the command line is read (e.g. --pages without slug:Title).
    if (!acting && error instanceof DomainException) throw new UsageError(error.message, parsing);
    throw error;
  } finally {
    await app.close();
    await db?.embedded?.release();
  }
}

async function openDatabase(
  app: INestApplicationContext,
  env: ReturnType<typeof validateEnv>,
): Promise<ResolvedDatabase> {
  const db = await resolveDatabase(env);
  if (env.NODE_ENV !== 'production') await runMigrations(db.url, databaseSchema, env);
  const dataSource = app.get(DataSource);
  dataSource.setOptions({ url: db.url });
  await dataSource.initialize();
  return db;
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) printUsageError(error.message, usageOf(error.command));
  else if (error instanceof DomainException) printError(error.message, error.details);
  else if (error instanceof ConfigValidationError) printError(error.message);
  else printError(`command failed: ${(error as Error)?.message ?? error}`);
});
