import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Relation } from 'typeorm';
import { MAX_CUSTOM_PROPERTY_NAME_LENGTH } from '../contact-fields';
import { ContactPropertyDefinition } from './contact-property-definition.entity';

/**
 * The values of a funnel's number and date properties, typed, so a range search reads an index
 * instead of every contact's properties. Two indexes serve every funnel and property (no index per
 * definition). Kept by triggers on contacts and rebuilt when a definition is created or retyped
 * (see the ContactPropertyValues migration); a deleted definition takes its values with it.
 */
@Entity('contact_property_values')
@Index('idx_contact_property_values_number', ['funnelId', 'propertyName', 'numberValue', 'contactId'], {
  where: '"number_value" IS NOT NULL',
})
@Index('idx_contact_property_values_date', ['funnelId', 'propertyName', 'dateValue', 'contactId'], {
  where: '"date_value" IS NOT NULL',
})
export class ContactPropertyValue {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @PrimaryColumn({ type: 'varchar', length: MAX_CUSTOM_PROPERTY_NAME_LENGTH })
  propertyName: string;

  @ManyToOne(() => ContactPropertyDefinition, { onDelete: 'CASCADE', onUpdate: 'CASCADE' })
  @JoinColumn([
    { name: 'funnel_id', referencedColumnName: 'funnelId' },
    { name: 'property_name', referencedColumnName: 'name' },
  ])
  definition?: Relation<ContactPropertyDefinition>;

  @PrimaryColumn({ type: 'uuid' })
  contactId: string;

  /** The value of a `number` property; null for a date. */
  @Column({ type: 'numeric', nullable: true })
  numberValue: string | null;

  /** The value of a `date` property; null for a number. */
  @Column({ type: 'date', nullable: true })
  dateValue: string | null;
}
