import type { NestExpressApplication } from '@nestjs/platform-express';
import type { DestinationStream } from 'pino';
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

/**
 * The real HTTP app listening on a free loopback port, on its own fresh database unless
 * `databaseUrl` names one the caller manages.
 */
export async function startTestApp(
  overrides: Record<string, string> = {},
  databaseUrl?: string,
  logDestination?: DestinationStream,
): Promise<TestApp> {
  const db = databaseUrl ? { url: databaseUrl, drop: async () => undefined } : await createTestDatabase();
  // Suites send far more than 100 requests a minute with one key, and refused keys from one address;
  // the rate-limit suites set their own limits.
  const raw = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    RATE_LIMIT_PER_MINUTE: '100000',
    AUTH_FAILURES_PER_MINUTE: '100000',
    METRICS_PORT: '0',
    ...overrides,
  };
  const env = validateEnv(raw);
  // ConfigModule reads process.env while the app is built: show it this app's variables only.
  const app = await withProcessEnv(raw, () => createApp(env, { databaseUrl: db.url, logDestination }));
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

async function withProcessEnv<T>(
  vars: Record<string, string | undefined>,
  run: () => Promise<T>,
): Promise<T> {
  const saved = { ...process.env };
  const replace = (next: Record<string, string | undefined>) => {
    for (const key of Object.keys(process.env)) delete process.env[key];
    for (const [key, value] of Object.entries(next)) if (value !== undefined) process.env[key] = value;
  };
  replace(vars);
  try {
    return await run();
  } finally {
    replace(saved);
  }
}
