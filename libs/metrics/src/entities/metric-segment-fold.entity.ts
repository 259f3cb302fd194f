import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * How far a funnel's segment rollups are folded. Ingestion records what it writes at or before
 * `sealedTo` in metric_segment_changes; the folder folds up to `sealedTo` and then moves
 * `foldedTo`. Reads take the rollups of whole minutes before `foldedTo` that no change names, and
 * raw rows for the rest. Null: nothing folded yet (every read is raw).
 */
@Entity('metric_segment_folds')
export class MetricSegmentFold {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @Column({ type: 'timestamptz', nullable: true })
  sealedTo: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  foldedTo: Date | null;
}
