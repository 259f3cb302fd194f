import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A question seen in answer events, with its latest title (insights answer 404 for others). */
@Entity('metric_questions')
export class MetricQuestion {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @PrimaryColumn({ type: 'varchar', length: 20 })
  questionId: string;

  @Column({ type: 'varchar', length: 500 })
  title: string;

  @Column({ type: 'timestamptz' })
  titleAt: Date;
}
