import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  Relation,
} from 'typeorm';
import { Contact } from './contact.entity';

export const MESSAGE_TYPES = ['email', 'sms'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];
export const MAX_MESSAGE_SUBJECT_LENGTH = 500;
/**
 * What the service observed of a message: `recorded` (not sent through any channel), `sent` (handed
 * to a gateway, no report yet), `delivered` (the SMTP server accepted it, or the gateway reported it
 * delivered), `opened` (first open seen) or `failed` (the gateway reported it undelivered).
 */
export const MESSAGE_STATUSES = ['recorded', 'sent', 'delivered', 'opened', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
export const MAX_MESSAGE_FAILURE_LENGTH = 500;

/** A message sent to a contact (by an automation); listed in the contact's `messages`. */
@Entity('contact_messages')
@Index('idx_contact_messages_contact', ['contactId', 'createdAt'])
@Index('idx_contact_messages_funnel_sent', ['funnelId', 'createdAt'])
export class ContactMessage {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  contactId: string;

  @ManyToOne(() => Contact, (contact) => contact.messages, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'funnel_id', referencedColumnName: 'funnelId' },
    { name: 'contact_id', referencedColumnName: 'id' },
  ])
  contact?: Relation<Contact>;

  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  /** Internal name of the message (e.g. the automation that sent it). */
  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 16 })
  type: MessageType;

  @Column({ type: 'varchar', length: MAX_MESSAGE_SUBJECT_LENGTH, nullable: true })
  subject: string | null;

  @Column({ type: 'text' })
  content: string;

  /** When the message was sent. */
  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'varchar', length: 16, default: 'recorded' })
  status: MessageStatus;

  /** When a channel took the message (null when it was only recorded). */
  @Column({ type: 'timestamptz', nullable: true })
  sentAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  deliveredAt: Date | null;

  /** The first open (the open pixel or a tracked click). */
  @Column({ type: 'timestamptz', nullable: true })
  openedAt: Date | null;

  /** The first click on a tracked link. */
  @Column({ type: 'timestamptz', nullable: true })
  clickedAt: Date | null;

  @Column({ type: 'integer', default: 0 })
  clicks: number;

  /** Why the channel reported the message undelivered. */
  @Column({ type: 'varchar', length: MAX_MESSAGE_FAILURE_LENGTH, nullable: true })
  failure: string | null;
}
