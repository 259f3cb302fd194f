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
import { MAX_CUSTOM_PROPERTY_NAME_LENGTH } from '../contact-fields';

/** One recorded change of one contact field (the history behind PUT .../values). */
@Entity('contact_field_values')
@Index('idx_contact_field_values_contact', ['contactId', 'createdAt'])
export class ContactFieldValue {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** The contact's funnel: the distribution column of a sharded deployment (docs/SCALING.md). */
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @Column({ type: 'uuid' })
  contactId: string;

  @ManyToOne(() => Contact, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'funnel_id', referencedColumnName: 'funnelId' },
    { name: 'contact_id', referencedColumnName: 'id' },
  ])
  contact?: Relation<Contact>;

  @Column({ type: 'varchar', length: MAX_CUSTOM_PROPERTY_NAME_LENGTH })
  fieldName: string;

  @Column({ type: 'text' })
  value: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
