import type { NestExpressApplication } from '@nestjs/platform-express';
import { configureHttpApp, EnvironmentVariables } from '@app/core';
import { EVENT_BATCH_BODY } from '@app/metrics';

/** core's HTTP setup, told which of this app's routes take a larger body (core knows no route). */
export function configureApp(app: NestExpressApplication, env: EnvironmentVariables): void {
  configureHttpApp(app, env, [EVENT_BATCH_BODY]);
}
