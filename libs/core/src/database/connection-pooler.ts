import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * `session`: every pooled connection is a PostgreSQL session of its own (straight to the server,
 * or a pooler in session mode). `transaction`: a pooler such as PgBouncer in transaction mode
 * hands each transaction whichever server connection is free, so nothing may outlive one.
 */
export const DATABASE_POOL_MODES = ['session', 'transaction'] as const;
export type DatabasePoolMode = (typeof DATABASE_POOL_MODES)[number];

/** How the service reaches PostgreSQL (docs/CONFIGURATION.md). */
export interface DatabasePooling {
  DATABASE_POOL_MODE: DatabasePoolMode;
  /** A connection that keeps its session, past the pooler: LISTEN and the migrations' lock use it. */
  DATABASE_DIRECT_URL?: string;
  /**
   * The transaction pooler keeps named prepared statements across its server connections
   * (PgBouncer 1.21 and later with `max_prepared_statements` above 0, the default from 1.22): the
   * service then names its hot statements as it does on a direct connection, so PostgreSQL parses
   * and plans them once per server connection instead of on every run.
   */
  DATABASE_POOLER_PREPARED_STATEMENTS?: boolean;
}

export const DIRECT_CONNECTIONS: DatabasePooling = { DATABASE_POOL_MODE: 'session' };

/** The injection token of the process's DatabasePooling. */
export const DATABASE_POOLING = Symbol('DATABASE_POOLING');

/**
 * A pg client that sends every statement unnamed. node-postgres remembers which named statements
 * it prepared on its connection, but behind a transaction pooler the server connection changes
 * between transactions: the name is then unknown there, or already taken by another client's.
 */
class UnnamedStatementClient extends Client {
  override query(...args: unknown[]): never {
    const [config] = args;
    if (config && typeof config === 'object' && 'name' in config && !('submit' in config)) {
      args[0] = { ...config, name: undefined };
    }
    return (super.query as (...rest: unknown[]) => never)(...args);
  }
}

/** node-postgres pool options the pool mode requires (`extra` of the data source). */
export function pooledClientOptions(pooling: DatabasePooling): { Client?: typeof Client } {
  return pooling.DATABASE_POOL_MODE === 'transaction' && !pooling.DATABASE_POOLER_PREPARED_STATEMENTS
    ? { Client: UnnamedStatementClient }
    : {};
}

/**
 * The URL of a connection that keeps its session (LISTEN, session advisory locks): the direct one,
 * else `url` itself unless it leads to a transaction pooler; undefined when there is none.
 */
export function sessionUrl(pooling: DatabasePooling, url: string): string | undefined {
  return pooling.DATABASE_DIRECT_URL ?? (pooling.DATABASE_POOL_MODE === 'transaction' ? undefined : url);
}

/**
 * Most of the service's requests read a few thousand rows, many at once: a parallel plan's
 * workers cost more to start than they save (about 70 ms of a 100 ms metrics read, measured in
 * docs/BENCHMARKS.md; a step funnel over a million sessions took the same time without them),
 * and they take the cores other requests need. Sent as startup parameters where they are
 * accepted; behind a transaction pooler the role sets them (checkServerSettings).
 */
export const SERVICE_SERVER_SETTINGS = { max_parallel_workers_per_gather: 0 } as const;

/**
 * What the service's pooled connections ask of the server: the statement bound (cancelled by the
 * server, SQLSTATE 57014) and SERVICE_SERVER_SETTINGS. Sent at connect (boundedPool) where the
 * server takes startup parameters, checked at boot (checkServerSettings) where it does not.
 */
export function serverSettings(statementTimeoutMs: number): Record<string, number> {
  return { statement_timeout: statementTimeoutMs, ...SERVICE_SERVER_SETTINGS };
}

/**
 * A transaction pooler refuses `statement_timeout` and SERVICE_SERVER_SETTINGS as startup
 * parameters, so behind one they are the role's (or database's) settings: says so once at boot
 * for each that is missing, or looser than the configured one. The client-side bound
 * (query_timeout) holds either way.
 */
export async function checkServerSettings(
  dataSource: DataSource,
  pooling: DatabasePooling,
  timeoutMs: number,
): Promise<void> {
  if (pooling.DATABASE_POOL_MODE !== 'transaction' || !dataSource.isInitialized) return;
  const wanted = serverSettings(timeoutMs);
  const rows = (await dataSource.query(
    `SELECT name, setting::int AS value, current_user AS role, current_database() AS db
     FROM pg_settings WHERE name = ANY($1)`,
    [Object.keys(wanted)],
  )) as { name: string; value: number; role: string; db: string }[];
  for (const { name, value, role, db } of rows) {
    const fits = name === 'statement_timeout' ? value > 0 && value <= timeoutMs : value === wanted[name];
    if (fits) continue;
    new Logger('Database').warn(
      `${name} is ${value}${name === 'statement_timeout' ? ' ms' : ''} on the server, not ${wanted[name]}: ` +
        `with DATABASE_POOL_MODE=transaction set it on the role: ` +
        `ALTER ROLE "${role}" IN DATABASE "${db}" SET ${name} = ${wanted[name]}`,
    );
  }
}
