import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A funnel's step keys (`page:welcome`, `click:buy`, `answer:question_1`, `conversion`), numbered for its step marks. */
@Entity('metric_step_keys')
@Index('uq_metric_step_keys_id', ['funnelId', 'id'], { unique: true })
export class MetricStepKey {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @PrimaryColumn({ type: 'varchar', length: 210 })
  key: string;

  /** 1, 2, … in the order the funnel's events first named the keys. */
  @Column({ type: 'integer' })
  id: number;
}
