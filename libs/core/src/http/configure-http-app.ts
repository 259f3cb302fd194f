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
import { largerBodyGate } from './larger-body-gate';
import { setupSwagger } from './swagger';
import { AppValidationPipe } from './validation.pipe';

const BODY_LIMIT_BYTES = 100 * 1024;
export const BODY_LIMIT = `${BODY_LIMIT_BYTES / 1024}kb`;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** A route whose JSON body may be larger than BODY_LIMIT; the domain that serves it declares it. */
export interface LargerBodyRoute {
  /** Matches the request URL (path and query). */
  path: RegExp;
  limit: string;
  /** At most this many requests with a body over BODY_LIMIT at once per process; more get 503. */
  maxInFlight: number;
}

/**
 * Everything the HTTP app needs beyond its modules; shared by main.ts and the e2e suites.
 * `largerBodies`: the routes allowed a body over BODY_LIMIT (core knows no domain's routes).
 */
export function configureHttpApp(
  app: NestExpressApplication,
  env: EnvironmentVariables,
  largerBodies: LargerBodyRoute[] = [],
): void {
  app.set('trust proxy', env.TRUST_PROXY);
  app.disable('x-powered-by');
  // First, so even a body the parsers refuse gets a request id and an access line.
  app.use(accessLog(app.get<Logger>(ROOT_LOGGER), app.get(HttpMetrics), app.get(ShutdownState)));
  // A larger-body route is read first with its own limit; the general parser then skips it.
  // Every JSON parser checks the nesting depth on the raw bytes first (see json-depth.ts); Nest's
  // useBodyParser does not pass `verify` on, so Express's own parser is mounted the same way.
  for (const route of largerBodies) {
    app.use(largerBodyGate(route.path, route.maxInFlight, BODY_LIMIT_BYTES));
    app.use(
      json({
        limit: route.limit,
        verify: verifyJsonDepth,
        type: (req) =>
          route.path.test(req.url ?? '') && JSON_TYPE.test(String(req.headers['content-type'] ?? '')),
      }),
    );
  }
  app.use(json({ limit: BODY_LIMIT, verify: verifyJsonDepth }));
  app.useBodyParser('urlencoded', { limit: BODY_LIMIT, extended: false });
  // REST routes say `version: '1'` and live under /v1; OAuth, MCP and docs are unversioned.
  app.enableVersioning({ type: VersioningType.URI, prefix: 'v' });
  // DTOs are validated and transformed everywhere; undeclared members are refused.
  app.useGlobalPipes(new AppValidationPipe());
  setupSwagger(app);
}
