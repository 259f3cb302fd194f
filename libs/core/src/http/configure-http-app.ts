import { VersioningType } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { EnvironmentVariables } from '../config/env.validation';
import { setupSwagger } from './swagger';
import { AppValidationPipe } from './validation.pipe';

export const BODY_LIMIT = '100kb';

/** Everything the HTTP app needs beyond its modules; shared by main.ts and the e2e suites. */
export function configureHttpApp(app: NestExpressApplication, env: EnvironmentVariables): void {
  app.set('trust proxy', env.TRUST_PROXY);
  app.disable('x-powered-by');
  app.useBodyParser('json', { limit: BODY_LIMIT });
  app.useBodyParser('urlencoded', { limit: BODY_LIMIT, extended: false });
  // REST routes say `version: '1'` and live under /v1; OAuth, MCP and docs are unversioned.
  app.enableVersioning({ type: VersioningType.URI, prefix: 'v' });
  // DTOs are validated and transformed everywhere; undeclared members are refused.
  app.useGlobalPipes(new AppValidationPipe());
  setupSwagger(app);
}
