import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A UTC month whose raw events the retention dropped (its partition of metric_events), written in
 * the transaction that drops it. A fact of the database, not of a process's settings: every
 * process refuses events of such a month, and the fold never computes its minutes from raw events
 * that are gone, whatever EVENT_RETENTION_MONTHS it runs with.
 */
@Entity('metric_dropped_event_months')
export class MetricDroppedEventMonth {
  /** The month's first instant (UTC). */
  @PrimaryColumn({ type: 'timestamptz' })
  month: Date;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  droppedAt: Date;
}
