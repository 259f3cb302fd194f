import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A raw tracking event, kept once: the key holds a hash of the event's content, so a repeated
 * event is ignored. The table is partitioned by month of `occurred_at` (declared in the migration;
 * partitions are created on demand by EventPartitions), so a month's events can be dropped or
 * archived as a whole and time-range reads touch only their months.
 */
@Entity('metric_events')
export class MetricEvent {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @PrimaryColumn({ type: 'timestamptz' })
  occurredAt: Date;

  /** SHA-256 of (type, sessionId, occurredAt, content), as a UUID. */
  @PrimaryColumn({ type: 'uuid' })
  eventId: string;

  @Column({ type: 'varchar', length: 128 })
  sessionId: string;

  @Column({ type: 'varchar', length: 20 })
  type: string;

  /** The type-specific members (pageSlug, buttonId, answers, ...); json, not jsonb: cheaper to write, rarely read. */
  @Column({ type: 'json', default: () => "'{}'" })
  payload: Record<string, unknown>;
}
