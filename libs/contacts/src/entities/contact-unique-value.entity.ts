import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, Relation } from 'typeorm';
import { MAX_CUSTOM_PROPERTY_NAME_LENGTH } from '../contact-fields';
import { ContactPropertyDefinition } from './contact-property-definition.entity';

/**
 * Who holds each value of a unique property: its primary key is what makes a second contact with
 * the same value impossible, whoever writes. Kept by triggers on contacts (see the
 * ContactPropertyDefinitions migration), never written by the service. The value is kept as the
 * SHA-256 of its text, so a long value still fits the index.
 */
@Entity('contact_unique_values')
export class ContactUniqueValue {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @PrimaryColumn({ type: 'varchar', length: MAX_CUSTOM_PROPERTY_NAME_LENGTH })
  propertyName: string;

  @ManyToOne(() => ContactPropertyDefinition, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'funnel_id', referencedColumnName: 'funnelId' },
    { name: 'property_name', referencedColumnName: 'name' },
  ])
  definition?: Relation<ContactPropertyDefinition>;

  /** sha256 of the value's text (`properties ->> name`). */
  @PrimaryColumn({ type: 'bytea' })
  valueKey: Buffer;

  @Column({ type: 'uuid' })
  contactId: string;
}
