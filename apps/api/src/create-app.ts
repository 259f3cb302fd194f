import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import type { DestinationStream, Logger as PinoLogger } from 'pino';
import { CoreModuleOptions, createRootLogger, EnvironmentVariables } from '@app/core';
import { AppModule } from './app.module';
import { configureApp } from './configure-app';

export interface CreateAppOptions extends CoreModuleOptions {
  /** The process's root logger (main.ts logs through it before the app exists). */
  logger?: PinoLogger;
  /** Where log lines go instead of stdout (the log suites read them). */
  logDestination?: DestinationStream;
}

/** The configured HTTP application, not yet listening (main.ts and the e2e suites). */
export async function createApp(
  env: EnvironmentVariables,
  options: CreateAppOptions,
): Promise<NestExpressApplication> {
  const logger = options.logger ?? createRootLogger(env, options.logDestination);
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot({ databaseUrl: options.databaseUrl, env, logger }),
    { bodyParser: false, bufferLogs: true },
  );
  app.useLogger(app.get(Logger));
  configureApp(app, env);
  return app;
}
