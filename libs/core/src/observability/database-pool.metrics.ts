import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { Gauge } from 'prom-client';
import { DataSource } from 'typeorm';
import { AppMetrics } from './app-metrics';

/** Connections of the database pool in use, idle and waited for, read at each scrape. */
@Injectable()
export class DatabasePoolMetrics {
  constructor(metrics: AppMetrics, @InjectDataSource() dataSource: DataSource) {
    // TypeORM's PostgreSQL driver keeps its pg.Pool as `master`.
    const pool = () => (dataSource.driver as unknown as { master?: Pool }).master;
    new Gauge({
      name: 'db_pool_connections',
      help: 'Database pool connections by state (in_use, idle)',
      labelNames: ['state'],
      registers: [metrics.registry],
      collect() {
        const p = pool();
        this.set({ state: 'in_use' }, p ? p.totalCount - p.idleCount : 0);
        this.set({ state: 'idle' }, p?.idleCount ?? 0);
      },
    });
    new Gauge({
      name: 'db_pool_waiting_requests',
      help: 'Queries waiting for a free database pool connection',
      registers: [metrics.registry],
      collect() {
        this.set(pool()?.waitingCount ?? 0);
      },
    });
  }
}
