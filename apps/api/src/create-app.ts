import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { configureHttpApp, CoreModuleOptions, EnvironmentVariables } from '@app/core';
import { AppModule } from './app.module';

/** The configured HTTP application, not yet listening (main.ts and the e2e suites). */
export async function createApp(
  env: EnvironmentVariables,
  options: CoreModuleOptions,
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot({ ...options, env }), {
    bodyParser: false,
    bufferLogs: true,
    logger: loggerLevels(env.LOG_LEVEL),
  });
  configureHttpApp(app, env);
  return app;
}

const LEVELS = ['error', 'warn', 'log', 'debug', 'verbose'] as const;

function loggerLevels(level: string) {
  return LEVELS.slice(0, LEVELS.indexOf(level as (typeof LEVELS)[number]) + 1);
}
