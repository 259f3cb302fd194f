import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  Relation,
  UpdateDateColumn,
} from 'typeorm';
import { MAX_MESSAGE_SUBJECT_LENGTH, MESSAGE_TYPES, type MessageType } from '@app/contacts';
import { Funnel } from '@app/workspaces';
import { MAX_AUTOMATION_NAME_LENGTH, MAX_WEBHOOK_URL_LENGTH } from '../automation-limits';
import { WebhookSubscription } from './webhook-subscription.entity';

export const AUTOMATION_ACTIONS = ['webhook', 'message'] as const;
export type AutomationAction = (typeof AUTOMATION_ACTIONS)[number];

/** A message automation records a message of one of the types a contact's messages have. */
export const MESSAGE_CHANNELS = MESSAGE_TYPES;
export type MessageChannel = MessageType;

/**
 * What a funnel does when a contact changes: on `trigger` (`contact.created`, `status:<status>`
 * or `field:<fieldName>`) POST a signed webhook or record a message to the contact.
 */
@Entity('automations')
// The outbox writer looks up a funnel's enabled automations inside every contact write.
@Index('idx_automations_funnel_enabled', ['funnelId'], { where: 'enabled' })
@Index('idx_automations_subscription', ['subscriptionId'])
export class Automation {
  // Assigned before insert: the encrypted webhook secret is bound to the automation id.
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @ManyToOne(() => Funnel, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'funnel_id' })
  funnel?: Relation<Funnel>;

  @Column({ type: 'uuid' })
  companyId: string;

  @Column({ type: 'varchar', length: MAX_AUTOMATION_NAME_LENGTH })
  name: string;

  @Column({ type: 'varchar', length: 200 })
  trigger: string;

  /**
   * Set when a REST hook subscription made this automation (one per subscribed event); deleting
   * the subscription deletes its automations and their runs.
   */
  @Column({ type: 'uuid', nullable: true })
  subscriptionId: string | null;

  @ManyToOne(() => WebhookSubscription, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'funnel_id', referencedColumnName: 'funnelId' },
    { name: 'subscription_id', referencedColumnName: 'id' },
  ])
  subscription?: Relation<WebhookSubscription>;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ type: 'varchar', length: 16 })
  action: AutomationAction;

  @Column({ type: 'varchar', length: MAX_WEBHOOK_URL_LENGTH, nullable: true })
  webhookUrl: string | null;

  /** AES-256-GCM ciphertext (see webhook-secret.cipher.ts); never the plain secret. */
  @Column({ type: 'text', nullable: true })
  webhookSecretEncrypted: string | null;

  @Column({ type: 'varchar', length: 16, nullable: true })
  messageChannel: MessageChannel | null;

  @Column({ type: 'varchar', length: MAX_MESSAGE_SUBJECT_LENGTH, nullable: true })
  messageSubject: string | null;

  @Column({ type: 'text', nullable: true })
  messageTemplate: string | null;

  /** Email: an open pixel and links through the service record opens and clicks (off: plain links). */
  @Column({ type: 'boolean', default: true })
  trackEngagement: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
