import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  Relation,
} from 'typeorm';
import { Funnel } from '@app/workspaces';
import { MAX_WEBHOOK_URL_LENGTH } from '../automation-limits';

/**
 * A REST hook: a target URL an integration subscribed to a funnel's contact events. Delivered
 * through one webhook automation per event (Automation.subscriptionId), so it shares their outbox,
 * signature and retries; the signing secret is stored encrypted on each of them.
 */
@Entity('webhook_subscriptions')
@Index('idx_webhook_subscriptions_funnel', ['funnelId', 'createdAt'])
export class WebhookSubscription {
  // Assigned before insert, like an automation's id.
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @ManyToOne(() => Funnel, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'funnel_id' })
  funnel?: Relation<Funnel>;

  @Column({ type: 'uuid' })
  companyId: string;

  @Column({ type: 'varchar', length: MAX_WEBHOOK_URL_LENGTH })
  targetUrl: string;

  @Column({ type: 'text', array: true })
  events: string[];

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
