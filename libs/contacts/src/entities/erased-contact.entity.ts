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
import { Funnel } from '@app/workspaces';

/**
 * What an erased contact leaves for the metrics: that a contact of the funnel converted then, and
 * nothing that leads back to it (a new id, no contact id, no personal data). The contact counts of
 * charts and KPIs read these beside the contacts.
 */
@Entity('erased_contacts')
@Index('idx_erased_contacts_converted', ['funnelId', 'convertedAt'])
export class ErasedContact {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @ManyToOne(() => Funnel, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'funnel_id' })
  funnel?: Relation<Funnel>;

  @Column({ type: 'timestamptz', nullable: true })
  convertedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  erasedAt: Date;
}

/** A message sent to a contact since erased: only when, for the messages-sent counts. */
@Entity('erased_contact_messages')
@Index('idx_erased_contact_messages_sent', ['funnelId', 'sentAt'])
export class ErasedContactMessage {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @ManyToOne(() => Funnel, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'funnel_id' })
  funnel?: Relation<Funnel>;

  @Column({ type: 'timestamptz' })
  sentAt: Date;
}
