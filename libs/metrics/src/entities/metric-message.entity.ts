import { Column, Entity, PrimaryColumn } from 'typeorm';

/** First delivery and first opening reported for a contact message (message_delivered/opened events). */
@Entity('metric_messages')
export class MetricMessage {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @PrimaryColumn({ type: 'uuid' })
  messageId: string;

  @Column({ type: 'timestamptz', nullable: true })
  deliveredAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  openedAt: Date | null;
}
