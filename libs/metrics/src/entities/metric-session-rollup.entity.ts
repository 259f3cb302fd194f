import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Counters of sessions attributed to their start, per funnel, dimension (all, device, source,
 * page, page:<variant>, answer:<question>, answer-group:<question>), grain, bucket start and key.
 * Kept in step with ingestion, in the same transaction; nothing else writes it. A segment's
 * totals are columns of the segment rollups instead (inSessionRollups).
 */
@Entity('metric_session_rollups')
export class MetricSessionRollup {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @PrimaryColumn({ type: 'varchar', length: 40 })
  dimension: string;

  /**
   * Seconds: 86400, 3600, 900 or 60 (SESSION_GRAINS in time/buckets.ts).
   */
  @PrimaryColumn({ type: 'int' })
  grain: number;

  @PrimaryColumn({ type: 'timestamptz' })
  bucket: Date;

  /**
   * Device, utm source, page slug, answer or grouped answers ('' for dimension all); in an
   * earlier release's `segment` rows, a segment's filter attributes (segmentKey(): at most 631
   * characters).
   */
  @PrimaryColumn({ type: 'varchar', length: 1000 })
  key: string;

  @Column({ type: 'int', default: 0 })
  sessions: number;

  @Column({ type: 'int', default: 0 })
  conversions: number;

  @Column({ type: 'int', default: 0 })
  completions: number;

  /** Sum of session_start → first completion, for the mean time to completion. */
  @Column({ type: 'bigint', default: 0 })
  completionMs: string;
}
