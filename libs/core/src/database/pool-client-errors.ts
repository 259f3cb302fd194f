import { Logger } from '@nestjs/common';
import type { EventEmitter } from 'node:events';
import type { DataSource } from 'typeorm';
import { QUERY_READ_TIMEOUT } from './database-outage';

const logger = new Logger('Database');

/** A pooled node-postgres client, as far as this file uses it. */
interface PoolClient extends EventEmitter {
  query(...args: unknown[]): unknown;
  connection?: { stream?: { destroy(): void } };
}

/**
 * When PostgreSQL ends a session (shutdown, failover), node-postgres emits `error` on the client;
 * a client between owners at that moment has no listener, and an unhandled `error` event ends the
 * process. Every client the pool hands out gets a listener that only logs: the query in flight
 * still fails (and its request answers 503), and the pool drops the broken client.
 *
 * A query the server does not answer within the client-side bound (query_timeout: the server
 * stopped, frozen or unreachable) fails with `Query read timeout`, but node-postgres keeps waiting
 * for its answer on that connection, so the next statement (a transaction's ROLLBACK) would wait
 * out the same bound behind it: a request answered 503 after twice the bound. The connection is
 * closed instead, which fails what is queued on it at once and rolls its transaction back on the
 * server; the pool replaces it.
 */
export function guardPoolClients(dataSource: DataSource): void {
  const pool = (dataSource.driver as unknown as { master?: EventEmitter }).master;
  if (!pool) return;
  const guarded = new WeakSet<EventEmitter>();
  pool.on('acquire', (client: PoolClient) => {
    if (guarded.has(client)) return;
    guarded.add(client);
    client.on('error', (error: { code?: string }) =>
      logger.warn(`a database connection ended (${error.code ?? 'no code'}); the pool replaces it`),
    );
    const query = client.query;
    client.query = function (this: PoolClient, ...args: unknown[]) {
      const result = query.apply(this, args);
      if (result instanceof Promise)
        result.catch((error: { message?: string }) => {
          if (error?.message === QUERY_READ_TIMEOUT) client.connection?.stream?.destroy();
        });
      return result;
    };
  });
}
