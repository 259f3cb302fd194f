import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DataSourceOptions, MigrationInterface } from 'typeorm';
import {
  DatabasePooling,
  DIRECT_CONNECTIONS,
  pooledClientOptions,
  serverSettings,
} from './connection-pooler';
import { SerialQueryClient } from './serial-query-client';
import { SnakeNamingStrategy } from './snake-naming.strategy';

export type MigrationClass = new () => MigrationInterface;

/**
 * What a database holds: the entities each domain declares and the migrations that build their
 * tables. The app composes it (core knows no domain).
 */
export interface DatabaseSchema {
  entities: Function[];
  migrations: MigrationClass[];
}

/** Every migration class in `dir`, oldest first (file names start with a timestamp). */
export function loadMigrations(dir: string): MigrationClass[] {
  return readdirSync(dir)
    .filter((file) => /^\d+-.*\.(ts|js)$/.test(file) && !file.endsWith('.d.ts'))
    .sort()
    .flatMap((file) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const module = require(join(dir, file)) as Record<string, unknown>;
      return Object.values(module).filter((value): value is MigrationClass => typeof value === 'function');
    });
}

/** How long a request may wait on the database before it is answered 503 (the HTTP app's pool). */
export interface DatabaseTimeouts {
  DATABASE_STATEMENT_TIMEOUT_MS: number;
  DATABASE_POOL_TIMEOUT_MS: number;
}

/** node-postgres pool settings bounding every wait: acquiring a connection, and each statement. */
export function boundedPool(
  timeouts: DatabaseTimeouts,
  pooling: DatabasePooling = DIRECT_CONNECTIONS,
  max = 10,
): Record<string, unknown> {
  return {
    max,
    connectionTimeoutMillis: timeouts.DATABASE_POOL_TIMEOUT_MS,
    // The server's settings as startup parameters; the client-side bound covers a server that
    // stopped answering. A transaction pooler refuses startup parameters: there the role sets them.
    ...(pooling.DATABASE_POOL_MODE !== 'transaction' && {
      options: Object.entries(serverSettings(timeouts.DATABASE_STATEMENT_TIMEOUT_MS))
        .map(([name, value]) => `-c ${name}=${value}`)
        .join(' '),
    }),
    query_timeout: timeouts.DATABASE_STATEMENT_TIMEOUT_MS + 1_000,
    ...pooledClientOptions(pooling),
  };
}

export function dataSourceOptions(
  url: string,
  schema: DatabaseSchema,
  overrides: Partial<DataSourceOptions> = {},
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: schema.entities,
    migrations: schema.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    namingStrategy: new SnakeNamingStrategy(),
    // gen_random_uuid() is built into PostgreSQL 13+, so no extension has to be installed.
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    synchronize: false,
    applicationName: 'funnel-crm',
    // The tools' data sources (schema checks, the TypeORM CLI); the app and migrations set their own.
    extra: { max: 10, Client: SerialQueryClient },
    ...overrides,
  } as DataSourceOptions;
}
