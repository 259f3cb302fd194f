import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import {
  ConfigValidationError,
  DomainException,
  resolveDatabase,
  runMigrations,
  validateEnv,
} from '@app/core';
import { AdminModule } from './admin.module';
import { printError } from './output';

/** `npm run --silent admin -- <command>`: one JSON object on stdout, or `{"error"}` on stderr. */
async function main(): Promise<void> {
  const env = validateEnv(process.env);
  const db = await resolveDatabase(env);
  try {
    if (env.NODE_ENV !== 'production') await runMigrations(db.url);
    await CommandFactory.run(AdminModule.forRoot({ databaseUrl: db.url }), {
      cliName: 'admin',
      logger: false,
      enablePositionalOptions: true,
      // Usage errors (unknown command, missing option) come through outputError, from any level.
      outputConfiguration: {
        writeErr: () => undefined,
        outputError: (text) => printError(text.trim().replace(/^error: /, '')),
      },
      errorHandler: () => undefined,
      serviceErrorHandler: (error) => {
        if (error instanceof DomainException) printError(error.message, error.details);
        else printError(`command failed: ${error.message}`);
      },
    });
  } finally {
    await db.embedded?.release();
  }
}

main().catch((error) => {
  printError(
    error instanceof ConfigValidationError ? error.message : `command failed: ${(error as Error).message}`,
  );
});
