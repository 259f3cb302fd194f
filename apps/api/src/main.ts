import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigValidationError, resolveDatabase, runMigrations, validateEnv } from '@app/core';
import { resolveIdentityProvider } from '@app/dev-idp/resolve-identity-provider';
import { createApp } from './create-app';

async function bootstrap(): Promise<void> {
  const env = validateEnv(process.env);
  const logger = new Logger('Bootstrap');
  const db = await resolveDatabase({ ...env, log: (line) => logger.log(line) });
  const idp = await resolveIdentityProvider(env, db.url, (line) => logger.log(line)).catch(async (error) => {
    await db.embedded?.release();
    throw error;
  });
  // ConfigModule reads process.env: the development identity provider's settings join it.
  Object.assign(process.env, idp.variables);
  const appEnv = validateEnv(process.env);
  const app = await (async () => {
    // Development applies migrations on start; production runs `npm run migration:run` first.
    if (env.NODE_ENV !== 'production') {
      const applied = await runMigrations(db.url);
      if (applied.length) logger.log(`applied migrations: ${applied.join(', ')}`);
    }
    return createApp(appEnv, { databaseUrl: db.url });
  })().catch(async (error) => {
    await idp.close();
    await db.embedded?.release();
    throw error;
  });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.log(`${signal} received, shutting down`);
    await app.close();
    await idp.close();
    // The embedded PostgreSQL stops with the last process that uses it.
    await db.embedded?.release();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  // Development only (production never embeds PostgreSQL): a dead embedded server is started again.
  db.embedded?.keepAlive((error) => {
    logger.error(error.message);
    process.exit(1);
  });
  await app.listen(env.PORT);
  logger.log(`listening on port ${env.PORT}; Swagger UI at /docs`);
}

bootstrap().catch((error) => {
  console.error(
    error instanceof ConfigValidationError
      ? error.message
      : `startup failed: ${(error as Error)?.message ?? error}`,
  );
  process.exit(1);
});
