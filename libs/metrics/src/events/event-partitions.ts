import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ValidationError } from '@app/core';

// Any constant works; it serialises partition creation, and the retention's drops, between processes.
export const PARTITION_LOCK = 7_240_532;

/** `metric_events_pYYYY_MM` holds the events of that UTC month. */
export function monthPartition(ms: number): { name: string; from: string; to: string } {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth();
  return {
    name: `metric_events_p${year}_${String(month + 1).padStart(2, '0')}`,
    from: new Date(Date.UTC(year, month, 1)).toISOString(),
    to: new Date(Date.UTC(year, month + 1, 1)).toISOString(),
  };
}

/** The first instant (epoch ms, UTC) of the month that holds `ms`. */
export const monthStart = (ms: number): number => Date.parse(monthPartition(ms).from);

/** Which of the given months (epoch ms of their start) the retention dropped (metric_dropped_event_months). */
export async function droppedMonths(
  query: EntityManager | DataSource,
  months: number[],
): Promise<Set<number>> {
  if (!months.length) return new Set();
  const rows: { month: Date }[] = await query.query(
    `SELECT month FROM metric_dropped_event_months WHERE month = ANY($1::timestamptz[])`,
    [months.map((m) => new Date(m).toISOString())],
  );
  return new Set(rows.map((r) => r.month.getTime()));
}

/** The refusal of events of months whose raw events were dropped, one line per event. */
export function droppedMonthError(problems: string[]): ValidationError {
  return new ValidationError('Events of a month whose raw events were dropped are refused', problems);
}

/**
 * Creates the monthly partitions of metric_events on demand. Creation runs in its own short
 * transaction (it locks the parent table), so ingestion transactions never hold that lock.
 */
@Injectable()
export class EventPartitions {
  private readonly known = new Set<string>();

  constructor(private readonly dataSource: DataSource) {}

  async ensure(times: number[]): Promise<void> {
    const missing = new Map<string, ReturnType<typeof monthPartition>>();
    // Events of a batch mostly share a day: look at each day once.
    const days = new Set(times.map((ms) => Math.floor(ms / 86_400_000)));
    for (const day of days) {
      const partition = monthPartition(day * 86_400_000);
      if (!this.known.has(partition.name)) missing.set(partition.name, partition);
    }
    for (const partition of missing.values()) {
      await this.dataSource.transaction(async (manager) => {
        await manager.query('SELECT pg_advisory_xact_lock($1)', [PARTITION_LOCK]);
        // Under the lock the retention drops under too: a dropped month is never created again.
        const month = Date.parse(partition.from);
        if ((await droppedMonths(manager, [month])).size)
          throw droppedMonthError([`events of ${partition.from.slice(0, 7)}: its raw events were dropped`]);
        await manager.query(
          `CREATE TABLE IF NOT EXISTS "${partition.name}" PARTITION OF metric_events FOR VALUES FROM ('${partition.from}') TO ('${partition.to}')`,
        );
      });
      this.known.add(partition.name);
    }
  }

  /** Forget what exists (a partition was dropped by an operator): the next batch checks again. */
  reset(): void {
    this.known.clear();
  }
}
