import { Logger } from '@nestjs/common';
import type { EventEmitter } from 'node:events';
import type { DataSource } from 'typeorm';

const logger = new Logger('Database');

/**
 * When PostgreSQL ends a session (shutdown, failover), node-postgres emits `error` on the client;
 * a client between owners at that moment has no listener, and an unhandled `error` event ends the
 * process. Every client the pool hands out gets a listener that only logs: the query in flight
 * still fails (and its request answers 503), and the pool drops the broken client.
 */
export function guardPoolClients(dataSource: DataSource): void {
  const pool = (dataSource.driver as unknown as { master?: EventEmitter }).master;
  if (!pool) return;
  const guarded = new WeakSet<EventEmitter>();
  pool.on('acquire', (client: EventEmitter) => {
    if (guarded.has(client)) return;
    guarded.add(client);
    client.on('error', (error: { code?: string }) =>
      logger.warn(`a database connection ended (${error.code ?? 'no code'}); the pool replaces it`),
    );
  });
}
