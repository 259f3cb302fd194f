import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

// Any constant works; it serialises partition creation between processes.
const PARTITION_LOCK = 7_240_532;

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
