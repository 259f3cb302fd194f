import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { Pool, type PoolClient } from 'pg';
import { Gauge } from 'prom-client';
import { DataSource, type DataSourceOptions, type EntityManager } from 'typeorm';
import type { EnvironmentVariables } from '../config/env.validation';
import { AppMetrics } from '../observability/app-metrics';
import { DATABASE_POOLING, DatabasePooling } from './connection-pooler';
import { isDatabaseUnavailable } from './database-outage';
import { boundedPool, DatabaseTimeouts } from './data-source-options';
import { guardPoolClients } from './pool-client-errors';
import { ReadPool } from './read-pool';
import { TenantBudget } from './tenant-budget';

/** How long-work connections name themselves in pg_stat_activity. */
export const LONG_WORK_APPLICATION_NAME = 'funnel-crm-long-work';

/** A connection of long work, held by one company until `release` (called once, however it ends). */
export interface LongWorkSession {
  client: PoolClient;
  /** Gives the connection back (`broken`: closes it) and the company's place with it. */
  release(broken?: boolean): void;
}

/**
 * Long-running work (exports, searches, property-definition changes, large event batches) runs on
 * connections of its own, never the pool interactive requests take theirs from: however much of it
 * one company starts, other companies' lists and single reads still find a connection. Each
 * company holds at most DATABASE_LONG_WORK_PER_COMPANY of the DATABASE_LONG_WORK_CONNECTIONS places
 * at once; past that, or when every place is taken, the request is a 429 with Retry-After
 * (LongWorkBusyError). Its statements are bounded by DATABASE_LONG_WORK_STATEMENT_TIMEOUT_MS.
 * Reads go to the replica when ReadPool would send them there (docs/SCALING.md).
 */
@Injectable()
export class LongWork implements OnModuleDestroy {
  private readonly logger = new Logger('LongWork');
  private readonly budget: TenantBudget;
  private readonly poolOptions: Record<string, unknown>;
  private readonly replica?: Pool;
  private primary?: Promise<DataSource>;

  constructor(
    config: ConfigService<EnvironmentVariables, true>,
    @InjectDataSource() private readonly main: DataSource,
    private readonly reads: ReadPool,
    @Inject(DATABASE_POOLING) pooling: DatabasePooling,
    metrics: AppMetrics,
  ) {
    const connections = config.get('DATABASE_LONG_WORK_CONNECTIONS', { infer: true });
    this.budget = new TenantBudget(
      config.get('DATABASE_LONG_WORK_PER_COMPANY', { infer: true }),
      connections,
    );
    const timeouts: DatabaseTimeouts = {
      DATABASE_STATEMENT_TIMEOUT_MS: config.get('DATABASE_LONG_WORK_STATEMENT_TIMEOUT_MS', { infer: true }),
      DATABASE_POOL_TIMEOUT_MS: config.get('DATABASE_POOL_TIMEOUT_MS', { infer: true }),
    };
    this.poolOptions = boundedPool(timeouts, pooling, connections);
    const readUrl = config.get('DATABASE_READ_URL', { infer: true });
    if (readUrl) {
      this.replica = new Pool({
        connectionString: readUrl,
        application_name: LONG_WORK_APPLICATION_NAME,
        ...this.poolOptions,
      });
      this.replica.on('error', (error: Error & { code?: string }) =>
        this.logger.warn(`a replica connection ended (${error.code ?? 'no code'})`),
      );
    }
    const budget = this.budget;
    new Gauge({
      name: 'db_long_work_in_use',
      help: 'Places of long work (exports, searches, property changes, large event batches) in use',
      registers: [metrics.registry],
      collect() {
        this.set(budget.inUse);
      },
    });
  }

  async onModuleDestroy(): Promise<void> {
    const primary = await this.primary?.catch(() => undefined);
    await primary?.destroy().catch(() => undefined);
    await this.replica?.end().catch(() => undefined);
  }

  /**
   * A connection for a read of several statements (an export's snapshot), from the server the
   * company's next read would go to; the caller releases it.
   */
  async session(companyId: string): Promise<LongWorkSession> {
    const giveBack = this.budget.take(companyId);
    try {
      const client = await this.connect();
      let released = false;
      return {
        client,
        release: (broken) => {
          if (released) return;
          released = true;
          client.release(broken);
          giveBack();
        },
      };
    } catch (error) {
      giveBack();
      throw error;
    }
  }

  /** A read (a search's count and page) on one long-work connection, released when `work` ends. */
  async read<T>(companyId: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
    const session = await this.session(companyId);
    try {
      return await work(session.client);
    } catch (error) {
      session.release(isDatabaseUnavailable(error));
      throw error;
    } finally {
      session.release();
    }
  }

  /** A transaction on the primary (a property-definition change, a large batch), as DataSource.transaction. */
  async transaction<T>(companyId: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const giveBack = this.budget.take(companyId);
    try {
      return await (await this.primaryDataSource()).transaction(work);
    } finally {
      giveBack();
    }
  }

  private async connect(): Promise<PoolClient> {
    if (this.replica && this.reads.server() === 'replica') {
      try {
        const client = await this.replica.connect();
        this.reads.counted('replica');
        return client;
      } catch (error) {
        if (!isDatabaseUnavailable(error)) throw error;
        this.reads.replicaFailed(error);
      }
    }
    const pool = (await this.primaryDataSource()).driver as unknown as { master: Pool };
    const client = await pool.master.connect();
    this.reads.counted('primary');
    return client;
  }

  /**
   * The data source of long work on the primary: the app's entities over a pool of its own, opened
   * at its first use (the admin CLI never needs it) and again after a failed opening.
   */
  private primaryDataSource(): Promise<DataSource> {
    this.primary ??= (async () => {
      const dataSource = new DataSource({
        ...this.main.options,
        applicationName: LONG_WORK_APPLICATION_NAME,
        extra: this.poolOptions,
      } as DataSourceOptions);
      await dataSource.initialize();
      guardPoolClients(dataSource);
      return dataSource;
    })().catch((error: unknown) => {
      this.primary = undefined;
      throw error;
    });
    return this.primary;
  }
}
