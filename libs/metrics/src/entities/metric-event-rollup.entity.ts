import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The message rollups: contact messages delivered and opened (dimension `message`, keys
 * `delivered` and `opened`) per funnel, grain, bucket of their send time, kept in step by
 * ingestion in the same transaction (events/message-store.ts). Rows of the dimensions `activity`,
 * `page` and `button` were written by releases before the segment rollups answered every figure;
 * nothing reads them.
 */
@Entity('metric_event_rollups')
export class MetricEventRollup {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @PrimaryColumn({ type: 'varchar', length: 16 })
  dimension: string;

  /** Seconds: 86400, 3600, 900, 60 or 10 (MESSAGE_GRAINS in time/buckets.ts). */
  @PrimaryColumn({ type: 'int' })
  grain: number;

  @PrimaryColumn({ type: 'timestamptz' })
  bucket: Date;

  @PrimaryColumn({ type: 'varchar', length: 200 })
  key: string;

  @Column({ type: 'int', default: 0 })
  events: number;

  /** Page views that reported timeOnPageMs, and their sum. */
  @Column({ type: 'int', default: 0 })
  timed: number;

  @Column({ type: 'bigint', default: 0 })
  totalMs: string;

  /** Latest button label in the bucket and when it was seen. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  label: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  labelAt: Date | null;
}
