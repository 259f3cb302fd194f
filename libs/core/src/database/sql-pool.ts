import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * The pg pool behind the data source. Hot paths send their SQL here as named (prepared)
 * statements: no query runner per call, and PostgreSQL parses and plans each statement once per
 * connection. Behind a transaction pooler the pool's clients send them unnamed, unless the pooler
 * keeps prepared statements (see connection-pooler.ts).
 */
export function sqlPool(dataSource: DataSource): Pool {
  return (dataSource.driver as unknown as { master: Pool }).master;
}
