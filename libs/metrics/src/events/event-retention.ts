import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource } from 'typeorm';
import { EnvironmentVariables, ValidationError } from '@app/core';
import { rawEventsNeededFrom } from '../segments/segment-retention';
import {
  droppedMonthError,
  droppedMonths,
  EventPartitions,
  monthStart,
  PARTITION_LOCK,
} from './event-partitions';
import type { TrackedEvent } from './event-types';

// Any constant works; it lets one process at a time drop partitions.
const RETENTION_LOCK = 7_240_533;
const PARTITION_NAME = /^metric_events_p(\d{4})_(\d{2})$/;
/** How often each process looks for expired partitions (the first look is at start). */
const EVENT_RETENTION_INTERVAL_MS = 3_600_000;

/**
 * Raw events are kept EVENT_RETENTION_MONTHS whole months before the current UTC month; older
 * monthly partitions of metric_events are dropped, and each dropped month is recorded in
 * metric_dropped_event_months in the same transaction. Charts, KPIs and insights over those months
 * keep answering from the rollups and sessions, which are never dropped. Events older than the
 * kept months, and events of a recorded month whatever this process's setting, are refused: they
 * could no longer be told apart from events already counted.
 */
@Injectable()
export class EventRetention {
  private readonly logger = new Logger(EventRetention.name);
  readonly months: number | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly partitions: EventPartitions,
    config: ConfigService<EnvironmentVariables, true>,
  ) {
    this.months = config.get('EVENT_RETENTION_MONTHS', { infer: true });
  }

  /** The first instant whose events are kept (the start of a UTC month), or undefined: all are kept. */
  private cutoff(now: number): number | undefined {
    if (this.months === undefined) return undefined;
    const d = new Date(now);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - this.months, 1);
  }

  /**
   * Refuses a batch with an event from before the kept months, or of a month whose raw events
   * were dropped (by any process). The current and the previous UTC month are never dropped (at
   * least one whole month is kept), so only older events cost a look at the recorded months.
   */
  async assertKept(events: TrackedEvent[]): Promise<void> {
    const now = Date.now();
    const cutoff = this.cutoff(now);
    if (cutoff !== undefined) {
      const problems = events.flatMap((e, i) =>
        e.occurredAt < cutoff
          ? [`events[${i}].occurredAt is before ${new Date(cutoff).toISOString()}, the oldest kept month`]
          : [],
      );
      if (problems.length)
        throw new ValidationError(
          `Events are kept ${this.months} months before the current one (EVENT_RETENTION_MONTHS)`,
          problems,
        );
    }
    const d = new Date(now);
    const neverDropped = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1);
    const old = events.filter((e) => e.occurredAt < neverDropped);
    if (!old.length) return;
    const dropped = await droppedMonths(this.dataSource, [
      ...new Set(old.map((e) => monthStart(e.occurredAt))),
    ]);
    const problems = events.flatMap((e, i) =>
      dropped.has(monthStart(e.occurredAt))
        ? [
            `events[${i}].occurredAt is in ${new Date(e.occurredAt).toISOString().slice(0, 7)}, a month whose raw events were dropped`,
          ]
        : [],
    );
    if (problems.length) throw droppedMonthError(problems);
  }

  /**
   * Drops the partitions whose month ended before the cutoff and whose events the segment folds
   * no longer need (a month they have not folded yet stays, with a warning, until they have);
   * records each as dropped; returns their names. One process at a time (a transaction-scoped advisory lock: another that
   * finds it taken skips this round), and each DROP is IF EXISTS, so any number of processes may
   * run it.
   */
  async dropExpired(now = Date.now()): Promise<string[]> {
    const cutoff = this.cutoff(now);
    if (cutoff === undefined) return [];
    const dropped = await this.dataSource.transaction(async (manager) => {
      const [{ locked }]: { locked: boolean }[] = await manager.query(
        'SELECT pg_try_advisory_xact_lock($1) AS locked',
        [RETENTION_LOCK],
      );
      if (!locked) return [];
      // Ingestion waits behind a DROP (it locks the parent table): never for long.
      await manager.query(`SET LOCAL lock_timeout = '5s'`);
      // No partition is created meanwhile (EventPartitions checks the recorded months under it).
      await manager.query('SELECT pg_advisory_xact_lock($1)', [PARTITION_LOCK]);
      const rows: { name: string }[] = await manager.query(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = 'metric_events'::regclass ORDER BY 1`,
      );
      const expired = rows.flatMap(({ name }) => {
        const match = PARTITION_NAME.exec(name);
        const end = match && Date.UTC(Number(match[1]), Number(match[2]), 1);
        return end !== null && end <= cutoff ? [{ name, end }] : [];
      });
      const needed = expired.length ? await rawEventsNeededFrom(manager, cutoff) : null;
      const held = expired.filter(({ end }) => needed !== null && end > needed);
      if (held.length) {
        const from = Number.isFinite(needed) ? new Date(needed as number).toISOString() : 'the oldest month';
        this.logger.warn(
          `kept raw event partitions past the retention until the segment folds have read them ` +
            `(needed from ${from}): ${held.map((p) => p.name).join(', ')}`,
        );
      }
      const dropped = expired.filter((p) => !held.includes(p));
      for (const { name, end } of dropped) {
        await manager.query(`DROP TABLE IF EXISTS "${name}"`);
        await manager.query(
          `INSERT INTO metric_dropped_event_months (month) VALUES ($1) ON CONFLICT (month) DO NOTHING`,
          [new Date(monthStart(end - 1)).toISOString()],
        );
      }
      return dropped;
    });
    if (dropped.length) {
      this.partitions.reset();
      this.logger.log(
        `dropped raw event partitions past the retention: ${dropped.map((p) => p.name).join(', ')}`,
      );
    }
    return dropped.map((p) => p.name);
  }
}

/** Runs the retention in the HTTP app: at start, then every hour (every replica; see dropExpired). */
@Injectable()
export class EventRetentionJob implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EventRetentionJob.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(private readonly retention: EventRetention) {}

  onApplicationBootstrap(): void {
    if (this.retention.months === undefined) return;
    const run = () => {
      this.running ??= this.retention
        .dropExpired()
        .catch((error: Error) => this.logger.warn(`event retention failed: ${error.message}`))
        .finally(() => (this.running = undefined));
    };
    this.timer = setInterval(run, EVENT_RETENTION_INTERVAL_MS);
    this.timer.unref();
    run();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
