import { Column, Entity, PrimaryColumn } from 'typeorm';
import { SessionSegmentColumns } from './session-segment-columns';

/**
 * What the sessions and events of one segment (a combination of the filter attributes, as
 * segmentKey() writes it) counted in one bucket, packed in one row: every filtered or broken-down
 * figure reads these, from the session totals to pages viewed, answers, page views, time on page
 * and clicks. Filled after ingestion by SegmentFolder from the raw sessions and events, never by
 * ingestion itself (docs/ARCHITECTURE.md).
 */
@Entity('metric_segment_rollups')
export class MetricSegmentRollup extends SessionSegmentColumns {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  /** Seconds: a day, an hour, a quarter hour, five minutes or a minute (SEGMENT_GRAINS). */
  @PrimaryColumn({ type: 'integer' })
  grain: number;

  @PrimaryColumn({ type: 'timestamptz' })
  bucket: Date;

  /** segmentKey() of the filter attributes (SessionSegmentColumns); the events of sessions not started count under all unset. */
  @PrimaryColumn({ type: 'varchar', length: 1000 })
  segment: string;

  /** Sessions of the segment started in the bucket. */
  @Column({ type: 'int' })
  started: number;

  /** Of those, the converted ones. */
  @Column({ type: 'int' })
  conversions: number;

  /** Of those, the completed ones. */
  @Column({ type: 'int' })
  completions: number;

  /** Sum of their session_start → first completion, for the mean time to completion. */
  @Column({ type: 'bigint' })
  completionMs: string;

  /** Sessions started in the bucket per session dimension and key: {"page": {"start": 12}, …}. */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  sessions: Record<string, Record<string, number>>;

  /**
   * Events in the bucket per event dimension and key: [events, timed, total ms, latest label,
   * its epoch ms] (the last two null when no label).
   */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  events: Record<string, Record<string, [number, number, number, string | null, number | null]>>;
}
