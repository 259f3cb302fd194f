import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A change ingestion made to what is sealed for folding: a minute whose events or started
 * sessions changed, or a session whose segment changed (all the minutes of its step marks).
 * The folder folds those minutes again and deletes the rows it read; reads take those minutes raw
 * until then.
 */
@Entity('metric_segment_changes')
export class MetricSegmentChange {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @PrimaryColumn({ type: 'bigint', generated: 'increment' })
  seq: string;

  @Column({ type: 'timestamptz', nullable: true })
  minute: Date | null;

  @Column({ type: 'varchar', length: 128, nullable: true })
  sessionId: string | null;
}
