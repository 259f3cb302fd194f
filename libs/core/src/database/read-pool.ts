import { AsyncLocalStorage } from 'node:async_hooks';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { Pool, type QueryConfig, type QueryResult, type QueryResultRow } from 'pg';
import { Counter, Gauge } from 'prom-client';
import { DataSource } from 'typeorm';
import type { EnvironmentVariables } from '../config/env.validation';
import { AppMetrics } from '../observability/app-metrics';
import { isDatabaseUnavailable } from './database-outage';
import { DATABASE_POOLING, DatabasePooling } from './connection-pooler';
import { boundedPool } from './data-source-options';
import { ProbeConnection } from './probe-connection';
import { parseLsn, ReplicaFreshness } from './replica-freshness';
import { sqlPool } from './sql-pool';

export type ReadServer = 'primary' | 'replica';

// Rows are typed by the caller, as with pg's Pool.query and TypeORM's query.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRow = any;

/** A statement of a snapshot (ReadPool.snapshot): its rows. */
export type SnapshotRows = <R = AnyRow>(text: string, values?: unknown[]) => Promise<R[]>;

/** A replica that cannot be reached is tried again after this long. */
const RETRY_DOWN_MS = 1_000;
/** A recovery conflict cancels a replica's query (SQLSTATE 40001): the primary answers it instead. */
const RECOVERY_CONFLICT = '40001';

/**
 * Where reads go: the streaming replica of DATABASE_READ_URL when it is up, at most
 * DATABASE_READ_MAX_LAG_MS behind the primary, and holds the caller's own last write; otherwise
 * the primary. Every read of the API (lists, single reads, search, export, metrics) asks here;
 * writes, and reads that a write depends on, stay on the primary's pool.
 *
 * Freshness is measured, not assumed: a probe samples the primary's WAL position and the
 * replica's replay position (see ReplicaFreshness). A tenant that wrote through this process at
 * time t reads from the primary until the replica holds every commit made before a moment after t.
 */
@Injectable()
export class ReadPool implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ReadPool');
  private readonly caller = new AsyncLocalStorage<{ tenant: string; writing: boolean }>();
  private readonly replica?: Pool;
  private readonly maxLagMs: number;
  private readonly probeMs: number;
  private readonly freshness = new ReplicaFreshness();
  /** When each tenant's last write through this process ended (ms since the epoch). */
  private readonly writes = new Map<string, number>();
  private downUntil = 0;
  private probe?: NodeJS.Timeout;
  private probes?: { primary: ProbeConnection; replica: ProbeConnection };
  private probing = false;
  private readonly reads: Counter<'server'>;

  constructor(
    config: ConfigService<EnvironmentVariables, true>,
    @InjectDataSource() private readonly dataSource: DataSource,
    metrics: AppMetrics,
    @Inject(DATABASE_POOLING) pooling: DatabasePooling,
  ) {
    const url = config.get('DATABASE_READ_URL', { infer: true });
    this.maxLagMs = config.get('DATABASE_READ_MAX_LAG_MS', { infer: true });
    this.probeMs = Math.max(50, Math.min(250, Math.floor(this.maxLagMs / 4)));
    this.reads = new Counter({
      name: 'db_read_queries_total',
      help: 'Read queries of the API by the server that answered them (primary, replica)',
      labelNames: ['server'],
      registers: [metrics.registry],
    });
    if (!url) return;
    const timeouts = {
      DATABASE_STATEMENT_TIMEOUT_MS: config.get('DATABASE_STATEMENT_TIMEOUT_MS', { infer: true }),
      // A replica that does not answer is skipped quickly: the primary can still serve.
      DATABASE_POOL_TIMEOUT_MS: Math.min(1_000, config.get('DATABASE_POOL_TIMEOUT_MS', { infer: true })),
    };
    this.probes = {
      primary: new ProbeConnection((dataSource.options as { url?: string }).url ?? '', 1_000),
      replica: new ProbeConnection(url, 1_000),
    };
    this.replica = new Pool({
      connectionString: url,
      application_name: 'funnel-crm-read',
      // A replica is reached the way the primary is, statements named or not as the pooler allows.
      ...boundedPool(timeouts, pooling),
    });
    // A session the replica ends (restart, shutdown) must not end the process; the query in flight falls back.
    this.replica.on('error', (error: Error & { code?: string }) =>
      this.logger.warn(`a replica connection ended (${error.code ?? 'no code'})`),
    );
    const freshness = this.freshness;
    const isUp = () => Date.now() >= this.downUntil;
    new Gauge({
      name: 'db_replica_lag_seconds',
      help: 'How far the read replica may be behind the primary (seconds since the newest primary commit it is known to hold)',
      registers: [metrics.registry],
      collect() {
        const lag = freshness.lagMs(Date.now());
        this.set(Number.isFinite(lag) ? lag / 1000 : -1);
      },
    });
    new Gauge({
      name: 'db_replica_up',
      help: 'Whether the read replica answers (1) or is skipped as unreachable (0)',
      registers: [metrics.registry],
      collect() {
        this.set(isUp() ? 1 : 0);
      },
    });
  }

  onApplicationBootstrap(): void {
    if (!this.replica) return;
    this.probe = setInterval(() => void this.sample(), this.probeMs);
    this.probe.unref();
    void this.sample();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.probe);
    await Promise.all([this.probes?.primary.close(), this.probes?.replica.close()]);
    await this.replica?.end().catch(() => undefined);
  }

  /**
   * Runs `work` (and everything it calls) as a request of `tenant` (e.g. a company id). A request
   * that may write reads only from the primary: it may read back what it has just written.
   * Without a replica there is nothing to route, and `work` runs as it is.
   */
  within<T>(tenant: string, writing: boolean, work: () => T): T {
    if (!this.replica) return work();
    return this.caller.run({ tenant, writing }, work);
  }

  /** `tenant` has just written: its reads stay on the primary until the replica holds the write. */
  wrote(tenant: string): void {
    this.writes.set(tenant, Date.now());
  }

  /** The server the next read of the current tenant goes to. */
  server(): ReadServer {
    if (!this.replica || Date.now() < this.downUntil) return 'primary';
    const caller = this.caller.getStore();
    if (this.freshness.lagMs(Date.now()) > this.maxLagMs) return 'primary';
    if (caller?.writing) return 'primary';
    const wroteAt = caller === undefined ? undefined : this.writes.get(caller.tenant);
    if (wroteAt !== undefined && !this.freshness.holds(wroteAt)) return 'primary';
    return 'replica';
  }

  /** A read, with the arguments of pg's `Pool.query`; a replica that fails it hands it to the primary. */
  async query<R extends QueryResultRow = AnyRow>(
    config: string | QueryConfig,
    values?: unknown[],
  ): Promise<QueryResult<R>> {
    if (this.server() === 'replica') {
      try {
        const result = await this.replica!.query<R>(config as QueryConfig, values);
        this.reads.inc({ server: 'replica' });
        return result;
      } catch (error) {
        if (!this.handsOver(error)) throw error;
      }
    }
    const result = await sqlPool(this.dataSource).query<R>(config as QueryConfig, values);
    this.reads.inc({ server: 'primary' });
    return result;
  }

  /**
   * Runs `work` in one REPEATABLE READ, READ ONLY transaction on a connection of the server the
   * next read would go to, so that all its statements see one snapshot (a plan over the folded
   * rollups and the read it plans). A replica that fails it hands the whole of it to the primary.
   */
  async snapshot<T>(work: (rows: SnapshotRows) => Promise<T>): Promise<T> {
    if (this.server() === 'replica') {
      try {
        return await this.inSnapshot(this.replica!, 'replica', work);
      } catch (error) {
        if (!this.handsOver(error)) throw error;
      }
    }
    return this.inSnapshot(sqlPool(this.dataSource), 'primary', work);
  }

  /** `work` in a snapshot on a connection of `pool`, released however it ends. */
  private async inSnapshot<T>(
    pool: Pool,
    server: ReadServer,
    work: (rows: SnapshotRows) => Promise<T>,
  ): Promise<T> {
    const client = await pool.connect();
    let broken = false;
    // A session the server ends between two statements fails the next one, not the process.
    const ended = () => (broken = true);
    client.on('error', ended);
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      const result = await work(async (text, values) => {
        const { rows } = await client.query(text, values);
        this.reads.inc({ server });
        return rows;
      });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // A lost connection, or one whose statement is in doubt, is closed; any other rolled back.
      broken ||= isDatabaseUnavailable(error);
      if (!broken) await client.query('ROLLBACK').catch(() => (broken = true));
      throw error;
    } finally {
      client.off('error', ended);
      client.release(broken);
    }
  }

  /**
   * Whether the primary answers what the replica failed: the replica was lost (it is skipped for a
   * while) or cancelled it in a recovery conflict. Any other error, a statement timeout included,
   * is the caller's.
   */
  private handsOver(error: unknown): boolean {
    const code = (error as { code?: string }).code;
    const lost = isDatabaseUnavailable(error) && code !== '57014';
    if (lost) this.replicaFailed(error);
    return lost || code === RECOVERY_CONFLICT;
  }

  /** The rows of a read (for callers that used `DataSource.query`). */
  async rows<R extends QueryResultRow = AnyRow>(text: string, values?: unknown[]): Promise<R[]> {
    return (await this.query<R>(text, values)).rows;
  }

  /** Counts a read another pool of the service served (db_read_queries_total). */
  counted(server: ReadServer): void {
    this.reads.inc({ server });
  }

  /** The replica failed a read or a connection: reads go to the primary for a while. */
  replicaFailed(error: unknown): void {
    if (Date.now() >= this.downUntil) {
      this.logger.warn(`read replica unavailable (${(error as Error).message}); reads go to the primary`);
    }
    this.downUntil = Date.now() + RETRY_DOWN_MS;
  }

  /** One probe: the primary's WAL position, then how far the replica has replayed. */
  private async sample(): Promise<void> {
    if (this.probing || !this.probes) return;
    this.probing = true;
    try {
      const at = Date.now();
      const [primary] = await this.probes.primary.query<{ lsn: string }>(
        'SELECT pg_current_wal_lsn()::text AS lsn',
      );
      this.freshness.primaryAt(at, parseLsn(primary.lsn));
      const replica = await this.probes.replica
        .query<{ lsn: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS lsn')
        .catch((error: unknown) => {
          this.replicaFailed(error);
          return undefined;
        });
      if (!replica) return;
      const replayed = replica[0].lsn;
      // A server that is not in recovery (a promoted or unrelated one) is never read from.
      if (replayed === null) return this.replicaFailed(new Error('DATABASE_READ_URL is not a standby'));
      this.downUntil = 0;
      this.freshness.replayedUpTo(parseLsn(replayed));
      this.forgetHeldWrites();
    } catch {
      // The primary did not answer: freshness is not advanced, so the replica ages past its bound.
    } finally {
      this.probing = false;
    }
  }

  private forgetHeldWrites(): void {
    for (const [tenant, at] of this.writes) if (this.freshness.holds(at)) this.writes.delete(tenant);
  }
}
