import { DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { validateEnv } from './config/env.validation';
import { ChangeNotifications } from './database/change-notifications';
import {
  boundedPool,
  DatabaseSchema,
  dataSourceOptions,
  DatabaseTimeouts,
} from './database/data-source-options';
import { guardPoolClients } from './database/pool-client-errors';
import { ReadPool } from './database/read-pool';
import { AllExceptionsFilter } from './errors/all-exceptions.filter';
import { AppMetrics } from './observability/app-metrics';
import { DatabasePoolMetrics } from './observability/database-pool.metrics';
import { HttpMetrics } from './observability/http-metrics';
import { ShutdownState } from './observability/shutdown-state';

export interface CoreModuleOptions {
  /**
   * Connection string resolved before boot (DATABASE_URL or the embedded PostgreSQL); undefined
   * when the caller sets it and initialises the DataSource itself (the admin CLI, which opens the
   * database only for a command that runs).
   */
  databaseUrl: string | undefined;
  /** Bounds on every database wait (the HTTP app); without them the pool waits as long as it takes. */
  timeouts?: DatabaseTimeouts;
}

/** Configuration, database, metrics registry and the global error filter shared by every app. */
@Global()
@Module({})
export class CoreModule {
  /** `schema`: the entities and migrations of the app's domains, which the app composes. */
  static forRoot(options: CoreModuleOptions, schema: DatabaseSchema): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        // The environment is the only source; main.ts validates the same variables before boot.
        ConfigModule.forRoot({ isGlobal: true, cache: true, ignoreEnvFile: true, validate: validateEnv }),
        TypeOrmModule.forRoot({
          ...dataSourceOptions(
            options.databaseUrl ?? '',
            schema,
            options.timeouts ? { extra: boundedPool(options.timeouts) } : {},
          ),
          manualInitialization: options.databaseUrl === undefined,
        }),
      ],
      providers: [
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: 'DATABASE_CLIENT_ERRORS', inject: [DataSource], useFactory: guardPoolClients },
        AppMetrics,
        HttpMetrics,
        DatabasePoolMetrics,
        ShutdownState,
        ChangeNotifications,
        ReadPool,
      ],
      exports: [
        ConfigModule,
        TypeOrmModule,
        AppMetrics,
        HttpMetrics,
        ShutdownState,
        ChangeNotifications,
        ReadPool,
      ],
    };
  }
}
