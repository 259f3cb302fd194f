import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { MAX_CUSTOM_PROPERTY_NAME_LENGTH } from '../contact-fields';

/**
 * The values of a funnel's number and date properties, typed, so a range search reads an index
 * instead of every contact's properties. Two indexes serve every funnel and property (no index per
 * definition). Kept by triggers on contacts, filled after a definition's creation or change of type
 * by ContactPropertyValuesFiller; each row carries its definition's generation, and the rows of a
 * generation that ended (contact_property_values_retired) are removed by the filler in chunks.
 */
@Entity('contact_property_values')
@Index(
  'idx_contact_property_values_number',
  ['funnelId', 'propertyName', 'generation', 'numberValue', 'contactId'],
  {
    where: '"number_value" IS NOT NULL',
  },
)
@Index(
  'idx_contact_property_values_date',
  ['funnelId', 'propertyName', 'generation', 'dateValue', 'contactId'],
  {
    where: '"date_value" IS NOT NULL',
  },
)
export class ContactPropertyValue {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @PrimaryColumn({ type: 'varchar', length: MAX_CUSTOM_PROPERTY_NAME_LENGTH })
  propertyName: string;

  @PrimaryColumn({ type: 'uuid' })
  contactId: string;

  /** The definition's values_generation when the row was written; a search reads only the current one. */
  @Column({ type: 'uuid' })
  generation: string;

  /** The value of a `number` property; null for a date. */
  @Column({ type: 'numeric', nullable: true })
  numberValue: string | null;

  /** The value of a `date` property; null for a number. */
  @Column({ type: 'date', nullable: true })
  dateValue: string | null;
}

/** A generation of a property's copied values that ended (its definition deleted or retyped). */
@Entity('contact_property_values_retired')
export class RetiredContactPropertyValues {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @PrimaryColumn({ type: 'varchar', length: MAX_CUSTOM_PROPERTY_NAME_LENGTH })
  propertyName: string;

  @PrimaryColumn({ type: 'uuid' })
  generation: string;
}
