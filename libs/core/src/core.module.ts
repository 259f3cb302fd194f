import { DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { validateEnv } from './config/env.validation';
import { ChangeNotifications } from './database/change-notifications';
import {
  checkServerSettings,
  DATABASE_POOLING,
  DatabasePooling,
  DIRECT_CONNECTIONS,
  pooledClientOptions,
} from './database/connection-pooler';
import {
  boundedPool,
  DatabaseSchema,
  dataSourceOptions,
  DatabaseTimeouts,
} from './database/data-source-options';
import { guardPoolClients } from './database/pool-client-errors';
import { LongWork } from './database/long-work';
import { ReadPool } from './database/read-pool';
import { AllExceptionsFilter } from './errors/all-exceptions.filter';
import { AppMetrics } from './observability/app-metrics';
import { DatabasePoolMetrics } from './observability/database-pool.metrics';
import { HttpMetrics } from './observability/http-metrics';
import { ShutdownState } from './observability/shutdown-state';
import { MonotonicClock } from './jobs/monotonic-clock';

export interface CoreModuleOptions {
  /**
   * Connection string resolved before boot (DATABASE_URL or the embedded PostgreSQL); undefined
   * when the caller sets it and initialises the DataSource itself (the admin CLI, which opens the
   * database only for a command that runs).
   */
  databaseUrl: string | undefined;
  /** Bounds on every database wait (the HTTP app); without them the pool waits as long as it takes. */
  timeouts?: DatabaseTimeouts;
  /** Straight to PostgreSQL (the default) or through a transaction pooler. */
  pooling?: DatabasePooling;
}

/** Configuration, database, metrics registry and the global error filter shared by every app. */
@Global()
@Module({})
export class CoreModule {
  /** `schema`: the entities and migrations of the app's domains, which the app composes. */
  static forRoot(options: CoreModuleOptions, schema: DatabaseSchema): DynamicModule {
    const pooling: DatabasePooling = {
      DATABASE_POOL_MODE: options.pooling?.DATABASE_POOL_MODE ?? DIRECT_CONNECTIONS.DATABASE_POOL_MODE,
      DATABASE_DIRECT_URL: options.pooling?.DATABASE_DIRECT_URL,
      DATABASE_POOLER_PREPARED_STATEMENTS: options.pooling?.DATABASE_POOLER_PREPARED_STATEMENTS ?? false,
    };
    return {
      module: CoreModule,
      imports: [
        // The environment is the only source; main.ts validates the same variables before boot.
        ConfigModule.forRoot({ isGlobal: true, cache: true, ignoreEnvFile: true, validate: validateEnv }),
        TypeOrmModule.forRoot({
          ...dataSourceOptions(options.databaseUrl ?? '', schema, {
            extra: options.timeouts
              ? boundedPool(options.timeouts, pooling)
              : { max: 10, ...pooledClientOptions(pooling) },
          }),
          manualInitialization: options.databaseUrl === undefined,
        }),
      ],
      providers: [
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: 'DATABASE_CLIENT_ERRORS', inject: [DataSource], useFactory: guardPoolClients },
        { provide: DATABASE_POOLING, useValue: pooling },
        {
          provide: 'DATABASE_SERVER_SETTINGS_CHECK',
          inject: [DataSource],
          useFactory: (dataSource: DataSource) =>
            options.timeouts &&
            checkServerSettings(dataSource, pooling, options.timeouts.DATABASE_STATEMENT_TIMEOUT_MS),
        },
        AppMetrics,
        HttpMetrics,
        DatabasePoolMetrics,
        ShutdownState,
        ChangeNotifications,
        ReadPool,
        MonotonicClock,
        LongWork,
      ],
      exports: [
        ConfigModule,
        TypeOrmModule,
        DATABASE_POOLING,
        AppMetrics,
        HttpMetrics,
        ShutdownState,
        ChangeNotifications,
        ReadPool,
        MonotonicClock,
        LongWork,
      ],
    };
  }
}
