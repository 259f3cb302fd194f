import { VersioningType } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { json } from 'express';
import type { Logger } from 'pino';
import type { EnvironmentVariables } from '../config/env.validation';
import { accessLog } from '../observability/access-log';
import { HttpMetrics } from '../observability/http-metrics';
import { ROOT_LOGGER } from '../observability/observability.module';
import { ShutdownState } from '../observability/shutdown-state';
import { verifyJsonDepth } from './json-depth';
import { setupSwagger } from './swagger';
import { AppValidationPipe } from './validation.pipe';

export const BODY_LIMIT = '100kb';
/** Tracking-event batches (up to 1000 events) are the one body allowed to be larger. */
export const EVENT_BATCH_BODY_LIMIT = '1mb';
const EVENT_BATCH_PATH = /^\/v1\/funnels\/[^/?]+\/events\/?(?:\?|$)/;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Everything the HTTP app needs beyond its modules; shared by main.ts and the e2e suites. */
export function configureHttpApp(app: NestExpressApplication, env: EnvironmentVariables): void {
  app.set('trust proxy', env.TRUST_PROXY);
  app.disable('x-powered-by');
  // First, so even a body the parsers refuse gets a request id and an access line.
  app.use(accessLog(app.get<Logger>(ROOT_LOGGER), app.get(HttpMetrics), app.get(ShutdownState)));
  // Event batches are read first with their own limit; the general parser then skips them.
  // Both JSON parsers check the nesting depth on the raw bytes first (see json-depth.ts); Nest's
  // useBodyParser does not pass `verify` on, so Express's own parser is mounted the same way.
  app.use(
    json({
      limit: EVENT_BATCH_BODY_LIMIT,
      verify: verifyJsonDepth,
      type: (req) =>
        EVENT_BATCH_PATH.test(req.url ?? '') && JSON_TYPE.test(String(req.headers['content-type'] ?? '')),
    }),
  );
  app.use(json({ limit: BODY_LIMIT, verify: verifyJsonDepth }));
  app.useBodyParser('urlencoded', { limit: BODY_LIMIT, extended: false });
  // REST routes say `version: '1'` and live under /v1; OAuth, MCP and docs are unversioned.
  app.enableVersioning({ type: VersioningType.URI, prefix: 'v' });
  // DTOs are validated and transformed everywhere; undeclared members are refused.
  app.useGlobalPipes(new AppValidationPipe());
  setupSwagger(app);
}
