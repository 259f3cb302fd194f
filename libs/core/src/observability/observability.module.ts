import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import { MetricsServer } from './metrics-server';

export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/**
 * What a serving process adds to the core: Nest's logs through the root pino logger, stamped
 * with the request's id inside a request, and the metrics port. The CLI goes without.
 */
@Module({})
export class ObservabilityModule {
  static forRoot(logger: Logger): DynamicModule {
    return {
      module: ObservabilityModule,
      imports: [
        // `useExisting`: the access-log middleware, mounted before the body parsers, made `req.log`.
        LoggerModule.forRoot({ useExisting: true, pinoHttp: { logger } }),
      ],
      providers: [{ provide: ROOT_LOGGER, useValue: logger }, MetricsServer],
      exports: [ROOT_LOGGER],
    };
  }
}
