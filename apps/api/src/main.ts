// First: tracing (when configured) must patch http, express and pg before they are loaded.
import { tracing } from './tracing';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import {
  ConfigValidationError,
  createRootLogger,
  resolveDatabase,
  runMigrations,
  assertServerVersionAt,
  ShutdownState,
  validateEnv,
} from '@app/core';
import { startDemoFunnel } from '@app/demo-funnel';
import { resolveIdentityProvider } from '@app/dev-idp';
import { databaseSchema } from '../../../db/schema';
import { createApp } from './create-app';

// Connections still open this long after the server stopped accepting (a stalled client, a
// stream) are cut, so shutdown ends within Kubernetes' grace period.
const DRAIN_TIMEOUT_MS = 20_000;

async function bootstrap(): Promise<void> {
  const env = validateEnv(process.env);
  // The app's logger from the first line: JSON (or pretty in a terminal), never Nest's coloured text.
  const root = createRootLogger(env);
  const bootLog = (line: string) => root.info({ context: 'Bootstrap' }, line);
  const db = await resolveDatabase({ ...env, log: bootLog });
  const idp = await resolveIdentityProvider(env, db.url, bootLog).catch(async (error) => {
    await db.embedded?.release();
    throw error;
  });
  // ConfigModule reads process.env: the development identity provider's settings join it.
  Object.assign(process.env, idp.variables);
  const appEnv = validateEnv(process.env);
  const app = await (async () => {
    // Development applies migrations on start; production runs `npm run migration:run` first.
    if (env.NODE_ENV === 'production') await assertServerVersionAt(db.url);
    else {
      const applied = await runMigrations(db.url, databaseSchema, env);
      if (applied.length) bootLog(`applied migrations: ${applied.join(', ')}`);
    }
    return createApp(appEnv, { databaseUrl: db.url, logger: root });
  })().catch(async (error) => {
    await idp.close();
    await db.embedded?.release();
    throw error;
  });
  const logger = new Logger('Bootstrap');
  const delayMs = env.SHUTDOWN_DELAY_MS ?? (env.NODE_ENV === 'production' ? 5_000 : 0);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.log(`${signal} received: readiness fails, draining for ${delayMs} ms`);
    await drain(app, delayMs);
    await idp.close();
    // The embedded PostgreSQL stops with the last process that uses it.
    await db.embedded?.release();
    await tracing?.shutdown().catch(() => undefined);
    logger.log('stopped');
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
  if (env.NODE_ENV === 'development') await serveDemoFunnel(env.PORT, env.DEMO_FUNNEL_PORT, logger);
}

/** Development: the demo funnel's pages on a second loopback origin (the demo seed allows it). */
async function serveDemoFunnel(apiPort: number, port: number, logger: Logger): Promise<void> {
  try {
    const demo = await startDemoFunnel({ apiBase: `http://127.0.0.1:${apiPort}`, port });
    demo.server.unref();
    logger.log(
      `demo funnel at ${demo.origin}/{funnelId}/start.html (funnel ids: npm run admin -- demo seed)`,
    );
  } catch (error) {
    logger.warn(`demo funnel not served on port ${port}: ${(error as Error).message}`);
  }
}

/**
 * A rolling restart without a lost request: readiness fails first while requests are still
 * served (load balancers stop sending new ones), then the server stops accepting, requests and
 * webhook deliveries in flight finish, and the database pool closes last.
 */
async function drain(app: NestExpressApplication, delayMs: number): Promise<void> {
  app.get(ShutdownState).draining = true;
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  const server = app.getHttpServer();
  const cut = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
  await app.close();
  clearTimeout(cut);
}

bootstrap().catch((error) => {
  console.error(
    error instanceof ConfigValidationError
      ? error.message
      : `startup failed: ${(error as Error)?.message ?? error}`,
  );
  process.exit(1);
});
