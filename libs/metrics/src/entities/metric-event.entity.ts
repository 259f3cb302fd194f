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

  /** Leads the time in the key: reads of one type at the edges of a window visit only that type. */
  @PrimaryColumn({ type: 'varchar', length: 20 })
  type: string;

  @PrimaryColumn({ type: 'timestamptz' })
  occurredAt: Date;

  /** SHA-256 of (type, sessionId, occurredAt, content), as a UUID. */
  @PrimaryColumn({ type: 'uuid' })
  eventId: string;

  @Column({ type: 'varchar', length: 128 })
  sessionId: string;

  /** The type-specific members (pageSlug, buttonId, answers, ...); json, not jsonb: cheaper to write, rarely read. */
  @Column({ type: 'json', default: () => "'{}'" })
  payload: Record<string, unknown>;

  /** The rollup key, copied from the payload: pageSlug of a page view, buttonId of a click. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  key: string | null;

  /** buttonLabel of a click, copied from the payload. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  buttonLabel: string | null;

  /** timeOnPageMs of a page view, copied from the payload. */
  @Column({ type: 'integer', nullable: true })
  timeOnPageMs: number | null;
}
