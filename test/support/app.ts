import type { NestExpressApplication } from '@nestjs/platform-express';
import { createApp } from '../../apps/api/src/create-app';
import { EnvironmentVariables, validateEnv } from '@app/core';
import { createTestDatabase } from './database';

export interface TestApp {
  app: NestExpressApplication;
  /** http://127.0.0.1:<port> of the listening app. */
  baseUrl: string;
  databaseUrl: string;
  env: EnvironmentVariables;
  close(): Promise<void>;
}

/** The real HTTP app on its own fresh database, listening on a free loopback port. */
export async function startTestApp(overrides: Record<string, string> = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const env = validateEnv({ ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'error', ...overrides });
  const app = await createApp(env, { databaseUrl: db.url });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  return {
    app,
    baseUrl: `http://127.0.0.1:${address.port}`,
    databaseUrl: db.url,
    env,
    close: async () => {
      await app.close();
      await db.drop();
    },
  };
}
